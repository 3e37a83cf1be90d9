package org.jtarget.fabric.iscsi;

import org.jtarget.scsi.spi.TargetCore;

import java.util.List;

/**
 * One iSCSI target as the fabric sees it: its name, its SCSI core (LUN namespace), who may log in
 * and how, and where it is reachable.
 *
 * @param name               the iSCSI target name (iqn./eui./naa.)
 * @param alias              TargetAlias sent at login, or null
 * @param core               the target's SCSI core
 * @param allowedInitiators  initiator names allowed to log in; "*" allows any
 * @param chap               CHAP credentials, or null for AuthMethod=None
 * @param portals            the portals this target is reachable through (SendTargets lists them)
 */
public record IscsiTargetDefinition(String name, String alias, TargetCore core, List<String> allowedInitiators,
                                    ChapCredentials chap, List<IscsiPortalDefinition> portals) {

    /** True if the initiator may log in to this target (RFC 7143 11.13.5 status 0x0202 otherwise). */
    public boolean allows(String initiatorName) {
        return allowedInitiators.contains("*") || allowedInitiators.stream().anyMatch(a -> a.equalsIgnoreCase(initiatorName));
    }
}
