package org.jtarget.daemon;

import org.jtarget.config.BackstoreConfig;
import org.jtarget.config.ConfigException;
import org.jtarget.config.ConfigLoader;
import org.jtarget.config.JtargetConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What a reload does with a kept backstore: a larger size grows it, anything else is refused naming the key. */
class ConfigChangesTest {

    @TempDir
    Path dir;

    private JtargetConfig config(String name, String ramSize, String fileSize) throws Exception {
        return ConfigLoader.load(Files.writeString(dir.resolve(name), """
                portals:
                  - { name: p, listen: "127.0.0.1:3260" }
                backstores:
                  - { name: ram0, type: memory, size: %s }
                  - { name: file0, type: file, path: file0.img, size: %s, create: true }
                targets:
                  - { iqn: iqn.2026-11.org.example:t, portals: [p], acl: ["*"], luns: [ { lun: 0, backstore: ram0 } ] }
                """.formatted(ramSize, fileSize)));
    }

    /** {@code c} with backstore {@code i} replaced. */
    private static JtargetConfig withStore(JtargetConfig c, int i, BackstoreConfig b) {
        List<BackstoreConfig> stores = new ArrayList<>(c.backstores());
        stores.set(i, b);
        return new JtargetConfig(c.source(), c.daemon(), c.portals(), stores, c.targets(), c.rdma(), c.ha(),
                c.management());
    }

    @Test
    void largerMemoryAndFileStoresAreResizedLive() throws Exception {
        JtargetConfig now = config("a.yaml", "1MiB", "1MiB");
        ConfigChanges changes = ConfigChanges.between(now, withStore(withStore(now, 0,
                now.backstores().get(0).withSizeBytes(4L << 20)), 1, now.backstores().get(1).withSizeBytes(2L << 20)));
        assertThat(changes.resizedBackstores()).containsExactly(Map.entry("ram0", 4L << 20),
                Map.entry("file0", 2L << 20));
        assertThat(changes.isEmpty()).isFalse();
        assertThat(changes.summary()).contains("backstore ram0 grown to 4MiB", "backstore file0 grown to 2MiB");
        assertThat(ConfigChanges.between(now, now).isEmpty()).isTrue();
    }

    @Test
    void aSmallerSizeIsRefusedNamingTheSizeKey() throws Exception {
        JtargetConfig now = config("a.yaml", "2MiB", "1MiB");
        assertThatThrownBy(() -> ConfigChanges.between(now, withStore(now, 0,
                now.backstores().get(0).withSizeBytes(1L << 20))))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("backstores[0].size: 1MiB is smaller than the running 2MiB: the data past the "
                        + "new end would be lost")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }

    @Test
    void anotherChangedKeyOfAKeptStoreStillNeedsARestart() throws Exception {
        JtargetConfig now = config("a.yaml", "1MiB", "1MiB");
        BackstoreConfig f = now.backstores().get(1);
        BackstoreConfig direct = new BackstoreConfig(f.name(), f.type(), f.path(), 2L << 20, f.create(),
                f.blockSize(), f.thin(), f.writeCache(), Boolean.TRUE, f.of(), f.offsetBytes(), f.encrypt());
        assertThatThrownBy(() -> ConfigChanges.between(now, withStore(now, 1, direct)))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("backstores[1]: changed; a reload (SIGHUP) applies");
    }

    @Test
    void blockDevicesAndPartitionsKeepTheirSize() throws Exception {
        JtargetConfig now = config("a.yaml", "1MiB", "1MiB");
        BackstoreConfig disk = new BackstoreConfig("ram0", BackstoreConfig.Type.BLOCK, Path.of("/dev/loop9"),
                1L << 20, false, 512, false, null, null);
        JtargetConfig withDisk = withStore(now, 0, disk);
        assertThatThrownBy(() -> ConfigChanges.between(withDisk, withStore(withDisk, 0, disk.withSizeBytes(2L << 20))))
                .hasMessageContaining("backstores[0].size: changed, but a block device's size is the device's");
        BackstoreConfig part = new BackstoreConfig("ram0", BackstoreConfig.Type.PARTITION, null, 1L << 19, false,
                512, false, null, null, "file0", 0);
        JtargetConfig withPart = withStore(now, 0, part);
        assertThatThrownBy(() -> ConfigChanges.between(withPart, withStore(withPart, 0, part.withSizeBytes(1L << 20))))
                .hasMessageContaining("backstores[0].size: changed, but a partition's range is fixed");
    }
}
