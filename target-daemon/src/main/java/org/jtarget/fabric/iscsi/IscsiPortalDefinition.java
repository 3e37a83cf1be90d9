package org.jtarget.fabric.iscsi;

/**
 * A network portal: where the daemon listens, and the target portal group it belongs to.
 *
 * @param name              the config name of the portal
 * @param host              the address to bind ("127.0.0.1", "::", "0.0.0.0")
 * @param port              the TCP port
 * @param portalGroupTag    the TargetPortalGroupTag (1..65535) reported at login and in SendTargets
 */
public record IscsiPortalDefinition(String name, String host, int port, int portalGroupTag) {
}
