package org.jtarget.config;

/**
 * A network portal ({@code portals[]}): a listening address and its target portal group, which is
 * also the portal's ALUA target port group (SPC-4 5.15).
 *
 * @param name            unique config name that targets refer to
 * @param host            the literal address to bind ("127.0.0.1", "::" for all IPv6 and IPv4, "0.0.0.0")
 * @param port            TCP port 1..65535 (3260 is the IANA iSCSI port, RFC 7143 13)
 * @param portalGroupTag  TargetPortalGroupTag 1..65535 (RFC 7143 13.9); default is the 1-based index
 * @param aluaState       {@code alua-state}: the asymmetric access state of the portal group at
 *                        start (default active/optimized); portals sharing a tag share it
 * @param aluaPreferred   {@code alua-preferred}: the group is reported with PREF = 1 (SPC-4 6.27)
 */
public record PortalConfig(String name, String host, int port, int portalGroupTag, AluaSetting aluaState,
                           boolean aluaPreferred) {

    /** A portal in an active/optimized, not preferred, target port group. */
    public PortalConfig(String name, String host, int port, int portalGroupTag) {
        this(name, host, port, portalGroupTag, AluaSetting.ACTIVE_OPTIMIZED, false);
    }
}
