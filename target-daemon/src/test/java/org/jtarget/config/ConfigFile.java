package org.jtarget.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A {@code jtarget.yaml} in a test's temporary folder, written from text: loads it, or checks the
 * one-line error it is refused with ({@code <file>: <key>: <problem>}).
 */
final class ConfigFile {

    private final Path file;

    ConfigFile(Path dir) {
        this.file = dir.resolve("jtarget.yaml");
    }

    JtargetConfig load(String yaml) throws Exception {
        Files.writeString(file, yaml);
        return ConfigLoader.load(file);
    }

    /** Loading {@code yaml} fails with exactly {@code expected} after the file name, on one line. */
    void assertError(String yaml, String expected) {
        assertThatThrownBy(() -> load(yaml)).isInstanceOf(ConfigException.class)
                .hasMessage(file + ": " + expected)
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }
}
