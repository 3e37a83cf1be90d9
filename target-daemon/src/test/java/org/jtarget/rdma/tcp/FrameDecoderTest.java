package org.jtarget.rdma.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class FrameDecoderTest {

    /** Records what the decoder hands on as text. */
    private static final class RecordingSink implements FrameSink {
        final List<String> events = new ArrayList<>();
        ByteArrayOutputStream placed;
        int malformed;

        @Override
        public void frame(int opcode, int flags, int msn, ByteBuf header, ByteBuf payload) {
            byte[] p = new byte[payload.readableBytes()];
            payload.readBytes(p);
            payload.release();
            events.add("frame " + opcode + " msn " + msn + " header " + header.readableBytes() + " " + new String(p));
        }

        @Override
        public boolean beginTagged(int opcode, int flags, int msn, ByteBuf header, int payloadLength) {
            events.add("tagged " + opcode + " msn " + msn + " addr " + header.readLong() + " len " + payloadLength);
            placed = new ByteArrayOutputStream();
            return true;
        }

        @Override
        public void place(ByteBuf src, int n, long messageOffset) {
            assertThat(messageOffset).isEqualTo(placed.size());
            byte[] b = new byte[n];
            src.getBytes(src.readerIndex(), b);
            placed.writeBytes(b);
        }

        @Override
        public ByteBuf placementTarget(long messageOffset, int max) {
            return null;
        }

        @Override
        public void endTagged() {
            events.add("placed " + placed);
        }

        @Override
        public boolean blocked() {
            return false;
        }

        @Override
        public void malformed(String why) {
            malformed++;
            events.add("malformed");
        }
    }

    private static byte[] frame(int opcode, int msn, byte[] opHeader, byte[] payload) {
        ByteBuffer b = ByteBuffer.allocate(12 + opHeader.length + payload.length);
        b.putInt(8 + opHeader.length + payload.length).put((byte) opcode).put((byte) 0).putShort((short) 0).putInt(msn);
        return b.put(opHeader).put(payload).array();
    }

    private static byte[] stream() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(frame(TcpRdmaFrame.SEND, 0, new byte[8], "hello".getBytes()));
        out.writeBytes(frame(TcpRdmaFrame.RDMA_WRITE, 1, ByteBuffer.allocate(16).putLong(4096).array(),
                "tagged payload".getBytes()));
        out.writeBytes(frame(TcpRdmaFrame.ACK, 7, new byte[0], new byte[0]));
        out.writeBytes(frame(TcpRdmaFrame.RDMA_WRITE, 2, ByteBuffer.allocate(16).putLong(1).array(), new byte[0]));
        return out.toByteArray();
    }

    @Test
    void everyFragmentSizeGivesTheSameFrames() {
        byte[] bytes = stream();
        List<String> expected = null;
        for (int fragment = 1; fragment <= bytes.length; fragment++) {
            RecordingSink sink = new RecordingSink();
            EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoder(sink, 1 << 20));
            for (int i = 0; i < bytes.length; i += fragment) {
                ch.writeInbound(Unpooled.copiedBuffer(bytes, i, Math.min(fragment, bytes.length - i)));
            }
            assertThat(sink.malformed).isZero();
            if (expected == null) {
                expected = sink.events;
                assertThat(expected).containsExactly(
                        "frame 16 msn 0 header 8 hello",
                        "tagged 17 msn 1 addr 4096 len 14", "placed tagged payload",
                        "frame 20 msn 7 header 0 ",
                        "tagged 17 msn 2 addr 1 len 0", "placed ");
            } else {
                assertThat(sink.events).as("fragment %d", fragment).isEqualTo(expected);
            }
            assertThat(ch.finishAndReleaseAll()).isFalse();
        }
    }

    @Test
    void aMalformedFrameIsReportedOnceAndTheRestDropped() {
        RecordingSink sink = new RecordingSink();
        EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoder(sink, 1 << 20));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(frame(TcpRdmaFrame.SEND, 0, new byte[8], "ok".getBytes()));
        out.writeBytes(frame(0x99, 1, new byte[0], new byte[0]));
        out.writeBytes(frame(TcpRdmaFrame.SEND, 1, new byte[8], "never".getBytes()));
        ch.writeInbound(Unpooled.wrappedBuffer(out.toByteArray()));
        ch.writeInbound(Unpooled.wrappedBuffer(frame(TcpRdmaFrame.ACK, 0, new byte[0], new byte[0])));
        assertThat(sink.events).containsExactly("frame 16 msn 0 header 8 ok", "malformed");
        ch.finishAndReleaseAll();
    }

    @Test
    void aLengthAboveTheLargestMessageIsMalformed() {
        RecordingSink sink = new RecordingSink();
        EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoder(sink, 1000));
        ch.writeInbound(Unpooled.wrappedBuffer(ByteBuffer.allocate(4).putInt(2000).array()));
        assertThat(sink.malformed).isEqualTo(1);
        ch.finishAndReleaseAll();
    }
}
