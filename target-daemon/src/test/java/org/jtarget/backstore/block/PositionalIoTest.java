package org.jtarget.backstore.block;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import org.jtarget.buffer.BufferPool;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

/**
 * pread/pwrite through FFM on a regular file, with and without O_DIRECT: aligned buffers in place,
 * unaligned, heap, composite and larger-than-bounce buffers through the bounce segment.
 */
class PositionalIoTest {

    private static final int FILE_BYTES = 4 << 20;

    @TempDir
    Path dir;
    private Path file;
    private final Arena arena = Arena.ofShared();

    @BeforeEach
    void createFile() throws IOException {
        file = dir.resolve("data.img");
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.setLength(FILE_BYTES);
        }
    }

    @AfterEach
    void freeArena() {
        arena.close();
    }

    private PositionalIo open(boolean direct) throws IOException {
        try {
            return PositionalIo.open(file, direct, false);
        } catch (ErrnoException e) {
            assumeThat(e.errno()).as("O_DIRECT unsupported by the test folder's file system: " + e.getMessage())
                    .isNotEqualTo(NativeIo.EINVAL);
            throw e;
        }
    }

    private static byte[] random(int bytes, long seed) {
        byte[] b = new byte[bytes];
        new Random(seed).nextBytes(b);
        return b;
    }

    /** A direct buffer over page-aligned native memory holding {@code data}. */
    private ByteBuf aligned(byte[] data) {
        MemorySegment seg = arena.allocate(data.length, PositionalIo.ALIGNMENT);
        seg.copyFrom(MemorySegment.ofArray(data));
        return Unpooled.wrappedBuffer(seg.asByteBuffer());
    }

    /** A direct buffer whose data starts one byte past a page boundary. */
    private static ByteBuf unaligned(byte[] data) {
        ByteBuf b = Unpooled.directBuffer(data.length + 1);
        b.writeByte(0).writeBytes(data);
        return b.skipBytes(1);
    }

    private static ByteBuf composite(byte[] data) {
        CompositeByteBuf c = Unpooled.compositeBuffer();
        int half = data.length / 2;
        c.addComponent(true, Unpooled.directBuffer(half).writeBytes(data, 0, half));
        c.addComponent(true, Unpooled.wrappedBuffer(Arrays.copyOfRange(data, half, data.length)));
        return c;
    }

    private ByteBuf source(String kind, byte[] data) {
        return switch (kind) {
            case "aligned" -> aligned(data);
            case "unaligned" -> unaligned(data);
            case "heap" -> Unpooled.wrappedBuffer(data.clone());
            case "composite" -> composite(data);
            default -> throw new IllegalArgumentException(kind);
        };
    }

    private ByteBuf destination(String kind, int length) {
        return switch (kind) {
            case "aligned" -> Unpooled.wrappedBuffer(arena.allocate(length, PositionalIo.ALIGNMENT).asByteBuffer())
                    .clear();
            case "unaligned" -> Unpooled.directBuffer(length + 1).writerIndex(1).readerIndex(1);
            case "heap" -> Unpooled.buffer(length);
            case "composite" -> Unpooled.compositeBuffer().addComponent(Unpooled.directBuffer(length / 2)
                    .writerIndex(length / 2)).addComponent(Unpooled.buffer(length - length / 2)
                    .writerIndex(length - length / 2)).clear();
            default -> throw new IllegalArgumentException(kind);
        };
    }

    private static byte[] readBack(ByteBuf dst, int index, int length) {
        byte[] out = new byte[length];
        dst.getBytes(index, out);
        return out;
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"aligned", "unaligned", "heap", "composite"})
    void directRoundTripsEveryBufferKind(String kind) throws IOException {
        roundTrip(true, kind, 64 << 10, 8192);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"aligned", "unaligned", "heap", "composite"})
    void bufferedRoundTripsEveryBufferKind(String kind) throws IOException {
        roundTrip(false, kind, 64 << 10, 512);
    }

    @Test
    void transfersLargerThanTheBounceSegmentGoThroughItChunkByChunk() throws IOException {
        roundTrip(true, "unaligned", PositionalIo.BOUNCE_BYTES * 2 + 512, 512);
    }

    @Test
    void aSingle512ByteBlockAtAnOddBlockOffsetWorksWithODirect() throws IOException {
        roundTrip(true, "unaligned", 512, 512 * 7);
    }

    private void roundTrip(boolean direct, String kind, int length, long offset) throws IOException {
        byte[] data = random(length, length + offset);
        ByteBuf src = source(kind, data);
        ByteBuf dst = destination(kind, length);
        try (PositionalIo io = open(direct)) {
            io.write(offset, src, src.readerIndex(), length);
            io.fdatasync();
            assertThat(src.readableBytes()).as("write leaves the source's indexes alone").isEqualTo(length);
            int index = dst.writerIndex();
            io.read(offset, length, dst, index);
            assertThat(readBack(dst, index, length)).as("read back").isEqualTo(data);
        } finally {
            src.release();
            dst.release();
        }
        byte[] onDisk = Arrays.copyOfRange(Files.readAllBytes(file), (int) offset, (int) offset + length);
        assertThat(onDisk).as("the file holds what was written").isEqualTo(data);
    }

    @Test
    void pinnedArenaBuffersGoStraightToODirectWithoutABounce() throws IOException {
        byte[] data = random(256 << 10, 99);
        try (BufferPool pool = BufferPool.create(1, 4 << 20, false); PositionalIo io = open(true)) {
            ByteBuf src = pool.ioBuffer(data.length).writeBytes(data);
            ByteBuf dst = pool.ioBuffer(data.length);
            try {
                io.write(8192, src, 0, data.length);
                io.read(8192, data.length, dst, 0);
                assertThat(readBack(dst, 0, data.length)).isEqualTo(data);
                assertThat(io.bouncedTransfers()).as("page-aligned arena buffers are used in place").isZero();
                ByteBuf odd = unaligned(new byte[4096]);
                io.write(0, odd, odd.readerIndex(), 4096);
                odd.release();
                assertThat(io.bouncedTransfers()).as("an unaligned buffer bounces").isEqualTo(1);
            } finally {
                src.release();
                dst.release();
            }
        }
    }

    @Test
    void readingPastTheEndIsAnEofErrorNotZeros() throws IOException {
        ByteBuf dst = Unpooled.buffer(1024);
        try (PositionalIo io = open(false)) {
            assertThatThrownBy(() -> io.read(FILE_BYTES - 512, 1024, dst, 0)).isInstanceOf(java.io.EOFException.class)
                    .hasMessageContaining("end of file at byte " + FILE_BYTES).hasMessageContaining(file.toString());
            assertThatThrownBy(() -> io.read(FILE_BYTES, 512, dst, 0)).isInstanceOf(java.io.EOFException.class);
            assertThat(dst.writerIndex()).as("the caller's indexes are untouched").isZero();
        } finally {
            dst.release();
        }
    }

    @Test
    void aFailedCallCarriesItsErrno() throws IOException {
        ByteBuf src = Unpooled.directBuffer(512).writeZero(512);
        try (PositionalIo io = open(true)) {
            // O_DIRECT at an offset that is not a multiple of the logical block size: EINVAL
            assertThatThrownBy(() -> io.write(1, src, 0, 512)).isInstanceOf(ErrnoException.class)
                    .satisfies(e -> assertThat(((ErrnoException) e).errno()).isEqualTo(NativeIo.EINVAL))
                    .hasMessageContaining("pwrite on " + file).hasMessageContaining("Invalid argument");
        } finally {
            src.release();
        }
    }

    @Test
    void openingAMissingFileFailsWithENOENT() {
        assertThatThrownBy(() -> PositionalIo.open(dir.resolve("nope"), false, false))
                .isInstanceOf(ErrnoException.class)
                .satisfies(e -> assertThat(((ErrnoException) e).errno()).isEqualTo(2));
    }
}
