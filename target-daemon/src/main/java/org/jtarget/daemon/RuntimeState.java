package org.jtarget.daemon;

import org.jtarget.backstore.spi.Backstore;
import org.jtarget.config.JtargetConfig;
import org.jtarget.fabric.iscsi.session.SessionRegistry;
import org.jtarget.ha.PairNode;
import org.jtarget.scsi.lun.TargetRegistry;

import java.util.Map;

/**
 * What the running daemon serves now, for the management API: read-only views of live objects
 * taken under the runtime's lock, so that a reload in progress is seen before or after, never half.
 *
 * @param config   the config running now
 * @param targets  the live targets, their LUs, ACLs and port groups
 * @param stores   the open backstores by name
 * @param sessions the iSCSI sessions (TCP and iSER), or null before the fabric started
 * @param ha       this node's role, peer and generation in one line, or null when it runs alone
 * @param resync   how far this HA node's resync to its peer has come, or null when none runs
 */
public record RuntimeState(JtargetConfig config, TargetRegistry targets, Map<String, Backstore> stores,
                           SessionRegistry sessions, String ha, PairNode.ResyncProgress resync) {
}
