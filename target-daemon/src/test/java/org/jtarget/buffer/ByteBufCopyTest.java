package org.jtarget.buffer;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;

import static org.assertj.core.api.Assertions.assertThat;

class ByteBufCopyTest {

    private static final ByteBufAllocator ALLOC = PooledByteBufAllocator.DEFAULT;

    /** A buffer whose byte i is (i * 7 + seed): any misplaced byte shows. */
    private static ByteBuf pattern(int length, int seed) {
        ByteBuf b = ALLOC.directBuffer(length);
        for (int i = 0; i < length; i++) {
            b.writeByte(i * 7 + seed);
        }
        return b;
    }

    @Test
    void copyPutsTheBytesAtTheIndexAndMovesNoIndex() {
        ByteBuf src = pattern(300, 1);
        ByteBuf dst = ALLOC.directBuffer(300).writeZero(300);
        ByteBufCopy.copy(src, 10, dst, 100, 50);
        for (int i = 0; i < 300; i++) {
            int expected = i >= 100 && i < 150 ? (byte) ((i - 90) * 7 + 1) : 0;
            assertThat(dst.getByte(i)).as("byte %d", i).isEqualTo((byte) expected);
        }
        assertThat(src.readerIndex()).isZero();
        assertThat(dst.writerIndex()).isEqualTo(300);
        src.release();
        dst.release();
    }

    @Test
    void transferMovesBothIndexesAndAppendGrows() {
        ByteBuf src = pattern(100, 3);
        src.skipBytes(20);
        ByteBuf dst = ALLOC.directBuffer(8).writeByte(9);
        ByteBufCopy.transfer(src, dst, 30);
        assertThat(src.readerIndex()).isEqualTo(50);
        assertThat(dst.readableBytes()).isEqualTo(31);
        assertThat(dst.getByte(0)).isEqualTo((byte) 9);
        for (int i = 0; i < 30; i++) {
            assertThat(dst.getByte(1 + i)).isEqualTo((byte) ((20 + i) * 7 + 3));
        }
        src.release();
        dst.release();
    }

    @Test
    void compositesAndHeapBuffersAreCopiedToo() {
        CompositeByteBuf composite = ALLOC.compositeDirectBuffer();
        composite.addComponent(true, pattern(10, 0)).addComponent(true, pattern(10, 100));
        ByteBuf heap = ALLOC.heapBuffer(20);
        ByteBufCopy.append(composite, 5, heap, 10);
        for (int i = 0; i < 5; i++) {
            assertThat(heap.getByte(i)).isEqualTo((byte) ((5 + i) * 7));
            assertThat(heap.getByte(5 + i)).isEqualTo((byte) (i * 7 + 100));
        }
        composite.release();
        heap.release();
    }

    /** Pooled buffers as the daemon has them (unwrapped: the tests' paranoid leak detector records every access). */
    @Test
    void copyingBetweenDirectBuffersAllocatesNothing() {
        ByteBuf srcTracked = pattern(4096, 5);
        ByteBuf dstTracked = ALLOC.directBuffer(4096);
        ByteBuf src = srcTracked.unwrap() != null ? srcTracked.unwrap() : srcTracked;
        ByteBuf dst = dstTracked.unwrap() != null ? dstTracked.unwrap() : dstTracked;
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long tid = Thread.currentThread().threadId();
        for (int i = 0; i < 2000; i++) { // warm up
            dst.clear();
            ByteBufCopy.append(src, 0, dst, 4096);
        }
        long before = threads.getThreadAllocatedBytes(tid);
        for (int i = 0; i < 10_000; i++) {
            dst.clear();
            ByteBufCopy.append(src, 0, dst, 4096);
        }
        long allocated = threads.getThreadAllocatedBytes(tid) - before;
        assertThat(allocated / 10_000.0).as("bytes allocated per copy").isLessThan(1.0);
        srcTracked.release();
        dstTracked.release();
    }

    /** Zeros land after what the buffer held, over dirty pooled memory, in pieces larger than the zero source. */
    @Test
    void appendZerosWritesZerosAfterTheContentAndGrows() {
        ByteBuf dirty = pattern(200_000, 9); // leaves non-zero bytes in the pool's memory
        dirty.release();
        ByteBuf dst = ALLOC.directBuffer(16).writeByte(7);
        ByteBufCopy.appendZeros(dst, 150_001);
        assertThat(dst.readableBytes()).isEqualTo(150_002);
        assertThat(dst.getByte(0)).isEqualTo((byte) 7);
        for (int i = 1; i < dst.writerIndex(); i++) {
            if (dst.getByte(i) != 0) {
                throw new AssertionError("byte " + i + " is " + dst.getByte(i));
            }
        }
        dst.release();
        ByteBuf heap = ALLOC.heapBuffer(4).writeByte(1);
        heap.setByte(1, 5);
        ByteBufCopy.appendZeros(heap, 3);
        assertThat(heap.readableBytes()).isEqualTo(4);
        assertThat(heap.getByte(1)).isZero();
        heap.release();
        CompositeByteBuf composite = ALLOC.compositeDirectBuffer();
        composite.addComponent(true, pattern(4, 1)).addComponent(true, ALLOC.directBuffer(4));
        ByteBufCopy.appendZeros(composite, 4);
        assertThat(composite.readableBytes()).isEqualTo(8);
        assertThat(composite.getInt(4)).isZero();
        composite.release();
    }

    @Test
    void appendingZerosToADirectBufferAllocatesNothing() {
        ByteBuf tracked = ALLOC.directBuffer(4096);
        ByteBuf dst = tracked.unwrap() != null ? tracked.unwrap() : tracked;
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long tid = Thread.currentThread().threadId();
        for (int i = 0; i < 2000; i++) { // warm up
            dst.clear();
            ByteBufCopy.appendZeros(dst, 4096);
        }
        long before = threads.getThreadAllocatedBytes(tid);
        for (int i = 0; i < 10_000; i++) {
            dst.clear();
            ByteBufCopy.appendZeros(dst, 4096);
        }
        long allocated = threads.getThreadAllocatedBytes(tid) - before;
        assertThat(allocated / 10_000.0).as("bytes allocated per 4 KiB of zeros").isLessThan(1.0);
        tracked.release();
    }
}
