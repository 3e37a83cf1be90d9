package org.jtarget.daemon;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

import static org.assertj.core.api.Assertions.assertThat;

class FileMediumProbeTest {

    @TempDir
    Path dir;

    @Test
    void theSameFileIsPresentEvenWhenWritten() throws Exception {
        Path file = Files.write(dir.resolve("a.img"), new byte[4096]);
        FileMediumProbe probe = FileMediumProbe.of(file);
        Files.write(file, new byte[8192]);
        assertThat(probe.missing()).isNull();
    }

    @Test
    void aDeletedFileIsMissing() throws Exception {
        Path file = Files.write(dir.resolve("a.img"), new byte[4096]);
        FileMediumProbe probe = FileMediumProbe.of(file);
        Files.delete(file);
        assertThat(probe.missing()).isEqualTo(file + " was deleted");
    }

    @Test
    void aFileReplacedByAnotherInodeIsMissing() throws Exception {
        Path file = Files.write(dir.resolve("a.img"), new byte[4096]);
        FileMediumProbe probe = FileMediumProbe.of(file);
        Path other = Files.write(dir.resolve("b.img"), new byte[4096]);
        Files.move(other, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        assertThat(probe.missing()).isEqualTo(file + " was replaced by another file");
    }
}
