package org.jtarget.config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The LUN mapping keys read by {@link TargetReader} (here: {@code queue-depth}). */
class TargetReaderTest {

    private static final String HEAD = """
            portals:
              - name: default
                listen: 127.0.0.1:3260
            backstores:
              - { name: ram0, type: memory, size: 1MiB }
              - { name: ram1, type: memory, size: 1MiB }
            targets:
              - iqn: iqn.2026-11.org.jtarget:demo
                portals: [default]
                acl: ["*"]
                luns:
            """;

    @TempDir
    Path dir;

    private JtargetConfig load(String luns) throws Exception {
        Path file = dir.resolve("jtarget.yaml");
        Files.writeString(file, HEAD + luns);
        return ConfigLoader.load(file);
    }

    @Test
    void queueDepthDefaultsAndIsReadPerLun() throws Exception {
        JtargetConfig c = load("""
                      - { lun: 0, backstore: ram0 }
                      - { lun: 1, backstore: ram1, queue-depth: 4 }
                """);
        assertThat(c.targets().getFirst().luns()).extracting(LunConfig::queueDepth)
                .containsExactly(LunConfig.DEFAULT_QUEUE_DEPTH, 4);
    }

    @Test
    void queueDepthOutOfRangeNamesTheKey() {
        assertThatThrownBy(() -> load("      - { lun: 0, backstore: ram0, queue-depth: 0 }\n"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("queue-depth");
        assertThatThrownBy(() -> load("      - { lun: 0, backstore: ram0, queue-depth: "
                + (LunConfig.MAX_QUEUE_DEPTH + 1) + " }\n"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("queue-depth");
    }
}
