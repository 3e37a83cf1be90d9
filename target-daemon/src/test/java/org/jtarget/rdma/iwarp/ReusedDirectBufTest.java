package org.jtarget.rdma.iwarp;

import io.netty.buffer.ByteBuf;
import org.jtarget.rdma.MemoryRegion;
import org.jtarget.rdma.RdmaFixture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;

import static org.assertj.core.api.Assertions.assertThat;

/** The reusable request buffers: a released one comes back, views name their bytes, nothing is allocated per use. */
class ReusedDirectBufTest {

    private TcpFixture f;
    private MemoryRegion region;

    @BeforeEach
    void setUp() throws Exception {
        f = new TcpFixture();
        region = f.register(1 << 16, RdmaFixture.ALL);
        RdmaFixture.fill(region.segment(), 3);
    }

    @AfterEach
    void tearDown() {
        f.close();
    }

    @Test
    void aViewIsTheRegionsBytesAtItsAddressAndComesBackWhenReleased() {
        RegionViews views = new RegionViews();
        ByteBuf v = views.view(region, 1000, 24);
        assertThat(v.readableBytes()).isEqualTo(24);
        assertThat(v.hasMemoryAddress()).isTrue();
        assertThat(v.memoryAddress() + v.readerIndex()).isEqualTo(region.segment().address() + 1000);
        for (int i = 0; i < 24; i++) {
            assertThat(v.getByte(v.readerIndex() + i)).isEqualTo(region.segment().get(java.lang.foreign.ValueLayout.JAVA_BYTE, 1000 + i));
        }
        ByteBuf held = views.view(region, 0, 8);
        assertThat(held).isNotSameAs(v);
        v.release();
        ByteBuf again = views.view(region, 64, 8);
        assertThat(again).as("the released view, reused").isSameAs(v);
        assertThat(again.refCnt()).isEqualTo(1);
        assertThat(again.readerIndex()).isEqualTo(64);
        again.release();
        held.release();
    }

    @Test
    void frameBuffersAreReusedEmpty() {
        FrameBuffers frames = new FrameBuffers();
        ByteBuf b = frames.take();
        assertThat(b.capacity()).isEqualTo(FrameBuffers.CAPACITY);
        b.writeLong(42);
        b.release();
        ByteBuf again = frames.take();
        assertThat(again).isSameAs(b);
        assertThat(again.readableBytes()).isZero();
        assertThat(again.hasMemoryAddress()).isTrue();
        again.release();
    }

    @Test
    void takingAndReleasingAllocatesNothing() {
        RegionViews views = new RegionViews();
        FrameBuffers frames = new FrameBuffers();
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long tid = Thread.currentThread().threadId();
        for (int i = 0; i < 2000; i++) { // warm up
            cycle(views, frames);
        }
        long before = threads.getThreadAllocatedBytes(tid);
        for (int i = 0; i < 10_000; i++) {
            cycle(views, frames);
        }
        long allocated = threads.getThreadAllocatedBytes(tid) - before;
        assertThat(allocated / 10_000.0).as("bytes allocated per take + release").isLessThan(1.0);
    }

    private void cycle(RegionViews views, FrameBuffers frames) {
        ByteBuf v = views.view(region, 4096, 4096);
        ByteBuf h = frames.take();
        h.writeInt(1);
        v.release();
        h.release();
    }
}
