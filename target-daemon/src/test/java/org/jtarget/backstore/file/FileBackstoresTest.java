package org.jtarget.backstore.file;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import org.jtarget.backstore.spi.StoreException;
import org.jtarget.backstore.spi.StoreOpenException.Setting;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.jtarget.backstore.spi.OpenRefusals.about;

/** Opening from config, and the file store's data path. */
class FileBackstoresTest {

    private final ByteBufAllocator alloc = new PooledByteBufAllocator(true);

    @TempDir
    Path dir;

    /** writeCache null: the daemon's default for file stores, on. */
    private FileStoreSettings config(String file, long size, boolean create, Boolean writeCache) {
        return new FileStoreSettings("file0", dir.resolve(file), size, create, 512, false,
                writeCache == null || writeCache, false);
    }

    private ByteBuf pattern(int bytes, int seed) {
        ByteBuf b = alloc.directBuffer(bytes);
        for (int i = 0; i < bytes; i++) {
            b.writeByte((byte) (seed + i * 13));
        }
        return b;
    }

    @Test
    void cachedBlocksAreReadWithoutBlockingAndMatchTheNormalRead() throws Exception {
        try (FileBackstore store = FileBackstores.open(config("cached.img", 1 << 20, true, null))) {
            ByteBuf data = pattern(64 * 1024, 7);
            store.write(16, data, false); // now in the page cache
            ByteBuf viaCache = alloc.directBuffer(8192);
            ByteBuf viaRead = alloc.directBuffer(8192);
            try {
                assertThat(store.tryReadNonBlocking(20, 16, viaCache)).isTrue();
                store.read(20, 16, viaRead);
                assertThat(viaCache.readableBytes()).isEqualTo(8192);
                assertThat(ByteBufUtil.equals(viaCache, viaRead)).isTrue();
                assertThat(ByteBufUtil.equals(viaCache, data.slice(4 * 512, 8192))).isTrue();

                viaCache.clear();
                assertThat(store.tryReadNonBlocking(2047, 2, viaCache)).as("beyond the end").isFalse();
                assertThat(viaCache.writerIndex()).isZero();
                assertThat(store.tryReadNonBlocking(0, 32, viaCache)).as("no room in the buffer").isFalse();
            } finally {
                data.release();
                viaCache.release();
                viaRead.release();
            }
        }
    }

    @Test
    void aClosedStoreNeverReadsWithoutBlocking() throws Exception {
        FileBackstore store = FileBackstores.open(config("closed.img", 65536, true, null));
        ByteBuf data = pattern(4096, 3);
        store.write(0, data, false);
        store.close();
        ByteBuf dst = alloc.directBuffer(4096);
        try {
            assertThat(store.tryReadNonBlocking(0, 8, dst)).isFalse();
            assertThat(dst.writerIndex()).isZero();
        } finally {
            data.release();
            dst.release();
        }
    }

    @Test
    void createsASparseFileAndItsFolder() throws Exception {
        try (FileBackstore store = FileBackstores.open(config("data/disk.img", 1L << 30, true, null))) {
            Path file = dir.resolve("data/disk.img");
            assertThat(Files.size(file)).isEqualTo(1L << 30);
            assertThat(store.info().identitySeed()).isEqualTo("file:" + file.toRealPath());
            assertThat(store.info().blockCount()).isEqualTo((1L << 30) / 512);
            assertThat(store.info().writeCacheEnabled()).isTrue();
            assertThat(store.isNonBlocking()).isFalse();
            assertThat(store.supportsUnmap()).isFalse();
        }
    }

    @Test
    void thePhysicalBlockIsTheFileSystemsFourKibibytes() throws Exception {
        try (FileBackstore store = FileBackstores.open(config("disk.img", 65536, true, null))) {
            assertThat(store.info().logicalBlocksPerPhysicalBlockExponent()).isEqualTo(3); // 8 x 512
        }
        var fourK = new FileStoreSettings("file1", dir.resolve("4k.img"), 65536, true, 4096, false, true, false);
        try (FileBackstore store = FileBackstores.open(fourK)) {
            assertThat(store.info().logicalBlocksPerPhysicalBlockExponent()).isZero();
        }
    }

    @Test
    void reopensAnExistingFile() throws Exception {
        FileBackstores.open(config("disk.img", 65536, true, null)).close();
        try (FileBackstore store = FileBackstores.open(config("disk.img", 65536, true, null))) {
            assertThat(store.info().sizeBytes()).isEqualTo(65536);
        }
    }

    @Test
    void missingFileWithoutCreateIsRefused() {
        assertThatThrownBy(() -> FileBackstores.open(config("nope.img", 4096, false, null)))
                .is(about(Setting.PATH))
                .hasMessage("no such file " + dir.resolve("nope.img") + " (add 'create: true' to create it)");
    }

    @Test
    void sizeMismatchIsRefused() throws Exception {
        Files.write(dir.resolve("disk.img"), new byte[1024]);
        assertThatThrownBy(() -> FileBackstores.open(config("disk.img", 4096, false, null)))
                .is(about(Setting.SIZE)).hasMessageStartingWith("file ");
    }

    @Test
    void unreadableFileIsRefused() throws Exception {
        assumeThat(System.getProperty("user.name")).as("root ignores file permissions").isNotEqualTo("root");
        Path file = Files.write(dir.resolve("disk.img"), new byte[4096]);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("r--------"));
        assertThatThrownBy(() -> FileBackstores.open(config("disk.img", 4096, false, null)))
                .is(about(Setting.PATH)).hasMessageContaining("permission denied");
    }

    @Test
    void writeReadFlushRoundTripWithCompositeBuffers() throws Exception {
        try (FileBackstore store = FileBackstores.open(config("disk.img", 65536, true, null))) {
            ByteBuf a = pattern(512, 1);
            ByteBuf b = pattern(1024, 2);
            CompositeByteBuf src = alloc.compositeDirectBuffer().addComponents(true, a, b);
            CompositeByteBuf dst = alloc.compositeDirectBuffer()
                    .addComponents(false, alloc.directBuffer(1024), alloc.directBuffer(512));
            try {
                store.write(7, src, true);
                assertThat(src.readerIndex()).isZero();
                assertThat(src.readableBytes()).isEqualTo(1536);
                store.flush(0, 0);
                store.read(7, 3, dst);
                assertThat(dst.readableBytes()).isEqualTo(1536);
                assertThat(io.netty.buffer.ByteBufUtil.equals(src, dst)).isTrue();
            } finally {
                src.release();
                dst.release();
            }
        }
    }

    @Test
    void unwrittenBlocksReadAsZeros() throws Exception {
        try (FileBackstore store = FileBackstores.open(config("disk.img", 65536, true, false))) {
            ByteBuf dst = alloc.heapBuffer(4096);
            try {
                store.read(100, 8, dst);
                assertThat(dst.readableBytes()).isEqualTo(4096);
                assertThat(io.netty.buffer.ByteBufUtil.getBytes(dst)).containsOnly(0);
            } finally {
                dst.release();
            }
        }
    }

    @Test
    void writesAreVisibleInTheFile() throws Exception {
        try (FileBackstore store = FileBackstores.open(config("disk.img", 8192, true, false))) {
            ByteBuf src = pattern(512, 9);
            try {
                store.write(2, src, false);
                byte[] file = Files.readAllBytes(dir.resolve("disk.img"));
                assertThat(java.util.Arrays.copyOfRange(file, 1024, 1536)).isEqualTo(io.netty.buffer.ByteBufUtil.getBytes(src));
            } finally {
                src.release();
            }
        }
    }

    @Test
    void aDeletedFileIsMediumGoneOnFlushButDoesNotCrashReads() throws Exception {
        try (FileBackstore store = FileBackstores.open(config("disk.img", 8192, true, null))) {
            Files.delete(dir.resolve("disk.img"));
            ByteBuf dst = alloc.directBuffer(512);
            try {
                store.read(0, 1, dst);
                assertThat(dst.readableBytes()).isEqualTo(512);
            } finally {
                dst.release();
            }
            assertThatThrownBy(() -> store.flush(0, 0)).isInstanceOf(StoreException.class)
                    .extracting(e -> ((StoreException) e).kind()).isEqualTo(StoreException.Kind.MEDIUM_GONE);
        }
    }

    /**
     * A file truncated under the store (same inode, so not gone): blocks below the new end read,
     * blocks past it are READ_ERROR (never zeros or stale buffer bytes), one straddling it too; a
     * write past it extends the file again and then reads back. Page cache and O_DIRECT alike.
     */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void aTruncatedFileIsAReadErrorPastItsNewEndAndAWriteExtendsItAgain(boolean odirect) throws Exception {
        var config = new FileStoreSettings("file0", dir.resolve("t.img"), 1L << 20, true, 512, false, true, odirect);
        try (FileBackstore store = FileBackstores.open(config)) {
            ByteBuf src = pattern(1 << 20, 5);
            ByteBuf dst = alloc.directBuffer(8192);
            try {
                store.write(0, src, true);
                try (var ch = java.nio.channels.FileChannel.open(dir.resolve("t.img"),
                        java.nio.file.StandardOpenOption.WRITE)) {
                    ch.truncate(65536); // 128 blocks left
                }
                store.read(120, 8, dst);
                assertThat(ByteBufUtil.getBytes(dst)).isEqualTo(ByteBufUtil.getBytes(src, 120 * 512, 4096));
                for (long lba : new long[] {128, 124, 2047}) {
                    dst.clear();
                    dst.writerIndex(0);
                    long at = lba;
                    assertThatThrownBy(() -> store.read(at, Math.min(8, (int) (2048 - at)), dst))
                            .as("READ at %d", at).isInstanceOf(StoreException.class)
                            .hasMessageContaining("read failed").hasMessageContaining("truncated?")
                            .extracting(e -> ((StoreException) e).kind()).isEqualTo(StoreException.Kind.READ_ERROR);
                    assertThat(dst.writerIndex()).as("nothing passed off as data").isZero();
                }
                ByteBuf again = pattern(4096, 9);
                try {
                    store.write(1000, again, true);
                    assertThat(Files.size(dir.resolve("t.img"))).as("the write extended the file")
                            .isEqualTo(1000 * 512 + 4096);
                    dst.clear();
                    store.read(1000, 8, dst);
                    assertThat(ByteBufUtil.getBytes(dst)).isEqualTo(ByteBufUtil.getBytes(again));
                    dst.clear();
                    store.read(500, 8, dst);
                    assertThat(ByteBufUtil.getBytes(dst)).as("the gap reads as zeros").containsOnly((byte) 0);
                } finally {
                    again.release();
                }
            } finally {
                src.release();
                dst.release();
            }
        }
    }

    @Test
    void ioErrorsAreClassified() throws Exception {
        try (FileBackstore store = FileBackstores.open(config("disk.img", 8192, true, null))) {
            assertThat(store.classify(new IOException("No space left on device"), true).kind())
                    .isEqualTo(StoreException.Kind.SPACE_EXHAUSTED);
            assertThat(store.classify(new IOException("Input/output error"), true).kind())
                    .isEqualTo(StoreException.Kind.WRITE_ERROR);
            assertThat(store.classify(new IOException("Input/output error"), false).kind())
                    .isEqualTo(StoreException.Kind.READ_ERROR);
            Files.delete(dir.resolve("disk.img"));
            assertThat(store.classify(new IOException("Input/output error"), false).kind())
                    .isEqualTo(StoreException.Kind.MEDIUM_GONE);
        }
    }

    @Test
    void closedStoreIsMediumGoneAndCloseIsIdempotent() throws Exception {
        FileBackstore store = FileBackstores.open(config("disk.img", 8192, true, null));
        store.close();
        store.close();
        ByteBuf src = pattern(512, 0);
        try {
            assertThatThrownBy(() -> store.write(0, src, false)).isInstanceOf(StoreException.class)
                    .extracting(e -> ((StoreException) e).kind()).isEqualTo(StoreException.Kind.MEDIUM_GONE);
        } finally {
            src.release();
        }
    }

    @Test
    void directTrueBypassesThePageCacheAndRoundTripsUnalignedAndCompositeBuffers() throws Exception {
        var direct = new FileStoreSettings("file0", dir.resolve("d.img"), 1L << 20, true, 512, false, true, true);
        try (FileBackstore store = FileBackstores.open(direct)) {
            assertThat(store.directIo()).isTrue();
            ByteBuf first = pattern(1536, 3);
            ByteBuf second = pattern(512, 9);
            CompositeByteBuf src = alloc.compositeDirectBuffer().addComponents(true, first, second);
            ByteBuf dst = alloc.directBuffer(2048);
            try {
                store.write(3, src, true);
                store.read(3, 4, dst);
                assertThat(ByteBufUtil.equals(dst, src)).as("read back what was written").isTrue();
            } finally {
                src.release();
                dst.release();
            }
        }
        try (FileBackstore store = FileBackstores.open(config("d.img", 1L << 20, false, null))) {
            assertThat(store.directIo()).as("direct defaults to false for files").isFalse();
        }
    }

    /** A live resize: the file grows sparse, old data stays, new blocks read as zeros and take writes. */
    @Test
    void growsTheFileSparseKeepingItsData() throws Exception {
        try (FileBackstore store = FileBackstores.open(config("grow.img", 65536, true, null))) {
            ByteBuf data = pattern(4096, 5);
            store.write(120, data, false);
            store.grow(1024);
            assertThat(store.info().blockCount()).isEqualTo(1024);
            assertThat(Files.size(dir.resolve("grow.img"))).isEqualTo(1024 * 512L);
            ByteBuf back = alloc.directBuffer(8 * 512);
            ByteBuf fresh = alloc.directBuffer(896 * 512);
            try {
                store.read(120, 8, back);
                assertThat(ByteBufUtil.getBytes(back)).isEqualTo(ByteBufUtil.getBytes(data));
                store.read(128, 896, fresh);
                assertThat(ByteBufUtil.getBytes(fresh)).isEqualTo(new byte[896 * 512]);
                ByteBuf last = data.slice(0, 2048);
                store.write(1020, last, true);
                back.clear();
                store.read(1020, 4, back);
                assertThat(ByteBufUtil.getBytes(back)).isEqualTo(ByteBufUtil.getBytes(last));
            } finally {
                data.release();
                back.release();
                fresh.release();
            }
            assertThatThrownBy(() -> store.grow(512)).isInstanceOf(IllegalArgumentException.class);
        }
    }
}
