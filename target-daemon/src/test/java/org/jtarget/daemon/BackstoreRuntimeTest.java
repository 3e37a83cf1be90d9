package org.jtarget.daemon;

import org.jtarget.backstore.file.FileBackstore;
import org.jtarget.config.ConfigException;
import org.jtarget.config.ConfigLoader;
import org.jtarget.config.JtargetConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class BackstoreRuntimeTest {

    @TempDir
    Path dir;

    private JtargetConfig load(String backstores) throws Exception {
        Path file = Files.writeString(dir.resolve("jtarget.yaml"),
                "portals:\n  - { name: p, listen: 127.0.0.1:3260 }\nbackstores:\n" + backstores);
        return ConfigLoader.load(file);
    }

    @Test
    void startOpensEveryStoreAndStopClosesThem() throws Exception {
        BackstoreRuntime runtime = new BackstoreRuntime(load("""
                  - { name: ram0, type: memory, size: 1M }
                  - { name: file0, type: file, path: data/f.img, size: 1M, create: true }
                """));
        runtime.start();
        BackstoreSet stores = runtime.stores();
        assertThat(stores.all()).containsOnlyKeys("ram0", "file0");
        assertThat(Files.size(dir.resolve("data/f.img"))).isEqualTo(1L << 20);
        FileBackstore file = (FileBackstore) stores.get("file0");
        runtime.stop(Duration.ofSeconds(1));
        runtime.stop(Duration.ofSeconds(1));
        assertThat(runtime.stores()).isNull();
        assertThatThrownBy(() -> file.flush(0, 0)).hasMessageContaining("is gone");
    }

    @Test
    void aStoreThatFailsToOpenClosesTheOthersAndNamesTheFile() throws Exception {
        JtargetConfig config = load("""
                  - { name: ram0, type: memory, size: 1M }
                  - { name: file0, type: file, path: f.img, size: 1M, create: true }
                """);
        Files.delete(dir.resolve("jtarget.yaml"));
        Files.createDirectory(dir.resolve("f.img")); // appears between load and start
        BackstoreRuntime runtime = new BackstoreRuntime(config);
        assertThatThrownBy(runtime::start).isInstanceOf(ConfigException.class)
                .hasMessage(dir.resolve("jtarget.yaml") + ": backstores[file0].path: " + dir.resolve("f.img")
                        + " is not a regular file");
        runtime.stop(Duration.ofSeconds(1));
    }
}
