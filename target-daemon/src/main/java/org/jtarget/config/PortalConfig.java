package org.jtarget.config;

/**
 * A network portal ({@code portals[]}): a listening address and its target portal group, which is
 * also the portal's ALUA target port group (SPC-4 5.15).
 *
 * @param name            unique config name that targets refer to
 * @param host            the literal address to bind ("127.0.0.1", "::" for all IPv6 and IPv4, "0.0.0.0")
 * @param port            TCP port 1..65535 (3260 is the IANA iSCSI port, RFC 7143 13); for iSER and SRP
 *                        the port the iwarp provider listens on
 * @param portalGroupTag  TargetPortalGroupTag 1..65535 (RFC 7143 13.9); default is the 1-based index
 * @param aluaState       {@code alua-state}: the asymmetric access state of the portal group at
 *                        start (default active/optimized); portals sharing a tag share it
 * @param aluaPreferred   {@code alua-preferred}: the group is reported with PREF = 1 (SPC-4 6.27)
 * @param transport       {@code transport}: iSCSI over TCP (default), iSER (RFC 7145) over the
 *                        iwarp RDMA provider on the same address, or SRP (T10 SRP r16a) over it
 */
public record PortalConfig(String name, String host, int port, int portalGroupTag, AluaSetting aluaState,
                           boolean aluaPreferred, Transport transport) {

    /** What carries the portal's connections, and which protocol they speak. */
    public enum Transport {
        /** iSCSI over TCP (RFC 7143). */
        TCP("tcp"),
        /** iSCSI Extensions for RDMA (RFC 7145), served by the iwarp provider. */
        ISER("iser"),
        /**
         * The SCSI RDMA Protocol (T10 SRP r16a), served by the iwarp provider on the same address:
         * SRP logins, not iSCSI. Targets on such a portal say their SRP target port identifier
         * ({@link TargetConfig#srp()}).
         */
        SRP("srp");

        private final String configName;

        Transport(String configName) {
            this.configName = configName;
        }

        public String configName() {
            return configName;
        }

        /** The transport named {@code text} in the config, or null. */
        public static Transport ofConfigName(String text) {
            for (Transport t : values()) {
                if (t.configName.equals(text)) {
                    return t;
                }
            }
            return null;
        }
    }

    /** An iSCSI/TCP portal. */
    public PortalConfig(String name, String host, int port, int portalGroupTag, AluaSetting aluaState,
                        boolean aluaPreferred) {
        this(name, host, port, portalGroupTag, aluaState, aluaPreferred, Transport.TCP);
    }

    /** A portal in an active/optimized, not preferred, target port group. */
    public PortalConfig(String name, String host, int port, int portalGroupTag) {
        this(name, host, port, portalGroupTag, AluaSetting.ACTIVE_OPTIMIZED, false);
    }
}
