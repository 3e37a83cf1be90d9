package org.jtarget.rdma.iwarp;

import io.netty.buffer.ByteBuf;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class PlacementRecvAllocatorTest {

    /** A sink that is never reached: the decoder only sizes reads here. */
    private static final FrameSink UNUSED = new FrameSink() {
        @Override public void mpaFrame(ByteBuf header, ByteBuf privateData) { }
        @Override public void untagged(ByteBuf header, ByteBuf payload) { }
        @Override public boolean beginTagged(ByteBuf header, int payloadLength) {
            return false;
        }
        @Override public void place(ByteBuf src, int n, long messageOffset) { }
        @Override public ByteBuf placementTarget(long messageOffset, int max) { return null; }
        @Override public void endTagged() { }
        @Override public boolean blocked() { return false; }
        @Override public void malformed(TerminateCode code, String why) { }
    };

    private static RecvByteBufAllocator.ExtendedHandle handle(EmbeddedChannel ch) {
        RecvByteBufAllocator.ExtendedHandle h = (RecvByteBufAllocator.ExtendedHandle)
                new PlacementRecvAllocator(new FrameDecoder(UNUSED)).newHandle();
        h.reset(ch.config());
        return h;
    }

    private static void read(RecvByteBufAllocator.ExtendedHandle h, EmbeddedChannel ch, boolean fills) {
        ByteBuf b = h.allocate(ch.alloc());
        h.attemptedBytesRead(b.writableBytes());
        h.lastBytesRead(fills ? b.writableBytes() : b.writableBytes() / 2);
        h.incMessagesRead(1);
        b.release();
    }

    /**
     * An FPDU's header and payload come in separate reads: each read that fills its buffer must be
     * followed by the next one in the same readiness event (a freshly made Netty allocator allows
     * one, which cost an epoll_wait and a flush per read), up to Netty's usual 16.
     */
    @Test
    void readsThatFillTheirBuffersContinueUpToSixteenPerEvent() {
        EmbeddedChannel ch = new EmbeddedChannel();
        RecvByteBufAllocator.ExtendedHandle h = handle(ch);
        for (int i = 1; i < 16; i++) {
            read(h, ch, true);
            assertThat(h.continueReading()).as("after read %d", i).isTrue();
        }
        read(h, ch, true);
        assertThat(h.continueReading()).isFalse();
        ch.finishAndReleaseAll();
    }

    @Test
    void aShortReadEndsTheEvent() {
        EmbeddedChannel ch = new EmbeddedChannel();
        RecvByteBufAllocator.ExtendedHandle h = handle(ch);
        read(h, ch, false);
        assertThat(h.continueReading()).isFalse();
        ch.finishAndReleaseAll();
    }
}
