package org.jtarget.config;

import java.nio.file.Path;
import java.util.List;

/**
 * The whole validated configuration: every reference resolves, every name is well-formed, every
 * path is absolute. Immutable; a reload builds a new one.
 *
 * @param source      the file it was read from, as the user named it (used in messages)
 * @param daemon      process-wide settings
 * @param portals     where the daemon listens
 * @param backstores  the stores LUNs are backed by
 * @param targets     the iSCSI targets
 * @param rdma        the RDMA store endpoints, or null for none
 * @param ha          the high-availability pair this daemon is one of, or null when it runs alone
 * @param management  the management listener (metrics), or null for none
 */
public record JtargetConfig(Path source, DaemonSettings daemon, List<PortalConfig> portals,
                            List<BackstoreConfig> backstores, List<TargetConfig> targets, RdmaConfig rdma,
                            HaConfig ha, ManagementConfig management) {

    public JtargetConfig {
        portals = List.copyOf(portals);
        backstores = List.copyOf(backstores);
        targets = List.copyOf(targets);
    }

    /** Without RDMA store endpoints, not in a high-availability pair. */
    public JtargetConfig(Path source, DaemonSettings daemon, List<PortalConfig> portals,
                         List<BackstoreConfig> backstores, List<TargetConfig> targets) {
        this(source, daemon, portals, backstores, targets, null);
    }

    /** Without a management listener. */
    public JtargetConfig(Path source, DaemonSettings daemon, List<PortalConfig> portals,
                         List<BackstoreConfig> backstores, List<TargetConfig> targets, RdmaConfig rdma, HaConfig ha) {
        this(source, daemon, portals, backstores, targets, rdma, ha, null);
    }

    /** Not in a high-availability pair. */
    public JtargetConfig(Path source, DaemonSettings daemon, List<PortalConfig> portals,
                         List<BackstoreConfig> backstores, List<TargetConfig> targets, RdmaConfig rdma) {
        this(source, daemon, portals, backstores, targets, rdma, null);
    }

    /** The portal with this name, or null. */
    public PortalConfig portal(String name) {
        for (PortalConfig p : portals) {
            if (p.name().equals(name)) {
                return p;
            }
        }
        return null;
    }

    /** The backstore with this name, or null. */
    public BackstoreConfig backstore(String name) {
        for (BackstoreConfig b : backstores) {
            if (b.name().equals(name)) {
                return b;
            }
        }
        return null;
    }
}
