package org.jtarget.backstore.file;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

class PageCacheReaderTest {

    @TempDir
    Path dir;

    @Test
    void readsCachedBytesExactlyAndRefusesShortReadsAndAfterClose() throws Exception {
        byte[] bytes = new byte[16384];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) (i * 7 + 1);
        }
        Path file = Files.write(dir.resolve("f"), bytes); // just written: in the page cache
        PageCacheReader reader = PageCacheReader.open(file);
        assertThat(reader).isNotNull();
        ByteBuffer dst = ByteBuffer.allocateDirect(8192);
        dst.position(100).limit(4196); // reads exactly position..limit
        assertThat(reader.tryRead(4096, dst)).isTrue();
        assertThat(dst.position()).isEqualTo(100);
        for (int i = 0; i < 4096; i++) {
            assertThat(dst.get(100 + i)).isEqualTo(bytes[4096 + i]);
        }
        dst.clear();
        assertThat(reader.tryRead(12288, dst)).as("only 4 KiB left before the end").isFalse();
        reader.close();
        reader.close(); // idempotent
        dst.clear().limit(4096);
        assertThat(reader.tryRead(0, dst)).isFalse();
    }

    @Test
    void aFileThatCannotBeOpenedGivesNoReader() {
        assertThat(PageCacheReader.open(dir.resolve("missing"))).isNull();
    }
}
