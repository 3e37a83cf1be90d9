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

    /** A sink whose tagged payloads land in {@code region} at the frame's address. */
    private static final class RegionSink extends RecordingSinkBase {
        final byte[] region = new byte[2 << 20];
        long base;
        long copiedBytes;

        @Override
        public boolean beginTagged(int opcode, int flags, int msn, ByteBuf header, int payloadLength) {
            base = header.readLong();
            events.add("tagged msn " + msn + " len " + payloadLength);
            return true;
        }

        @Override
        public void place(ByteBuf src, int n, long messageOffset) {
            src.getBytes(src.readerIndex(), region, (int) (base + messageOffset), n);
            copiedBytes += n;
        }

        @Override
        public ByteBuf placementTarget(long messageOffset, int max) {
            return Unpooled.wrappedBuffer(region, (int) (base + messageOffset), max).clear();
        }

        @Override
        public void endTagged() {
            events.add("placed");
        }
    }

    /** What both sinks share: text events, SENDs and control frames, no blocking. */
    private abstract static class RecordingSinkBase implements FrameSink {
        final List<String> events = new ArrayList<>();

        @Override
        public void frame(int opcode, int flags, int msn, ByteBuf header, ByteBuf payload) {
            events.add("frame " + opcode + " msn " + msn + " " + payload.readableBytes());
            payload.release();
        }

        @Override
        public boolean blocked() {
            return false;
        }

        @Override
        public void malformed(String why) {
            events.add("malformed " + why);
        }
    }

    /**
     * Feeds {@code bytes} the way {@link PlacementRecvAllocator} and a socket would: each read goes
     * into the decoder's placement buffer when it offers one, else into a pool buffer limited to
     * the decoder's header read size; no read returns more than {@code perRead} bytes.
     * Returns the sizes the reads asked for.
     */
    private static List<Integer> feed(FrameDecoder decoder, EmbeddedChannel ch, byte[] bytes, int perRead) {
        List<Integer> asked = new ArrayList<>();
        int at = 0;
        while (at < bytes.length) {
            ByteBuf buf = decoder.placementBuffer();
            if (buf == null) {
                int header = decoder.headerReadSize();
                buf = Unpooled.buffer(header > 0 ? header : 1 << 20);
            }
            int wanted = buf.writableBytes();
            asked.add(wanted);
            int n = Math.min(Math.min(wanted, perRead), bytes.length - at);
            buf.writeBytes(bytes, at, n);
            at += n;
            ch.writeInbound(buf);
        }
        return asked;
    }

    private static byte[] write(int msn, long address, int length) {
        byte[] payload = new byte[length];
        for (int i = 0; i < length; i++) {
            payload[i] = (byte) (i * 31 + msn);
        }
        return frame(TcpRdmaFrame.RDMA_WRITE, msn, ByteBuffer.allocate(16).putLong(address).array(), payload);
    }

    @Test
    void aLargePayloadIsReadWhollyIntoItsRegionAndTheNextFrameStartsWithAHeaderSizedRead() {
        int large = FrameDecoder.LARGE_PAYLOAD;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(write(0, 0, large));
        out.writeBytes(write(1, large, large));
        out.writeBytes(frame(TcpRdmaFrame.SEND, 2, new byte[8], "after".getBytes()));
        out.writeBytes(write(3, 2L * large, 4096));
        byte[] bytes = out.toByteArray();
        RegionSink sink = new RegionSink();
        FrameDecoder decoder = new FrameDecoder(sink, 16 << 20);
        EmbeddedChannel ch = new EmbeddedChannel(decoder);

        // partial reads of 100,000 bytes leave short tails of the large payloads; they go direct too
        List<Integer> asked = feed(decoder, ch, bytes, 100_000);

        assertThat(sink.events).containsExactly("tagged msn 0 len " + large, "placed", "tagged msn 1 len " + large,
                "placed", "frame 16 msn 2 5", "tagged msn 3 len 4096", "placed");
        // copied: what the stream's first read brought of the first payload, and the small WRITE;
        // the second large payload follows a header-sized read and is not copied at all
        assertThat(sink.copiedBytes).isEqualTo(100_000 - FrameDecoder.LARGEST_DATA_HEADER + 4096);
        assertThat(asked).containsExactly(1 << 20, 162_172, 62_172,
                FrameDecoder.LARGEST_DATA_HEADER, 262_144, 162_144, 62_144, FrameDecoder.LARGEST_DATA_HEADER, 1 << 20);
        for (int msn = 0; msn < 2; msn++) {
            byte[] expected = java.util.Arrays.copyOfRange(write(msn, 0, large), FrameDecoder.LARGEST_DATA_HEADER,
                    FrameDecoder.LARGEST_DATA_HEADER + large);
            assertThat(java.util.Arrays.copyOfRange(sink.region, msn * large, (msn + 1) * large)).isEqualTo(expected);
        }
        assertThat(ch.finishAndReleaseAll()).isFalse();
    }

    @Test
    void smallerPayloadsArriveInBurstsWithoutHeaderSizedReads() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int msn = 0; msn < 8; msn++) {
            out.writeBytes(write(msn, (long) msn * 65536, 65536));
        }
        RegionSink sink = new RegionSink();
        FrameDecoder decoder = new FrameDecoder(sink, 16 << 20);
        EmbeddedChannel ch = new EmbeddedChannel(decoder);

        List<Integer> asked = feed(decoder, ch, out.toByteArray(), 1 << 20);

        assertThat(asked).containsExactly(1 << 20); // one read brings all eight frames
        assertThat(sink.copiedBytes).isEqualTo(8 * 65536);
        assertThat(decoder.headerReadSize()).isZero();
        assertThat(ch.finishAndReleaseAll()).isFalse();
    }
}
