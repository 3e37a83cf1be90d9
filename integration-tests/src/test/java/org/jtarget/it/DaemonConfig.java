package org.jtarget.it;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The daemon configuration the integration tests run: one portal on 127.0.0.1, one target with
 * LUN 0 on a memory store and LUN 1 on a file store created on first start (the documented YAML
 * schema; relative paths resolve against the config file's folder). {@link #withIserPortal} adds an
 * iSER portal for the same target (see {@link Transport}).
 *
 * @param port           the portal's TCP port on 127.0.0.1
 * @param iserPort       the iSER portal's port on 127.0.0.1, or 0 for none
 * @param memoryBytes    size of backstore {@code ram0} (LUN 0)
 * @param fileBytes      size of backstore {@code file0} (LUN 1)
 * @param fileImage      path of the file store's image, relative to the config's folder
 */
public record DaemonConfig(int port, int iserPort, long memoryBytes, long fileBytes, String fileImage) {

    /** The target name every integration test uses. */
    public static final String IQN = "iqn.2026-11.org.jtarget:it";
    public static final long MIB = 1024L * 1024;
    /** LUN numbers of the two stores. */
    public static final int MEMORY_LUN = 0;
    public static final int FILE_LUN = 1;

    /** The standard test config: 384 MiB memory LUN 0, 512 MiB file LUN 1 at {@code data/file0.img}. */
    public static DaemonConfig standard(int port) {
        return new DaemonConfig(port, 0, 384 * MIB, 512 * MIB, "data/file0.img");
    }

    /**
     * This config with an iSER portal ({@code transport: iser}) on {@code iserPort} beside the TCP
     * one, for the same target, and the pinned buffer arena an iSER portal needs: 6 MiB, within the
     * usual 8 MiB memlock limit, room for one iSER connection (about 4.4 MiB, docs/iser.md) at a time.
     */
    public DaemonConfig withIserPortal(int iserPort) {
        return new DaemonConfig(port, iserPort, memoryBytes, fileBytes, fileImage);
    }

    /** The port of {@code transport}'s portal. */
    public int port(Transport transport) {
        if (transport == Transport.ISER && iserPort == 0) {
            throw new IllegalStateException("this config has no iSER portal (see withIserPortal)");
        }
        return transport == Transport.TCP ? port : iserPort;
    }

    /** The YAML text. Sizes are written with the MiB suffix. */
    public String toYaml() {
        String targetPortals = iserPort == 0 ? "default" : "default, rdma";
        return iserYaml() + """
                portals:
                  - name: default
                    listen: 127.0.0.1:%d
                """.formatted(port) + iserPortalYaml() + """
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
                """.formatted(memoryBytes / MIB, fileImage, fileBytes / MIB, IQN, targetPortals);
    }

    private String iserYaml() {
        return iserPort == 0 ? "" : "daemon: { buffer-pool: { pinned-size: 6MiB, pin: true } }\n";
    }

    private String iserPortalYaml() {
        return iserPort == 0 ? "" : """
                  - { name: rdma, listen: "127.0.0.1:%d", portal-group-tag: 2, transport: iser }
                """.formatted(iserPort);
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
