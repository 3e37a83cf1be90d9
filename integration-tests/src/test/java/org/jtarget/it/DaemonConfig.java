package org.jtarget.it;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.jtarget.fabric.srp.iu.SrpPortId;

/**
 * The daemon configuration the integration tests run: one portal on 127.0.0.1, one target with
 * LUN 0 on a memory store and LUN 1 on a file store created on first start (the documented YAML
 * schema; relative paths resolve against the config file's folder). {@link #withIserPortal} adds an
 * iSER portal for the same target, {@link #withSrpPortal} an SRP portal (see {@link ScsiTransport},
 * {@link DaemonExtension#withRdmaPortals()}).
 *
 * @param port           the portal's TCP port on 127.0.0.1
 * @param iserPort       the iSER portal's port on 127.0.0.1, or 0 for none
 * @param srpPort        the SRP portal's port on 127.0.0.1 (the target then has {@link #SRP_TARGET}),
 *                       or 0 for none; only beside an iSER portal (their pinned arena)
 * @param memoryBytes    size of backstore {@code ram0} (LUN 0)
 * @param fileBytes      size of backstore {@code file0} (LUN 1)
 * @param fileImage      path of the file store's image, relative to the config's folder
 */
public record DaemonConfig(int port, int iserPort, int srpPort, long memoryBytes, long fileBytes, String fileImage) {

    /** The target name every integration test uses. */
    public static final String IQN = "iqn.2026-11.org.jtarget:it";
    public static final long MIB = 1024L * 1024;
    /** LUN numbers of the two stores. */
    public static final int MEMORY_LUN = 0;
    public static final int FILE_LUN = 1;

    /**
     * The {@code daemon:} setting an iSER portal needs: a pinned arena, 6 MiB so that it stays within
     * the usual 8 MiB memlock limit; room for one iSER connection at a time (about 4.4 MiB each at
     * the default command window, docs/iser.md).
     */
    public static final String ISER_BUFFER_POOL = "buffer-pool: { pinned-size: 6MiB, pin: true }";

    /** The SRP target port of a target with {@link #SRP_TARGET}: what srp:// URLs name ({@link #srpUrl}). */
    public static final String SRP_TARGET_PORT = "0x0123456789abcdef00a0b1c2d3e4f501";
    /** A target's {@code srp:} setting for {@link #SRP_TARGET_PORT} (id-ext, then ioc-guid). */
    public static final String SRP_TARGET = srpSetting(SRP_TARGET_PORT);

    /** The standard test config: 384 MiB memory LUN 0, 512 MiB file LUN 1 at {@code data/file0.img}. */
    public static DaemonConfig standard(int port) {
        return new DaemonConfig(port, 0, 0, 384 * MIB, 512 * MIB, "data/file0.img");
    }

    /**
     * This config with an iSER portal ({@code transport: iser}) on {@code iserPort} beside the TCP
     * one, for the same target, and the pinned buffer arena an iSER portal needs ({@link #ISER_BUFFER_POOL}).
     */
    public DaemonConfig withIserPortal(int iserPort) {
        return new DaemonConfig(port, iserPort, srpPort, memoryBytes, fileBytes, fileImage);
    }

    /** This config (with an iSER portal) with an SRP portal on {@code srpPort} too, and the target's {@link #SRP_TARGET}. */
    public DaemonConfig withSrpPortal(int srpPort) {
        return new DaemonConfig(port, iserPort, srpPort, memoryBytes, fileBytes, fileImage);
    }

    /** The YAML text. Sizes are written with the MiB suffix. */
    public String toYaml() {
        String portals = iserPort == 0 ? portalsYaml(port, 0) : daemonAndPortalsYaml(port, iserPort);
        if (srpPort != 0) {
            portals += srpPortalYaml(srpPort);
        }
        return portals + """
                backstores:
                  - { name: ram0, type: memory, size: %dMiB }
                  - { name: file0, type: file, path: %s, size: %dMiB, create: true }
                targets:
                  - iqn: %s
                    portals: [%s]
                    luns:
                      - { lun: 0, backstore: ram0 }
                      - { lun: 1, backstore: file0, read-only: false }
                    acl: ["*"]
                """.formatted(memoryBytes / MIB, fileImage, fileBytes / MIB, IQN,
                targetPortals(iserPort) + (srpPort == 0 ? "" : ", srp"))
                + (srpPort == 0 ? "" : "    " + SRP_TARGET + "\n");
    }

    /**
     * The {@code portals:} section: {@code default} (TCP) on {@code port} and, when {@code iserPort}
     * is not 0, {@code rdma} (iSER, portal group 2) on {@code iserPort}; the daemon section then needs
     * {@link #ISER_BUFFER_POOL}.
     */
    public static String portalsYaml(int port, int iserPort) {
        String tcp = """
                portals:
                  - name: default
                    listen: 127.0.0.1:%d
                """.formatted(port);
        return iserPort == 0 ? tcp : tcp + """
                  - { name: rdma, listen: "127.0.0.1:%d", portal-group-tag: 2, transport: iser }
                """.formatted(iserPort);
    }

    /**
     * {@link #portalsYaml} after a {@code daemon:} section with {@link #ISER_BUFFER_POOL} and
     * {@code otherSettings} (e.g. {@code "state-dir: /x"}).
     */
    public static String daemonAndPortalsYaml(int port, int iserPort, String... otherSettings) {
        String settings = Stream.concat(Stream.of(otherSettings), Stream.of(ISER_BUFFER_POOL))
                .collect(Collectors.joining(", "));
        return "daemon: { " + settings + " }\n" + portalsYaml(port, iserPort);
    }

    /**
     * One more entry for {@link #portalsYaml}'s list: {@code srp} ({@code transport: srp}, portal
     * group 3) on {@code srpPort}. An SRP channel registers the same pinned arena as iSER
     * ({@link #ISER_BUFFER_POOL}, about 1.3 MiB per channel at the default 64 credits), and the
     * target needs {@link #SRP_TARGET}.
     */
    public static String srpPortalYaml(int srpPort) {
        return """
                  - { name: srp, listen: "127.0.0.1:%d", portal-group-tag: 3, transport: srp }
                """.formatted(srpPort);
    }

    /**
     * A target's {@code srp:} setting for the SRP target port named {@code targetPort} (0x and 32 hex
     * digits): its first 8 bytes are the {@code id-ext}, the last 8 the {@code ioc-guid}.
     */
    public static String srpSetting(String targetPort) {
        SrpPortId id = SrpPortId.parse(targetPort);
        return "srp: { id-ext: 0x%016x, ioc-guid: 0x%016x }".formatted(id.high(), id.low());
    }

    /** {@code srp://127.0.0.1:PORT/SRP_TARGET_PORT/LUN}, as {@code jtarget-initiator} takes it. */
    public static String srpUrl(int srpPort, int lun) {
        return "srp://" + DaemonProcess.HOST + ":" + srpPort + "/" + SRP_TARGET_PORT + "/" + lun;
    }

    /** What a target's {@code portals:} lists for {@link #portalsYaml}: {@code default} or {@code default, rdma}. */
    public static String targetPortals(int iserPort) {
        return iserPort == 0 ? "default" : "default, rdma";
    }

    /** The ports of its portals (0 for a portal it has not). */
    Portals portals() {
        return new Portals(port, iserPort, srpPort);
    }

    /** Writes {@code jtarget.yaml} into {@code dir} and returns its path. */
    public Path writeTo(Path dir) throws IOException {
        return write(dir, toYaml());
    }

    /** Writes any YAML text as {@code jtarget.yaml} into {@code dir} (for bad-config tests). */
    public static Path write(Path dir, String yaml) throws IOException {
        Files.createDirectories(dir);
        return Files.writeString(dir.resolve("jtarget.yaml"), yaml);
    }

    /** Size in bytes of the store behind {@code lun}. */
    public long lunBytes(int lun) {
        return lun == MEMORY_LUN ? memoryBytes : fileBytes;
    }
}
