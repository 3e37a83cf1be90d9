package org.jtarget.daemon;

import org.jtarget.backstore.spi.Backstore;
import org.jtarget.backstore.spi.StoreOpenException;
import org.jtarget.config.BackstoreConfig;
import org.jtarget.config.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The config side of opening a store: defaults resolved here, a store's refusal told as the YAML key. */
class BackstoreOpenersTest {

    @TempDir
    Path dir;

    private BackstoreConfig file(String name, long size, boolean create, Boolean writeCache, Boolean direct) {
        return new BackstoreConfig(name, BackstoreConfig.Type.FILE, dir.resolve(name + ".img"), size, create, 512,
                false, writeCache, direct);
    }

    @Test
    void aMissingFileIsOneLineNamingThePathKey() {
        assertThatThrownBy(() -> BackstoreOpeners.open(file("file0", 4096, false, null, null)))
                .isInstanceOf(ConfigException.class)
                .hasMessage("backstores[file0].path: no such file " + dir.resolve("file0.img")
                        + " (add 'create: true' to create it)");
    }

    @Test
    void aFileOfAnotherSizeNamesTheSizeKey() throws Exception {
        Files.write(dir.resolve("file0.img"), new byte[1024]);
        assertThatThrownBy(() -> BackstoreOpeners.open(file("file0", 4096, false, null, null)))
                .isInstanceOf(ConfigException.class).hasMessageStartingWith("backstores[file0].size: file ");
    }

    @Test
    void fileDefaultsAreWriteCacheOnAndThePageCache() throws Exception {
        try (Backstore store = BackstoreOpeners.open(file("file0", 65536, true, null, null))) {
            assertThat(store.info().writeCacheEnabled()).isTrue();
        }
        assertThat(BackstoreOpeners.fileSettings(file("f", 4096, true, null, null)).direct()).isFalse();
        assertThat(BackstoreOpeners.fileSettings(file("f", 4096, true, false, true)))
                .extracting(s -> s.writeCache(), s -> s.direct()).containsExactly(false, true);
    }

    @Test
    void blockDefaultsAreWriteCacheOnAndODirect() {
        var config = new BackstoreConfig("disk0", BackstoreConfig.Type.BLOCK, Path.of("/dev/null"), 0, false, 0,
                false, null, null);
        assertThat(BackstoreOpeners.blockSettings(config))
                .extracting(s -> s.writeCache(), s -> s.direct()).containsExactly(true, true);
    }

    @Test
    void memoryDefaultsToNoWriteCache() throws Exception {
        var config = new BackstoreConfig("ram0", BackstoreConfig.Type.MEMORY, null, 1 << 20, false, 512, true, null);
        try (Backstore store = BackstoreOpeners.open(config)) {
            assertThat(store.info().writeCacheEnabled()).isFalse();
        }
    }

    @Test
    void everyStoreSettingHasItsYamlKey() {
        assertThat(BackstoreOpeners.settingKey(StoreOpenException.Setting.PATH)).isEqualTo("path");
        assertThat(BackstoreOpeners.settingKey(StoreOpenException.Setting.SIZE)).isEqualTo("size");
        assertThat(BackstoreOpeners.settingKey(StoreOpenException.Setting.BLOCK_SIZE)).isEqualTo("block-size");
        assertThat(BackstoreOpeners.settingKey(StoreOpenException.Setting.THIN)).isEqualTo("thin");
        assertThat(BackstoreOpeners.settingKey(StoreOpenException.Setting.DIRECT)).isEqualTo("direct");
        assertThat(BackstoreOpeners.settingKey(StoreOpenException.Setting.ENCRYPT)).isEqualTo("encrypt");
    }
}
