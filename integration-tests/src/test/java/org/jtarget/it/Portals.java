package org.jtarget.it;

/**
 * The ports of a daemon that serves one target over every fabric ({@link ScsiTransport}): the TCP
 * portal (the one {@link DaemonProcess#start} waits for), the iSER portal and the SRP portal, all
 * on 127.0.0.1. For tests that write YAML of their own: {@link #yaml} gives the {@code daemon:} and
 * {@code portals:} sections, a target lists {@link #TARGET_PORTALS} and carries {@link #TARGET_SRP}.
 */
record Portals(int tcp, int iser, int srp) {

    /** What a target's {@code portals:} lists to be served on all three. */
    static final String TARGET_PORTALS = "default, rdma, srp";
    /** The target's {@code srp:} line (indented for a target of {@code targets:}). */
    static final String TARGET_SRP = "    " + DaemonConfig.SRP_TARGET + "\n";

    /** Three free ports. */
    static Portals free() {
        return new Portals(DaemonProcess.freePort(), DaemonProcess.freePort(), DaemonProcess.freePort());
    }

    /** The port of {@code transport}'s portal. */
    int port(ScsiTransport transport) {
        return switch (transport) {
            case TCP -> tcp;
            case ISER -> iser;
            case SRP -> srp;
        };
    }

    /**
     * The {@code daemon:} section ({@link DaemonConfig#ISER_BUFFER_POOL} and {@code daemonSettings})
     * and the {@code portals:} section with the TCP, the iSER and the SRP portal.
     */
    String yaml(String... daemonSettings) {
        return DaemonConfig.daemonAndPortalsYaml(tcp, iser, daemonSettings) + DaemonConfig.srpPortalYaml(srp);
    }
}
