package org.jtarget.fabric.iscsi.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.RecvByteBufAllocator;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class HeadroomRecvByteBufAllocatorTest {

    @Test
    void everyReceiveBufferStartsAfterTheHeadroomWithTheGuessWritable() {
        RecvByteBufAllocator.Handle handle = new HeadroomRecvByteBufAllocator().newHandle();
        assertThat(handle).isInstanceOf(RecvByteBufAllocator.ExtendedHandle.class); // epoll requires it
        ByteBuf buf = handle.allocate(ByteBufAllocator.DEFAULT);
        try {
            assertThat(buf.readerIndex()).isEqualTo(HeadroomRecvByteBufAllocator.HEADROOM);
            assertThat(buf.writerIndex()).isEqualTo(HeadroomRecvByteBufAllocator.HEADROOM);
            assertThat(buf.writableBytes()).isGreaterThanOrEqualTo(handle.guess());
            assertThat(buf.isReadable()).isFalse();
        } finally {
            buf.release();
        }
    }

    @Test
    void readsThatFillTheirBuffersContinueUpToSixteenPerEvent() {
        io.netty.channel.embedded.EmbeddedChannel ch = new io.netty.channel.embedded.EmbeddedChannel();
        RecvByteBufAllocator.ExtendedHandle h = (RecvByteBufAllocator.ExtendedHandle)
                new HeadroomRecvByteBufAllocator().newHandle();
        h.reset(ch.config());
        for (int i = 1; i <= org.jtarget.buffer.ReceiveSizing.READS_PER_EVENT; i++) {
            ByteBuf b = h.allocate(ByteBufAllocator.DEFAULT);
            h.attemptedBytesRead(b.writableBytes());
            h.lastBytesRead(b.writableBytes());
            h.incMessagesRead(1);
            b.release();
            assertThat(h.continueReading()).as("after read %d", i).isEqualTo(i < org.jtarget.buffer.ReceiveSizing.READS_PER_EVENT);
        }
        ch.finishAndReleaseAll();
    }
}
