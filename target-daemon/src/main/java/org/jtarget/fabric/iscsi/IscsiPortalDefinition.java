package org.jtarget.fabric.iscsi;

/**
 * A network portal: where the daemon listens, and the target portal group it belongs to.
 *
 * @param name              the config name of the portal
 * @param host              the address to bind ("127.0.0.1", "::", "0.0.0.0")
 * @param port              the TCP port
 * @param portalGroupTag    the TargetPortalGroupTag (1..65535) reported at login and in SendTargets
 * @param rdma              served by iSER (RFC 7145) rather than iSCSI over TCP: SendTargets lists
 *                          a portal only to connections of its own transport
 */
public record IscsiPortalDefinition(String name, String host, int port, int portalGroupTag, boolean rdma) {

    /** An iSCSI-over-TCP portal. */
    public IscsiPortalDefinition(String name, String host, int port, int portalGroupTag) {
        this(name, host, port, portalGroupTag, false);
    }
}
