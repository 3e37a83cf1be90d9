package org.jtarget.buffer;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.buffer.UnpooledDirectByteBuf;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ScatterListTest {

    private static final ByteBufAllocator ALLOC = ByteBufAllocator.DEFAULT;

    /** A receive buffer whose byte i is (i * 7 + seed): any misplaced byte shows. */
    private static ByteBuf root(int length, int seed) {
        ByteBuf b = ALLOC.directBuffer(length);
        for (int i = 0; i < length; i++) {
            b.writeByte(i * 7 + seed);
        }
        return b;
    }

    /** Adds {@code length} bytes of root at index as a retained slice recorded with its root. */
    private static void addSlice(ScatterList list, ByteBuf root, int index, int length) {
        list.add(root.retainedSlice(index, length), root, index);
    }

    @Test
    void copyToReassemblesSegmentsAtAnyOffset() {
        ByteBuf a = root(1000, 1);
        ByteBuf b = root(3000, 2);
        ScatterList list = new ScatterList();
        addSlice(list, a, 100, 500);
        addSlice(list, b, 0, 3000);
        addSlice(list, a, 900, 100);
        assertThat(list.count()).isEqualTo(3);
        assertThat(list.readableBytes()).isEqualTo(3600);
        byte[] expected = new byte[3600];
        a.getBytes(100, expected, 0, 500);
        b.getBytes(0, expected, 500, 3000);
        a.getBytes(900, expected, 3500, 100);
        for (int[] range : new int[][] {{0, 3600}, {499, 2}, {450, 3100}, {3500, 100}, {0, 0}, {3599, 1}}) {
            ByteBuffer dst = ByteBuffer.allocateDirect(range[1] + 10);
            list.copyTo(range[0], dst, 10, range[1]);
            for (int i = 0; i < range[1]; i++) {
                assertThat(dst.get(10 + i)).as("byte %d of range %d+%d", i, range[0], range[1])
                        .isEqualTo(expected[range[0] + i]);
            }
            assertThat(dst.position()).isZero();
        }
        list.clear();
        a.release();
        b.release();
        assertThat(a.refCnt()).isZero();
        assertThat(b.refCnt()).isZero();
    }

    @Test
    void anotherThreadCopiesThroughItsOwnViews() throws Exception {
        ByteBuf a = root(4096, 3);
        ScatterList list = new ScatterList();
        addSlice(list, a, 96, 4000);
        ByteBuffer dst = ByteBuffer.allocateDirect(4000);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread other = new Thread(() -> {
            try {
                list.copyTo(0, dst, 0, 4000);
            } catch (Throwable t) {
                failure.set(t);
            }
        });
        other.start();
        other.join();
        assertThat(failure.get()).isNull();
        for (int i = 0; i < 4000; i++) {
            assertThat(dst.get(i)).isEqualTo(a.getByte(96 + i));
        }
        list.clear();
        a.release();
    }

    @Test
    void asByteBufShowsAllSegmentsAndIsReleasedByClear() {
        ByteBuf a = root(100, 4);
        ByteBuf b = root(50, 5);
        ScatterList list = new ScatterList();
        addSlice(list, a, 0, 100);
        ByteBuf one = list.asByteBuf();
        assertThat(one.readableBytes()).isEqualTo(100);
        assertThat(list.asByteBuf()).as("made once").isSameAs(one);
        addSlice(list, b, 10, 40);
        ByteBuf both = list.asByteBuf();
        assertThat(both.readableBytes()).isEqualTo(140);
        assertThat(both.getByte(100)).isEqualTo(b.getByte(10));
        both.skipBytes(20); // a borrower may move indexes: the list's own view of its bytes is unchanged
        ByteBuffer dst = ByteBuffer.allocate(140);
        list.copyTo(0, dst, 0, 140);
        assertThat(dst.get(0)).isEqualTo(a.getByte(0));
        list.clear();
        assertThat(both.refCnt()).isZero();
        assertThat(a.refCnt()).isEqualTo(1);
        assertThat(b.refCnt()).isEqualTo(1);
        a.release();
        b.release();
    }

    @Test
    void emptySegmentsAreReleasedAndNotListed() {
        ByteBuf a = root(10, 6);
        ScatterList list = new ScatterList();
        list.add(a.retainedSlice(5, 0));
        assertThat(list.count()).isZero();
        assertThat(a.refCnt()).isEqualTo(1);
        a.release();
    }

    @Test
    void growsBeyondItsInitialCapacityAndIsReusable() {
        ByteBuf a = root(4096, 7);
        ScatterList list = new ScatterList();
        for (int round = 0; round < 2; round++) {
            for (int i = 0; i < 64; i++) {
                addSlice(list, a, i * 64, 64);
            }
            ByteBuffer dst = ByteBuffer.allocate(4096);
            list.copyTo(0, dst, 0, 4096);
            for (int i = 0; i < 4096; i++) {
                assertThat(dst.get(i)).isEqualTo(a.getByte(i));
            }
            list.clear();
            assertThat(list.count()).isZero();
            assertThat(list.readableBytes()).isZero();
        }
        assertThat(a.refCnt()).isEqualTo(1);
        a.release();
    }

    @Test
    void rangesOutsideTheListAreRefused() {
        ByteBuf a = root(100, 8);
        ScatterList list = new ScatterList();
        addSlice(list, a, 0, 100);
        ByteBuffer dst = ByteBuffer.allocate(200);
        assertThatThrownBy(() -> list.copyTo(50, dst, 0, 51)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> list.copyTo(-1, dst, 0, 1)).isInstanceOf(IndexOutOfBoundsException.class);
        list.clear();
        a.release();
    }

    @Test
    void segmentsSpreadOverSeveralReceiveBuffersCopyPieceByPiece() {
        ByteBuf first = root(3000, 9);
        ByteBuf second = root(3000, 10);
        io.netty.buffer.CompositeByteBuf chain = ALLOC.compositeDirectBuffer(2);
        chain.addComponent(true, first).addComponent(true, second);
        ScatterList list = new ScatterList();
        list.add(chain.retainedSlice(1000, 4000)); // its root is the slice: several NIO buffers
        ByteBuffer dst = ByteBuffer.allocateDirect(4000);
        list.copyTo(0, dst, 0, 4000);
        for (int i = 0; i < 4000; i++) {
            assertThat(dst.get(i)).isEqualTo(chain.getByte(1000 + i));
        }
        list.clear();
        chain.release();
        assertThat(first.refCnt()).isZero();
    }

    /**
     * DESIGN 4.2 for the WRITE path: on the receiving thread, copying a segment out of its root
     * allocates nothing. Counted with the thread's allocated-bytes counter over many copies; the
     * buffers are plain (not leak-tracked) so PARANOID leak detection does not add its records.
     */
    @Test
    void copyingOnTheOwnerThreadAllocatesNothing() {
        ByteBuf root = new UnpooledDirectByteBuf(UnpooledByteBufAllocator.DEFAULT, 8192, 8192);
        root.writeZero(8192);
        ByteBuffer dst = ByteBuffer.allocateDirect(8192);
        ScatterList list = new ScatterList();
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long tid = Thread.currentThread().threadId();
        for (int i = 0; i < 2000; i++) { // warm up: class loading, array growth
            cycle(list, root, dst);
        }
        long before = threads.getThreadAllocatedBytes(tid);
        for (int i = 0; i < 10_000; i++) {
            cycle(list, root, dst);
        }
        long allocated = threads.getThreadAllocatedBytes(tid) - before;
        assertThat(allocated / 10_000.0).as("bytes allocated per add+copy+clear").isLessThan(1.0);
        root.release();
    }

    private static void cycle(ScatterList list, ByteBuf root, ByteBuffer dst) {
        list.add(root.retain(), root, 0); // segments that are the root itself: no slice objects
        list.add(root.retain(), root, 0);
        list.copyTo(0, dst, 0, 4096);
        list.copyTo(8000, dst, 0, 4096);
        list.clear();
    }
}
