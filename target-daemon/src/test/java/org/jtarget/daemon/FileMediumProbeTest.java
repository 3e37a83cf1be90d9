package org.jtarget.daemon;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;

import static org.assertj.core.api.Assertions.assertThat;

class FileMediumProbeTest {

    @TempDir
    Path dir;

    private FileMediumProbe probeOf(Path file) throws Exception {
        return new FileMediumProbe(file, Files.readAttributes(file, BasicFileAttributes.class).fileKey());
    }

    @Test
    void theSameFileIsPresentEvenWhenWritten() throws Exception {
        Path file = Files.write(dir.resolve("a.img"), new byte[4096]);
        FileMediumProbe probe = probeOf(file);
        Files.write(file, new byte[8192]);
        assertThat(probe.missing()).isNull();
    }

    @Test
    void aDeletedFileIsMissing() throws Exception {
        Path file = Files.write(dir.resolve("a.img"), new byte[4096]);
        FileMediumProbe probe = probeOf(file);
        Files.delete(file);
        assertThat(probe.missing()).isEqualTo(file + " was deleted");
    }

    @Test
    void aFileReplacedByAnotherInodeIsMissing() throws Exception {
        Path file = Files.write(dir.resolve("a.img"), new byte[4096]);
        FileMediumProbe probe = probeOf(file);
        Path other = Files.write(dir.resolve("b.img"), new byte[4096]);
        Files.move(other, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        assertThat(probe.missing()).isEqualTo(file + " was replaced by another file");
    }
}
