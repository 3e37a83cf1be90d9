package org.jtarget.it;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The daemon configuration the integration tests run: one portal on 127.0.0.1, one target with
 * LUN 0 on a memory store and LUN 1 on a file store created on first start (the documented YAML
 * schema; relative paths resolve against the config file's folder).
 *
 * @param port           the portal's TCP port on 127.0.0.1
 * @param memoryBytes    size of backstore {@code ram0} (LUN 0)
 * @param fileBytes      size of backstore {@code file0} (LUN 1)
 * @param fileImage      path of the file store's image, relative to the config's folder
 */
public record DaemonConfig(int port, long memoryBytes, long fileBytes, String fileImage) {

    /** The target name every integration test uses. */
    public static final String IQN = "iqn.2026-11.org.jtarget:it";
    public static final long MIB = 1024L * 1024;
    /** LUN numbers of the two stores. */
    public static final int MEMORY_LUN = 0;
    public static final int FILE_LUN = 1;

    /** The standard test config: 384 MiB memory LUN 0, 512 MiB file LUN 1 at {@code data/file0.img}. */
    public static DaemonConfig standard(int port) {
        return new DaemonConfig(port, 384 * MIB, 512 * MIB, "data/file0.img");
    }

    /** The YAML text. Sizes are written with the MiB suffix. */
    public String toYaml() {
        return """
                portals:
                  - name: default
                    listen: 127.0.0.1:%d
                backstores:
                  - { name: ram0, type: memory, size: %dMiB }
                  - { name: file0, type: file, path: %s, size: %dMiB, create: true }
                targets:
                  - iqn: %s
                    portals: [default]
                    luns:
                      - { lun: 0, backstore: ram0 }
                      - { lun: 1, backstore: file0, read-only: false }
                    acl: ["*"]
                """.formatted(port, memoryBytes / MIB, fileImage, fileBytes / MIB, IQN);
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
