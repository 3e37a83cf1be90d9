package org.jtarget.config;

/**
 * A network portal ({@code portals[]}): a listening address and its target portal group.
 *
 * @param name            unique config name that targets refer to
 * @param host            the literal address to bind ("127.0.0.1", "::" for all IPv6 and IPv4, "0.0.0.0")
 * @param port            TCP port 1..65535 (3260 is the IANA iSCSI port, RFC 7143 13)
 * @param portalGroupTag  TargetPortalGroupTag 1..65535 (RFC 7143 13.9); default is the 1-based index
 */
public record PortalConfig(String name, String host, int port, int portalGroupTag) {
}
