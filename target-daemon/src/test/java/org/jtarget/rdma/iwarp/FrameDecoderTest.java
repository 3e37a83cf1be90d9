package org.jtarget.rdma.iwarp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.zip.CRC32C;

import static org.assertj.core.api.Assertions.assertThat;

class FrameDecoderTest {

    /** Records what the decoder hands on as text; starts FPDUs after the MPA frame. */
    private static final class RecordingSink implements FrameSink {
        final List<String> events = new ArrayList<>();
        FrameDecoder decoder;
        boolean crc;
        ByteArrayOutputStream placed;
        TerminateCode malformed;

        @Override
        public void mpaFrame(ByteBuf header, ByteBuf privateData) {
            byte[] key = new byte[16];
            header.getBytes(0, key);
            events.add("mpa " + new String(key) + " flags " + Integer.toHexString(header.getUnsignedByte(16))
                    + " rev " + header.getUnsignedByte(17) + " pd " + privateData.readableBytes());
            privateData.release();
            decoder.startFpdus(crc);
        }

        @Override
        public void untagged(ByteBuf header, ByteBuf payload) {
            byte[] p = new byte[payload.readableBytes()];
            payload.readBytes(p);
            payload.release();
            events.add("untagged op " + (header.getByte(1) & 15) + " qn " + header.getInt(6) + " msn "
                    + header.getInt(10) + " mo " + header.getInt(14) + " " + new String(p));
        }

        @Override
        public boolean beginTagged(ByteBuf header, int payloadLength) {
            events.add("tagged op " + (header.getByte(1) & 15) + " stag " + header.getInt(2) + " to "
                    + header.getLong(6) + " len " + payloadLength);
            placed = new ByteArrayOutputStream();
            return true;
        }

        @Override
        public void place(ByteBuf src, int n, long segmentOffset) {
            assertThat(segmentOffset).isEqualTo(placed.size());
            byte[] b = new byte[n];
            src.getBytes(src.readerIndex(), b);
            placed.writeBytes(b);
        }

        @Override
        public ByteBuf placementTarget(long segmentOffset, int max) {
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
        public void malformed(TerminateCode code, String why) {
            malformed = code;
            events.add("malformed " + code);
        }
    }

    /** An MPA request frame, byte by byte as RFC 5044 7.1 draws it. */
    static byte[] mpaRequest(int flags, byte[] privateData) {
        return ByteBuffer.allocate(20 + privateData.length).put("MPA ID Req Frame".getBytes())
                .put((byte) flags).put((byte) 2).putShort((short) privateData.length).put(privateData).array();
    }

    /** An FPDU: length, ULPDU, pad to 4, CRC32C over all before it (or zero), the value little-endian as siw sends it. */
    static byte[] fpdu(byte[] ulpdu, boolean crc) {
        int pad = -(2 + ulpdu.length) & 3;
        ByteBuffer b = ByteBuffer.allocate(2 + ulpdu.length + pad + 4);
        b.putShort((short) ulpdu.length).put(ulpdu).put(new byte[pad]);
        CRC32C c = new CRC32C();
        c.update(b.array(), 0, b.position());
        return b.putInt(Integer.reverseBytes(crc ? (int) c.getValue() : 0)).array();
    }

    /** An untagged DDP segment (RFC 5041 4.3) with an RDMAP opcode. */
    static byte[] untagged(int opcode, boolean last, int queue, int msn, int mo, byte[] payload) {
        return ByteBuffer.allocate(18 + payload.length).put((byte) (last ? 0x41 : 0x01)).put((byte) (0x40 | opcode))
                .putInt(0).putInt(queue).putInt(msn).putInt(mo).put(payload).array();
    }

    /** A tagged DDP segment (RFC 5041 4.2). */
    static byte[] tagged(int opcode, boolean last, int stag, long to, byte[] payload) {
        return ByteBuffer.allocate(14 + payload.length).put((byte) (last ? 0xc1 : 0x81)).put((byte) (0x40 | opcode))
                .putInt(stag).putLong(to).put(payload).array();
    }

    private static byte[] stream(boolean crc) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(mpaRequest(crc ? 0x50 : 0x10, new byte[] {0, 16, 0, 16, 7}));
        out.writeBytes(fpdu(untagged(3, true, 0, 1, 0, "hello".getBytes()), crc));
        out.writeBytes(fpdu(tagged(0, false, 0x1234, 4096, "tagged payload".getBytes()), crc));
        out.writeBytes(fpdu(tagged(0, true, 0x1234, 4110, "!".getBytes()), crc));
        out.writeBytes(fpdu(untagged(1, true, 1, 1, 0, new byte[28]), crc));
        out.writeBytes(fpdu(tagged(0, true, 1, 1, new byte[0]), crc));
        return out.toByteArray();
    }

    @Test
    void everyFragmentSizeGivesTheSameSegmentsWithAndWithoutCrc() {
        for (boolean crc : new boolean[] {false, true}) {
            byte[] bytes = stream(crc);
            for (int fragment = 1; fragment <= bytes.length; fragment++) {
                RecordingSink sink = new RecordingSink();
                sink.crc = crc;
                sink.decoder = new FrameDecoder(sink);
                EmbeddedChannel ch = new EmbeddedChannel(sink.decoder);
                for (int i = 0; i < bytes.length; i += fragment) {
                    ch.writeInbound(Unpooled.copiedBuffer(bytes, i, Math.min(fragment, bytes.length - i)));
                }
                assertThat(sink.events).as("crc %s fragment %d", crc, fragment).containsExactly(
                        "mpa MPA ID Req Frame flags " + (crc ? "50" : "10") + " rev 2 pd 5",
                        "untagged op 3 qn 0 msn 1 mo 0 hello",
                        "tagged op 0 stag 4660 to 4096 len 14", "placed tagged payload",
                        "tagged op 0 stag 4660 to 4110 len 1", "placed !",
                        "untagged op 1 qn 1 msn 1 mo 0 " + new String(new byte[28]),
                        "tagged op 0 stag 1 to 1 len 0", "placed ");
                assertThat(ch.finishAndReleaseAll()).isFalse();
            }
        }
    }

    @Test
    void aCrcMismatchIsAnMpaErrorAndTheRestIsDropped() {
        byte[] bytes = stream(true);
        bytes[20 + 2 + 18] ^= 1; // the first byte of "hello"
        RecordingSink sink = new RecordingSink();
        sink.crc = true;
        sink.decoder = new FrameDecoder(sink);
        EmbeddedChannel ch = new EmbeddedChannel(sink.decoder);
        ch.writeInbound(Unpooled.wrappedBuffer(bytes));
        assertThat(sink.events).hasSize(2).last().isEqualTo("malformed MPA_CRC");
        ch.finishAndReleaseAll();
    }

    @Test
    void withoutCrcTheCrcFieldIsNotChecked() {
        byte[] bytes = stream(false);
        bytes[20 + 2 + 23 + 3] = 0x55; // the CRC field of the first FPDU (after 3 pad bytes)
        RecordingSink sink = new RecordingSink();
        sink.decoder = new FrameDecoder(sink);
        EmbeddedChannel ch = new EmbeddedChannel(sink.decoder);
        ch.writeInbound(Unpooled.wrappedBuffer(bytes));
        assertThat(sink.malformed).isNull();
        assertThat(sink.events).hasSize(9);
        ch.finishAndReleaseAll();
    }

    @Test
    void aWrongDdpVersionOrAShortUlpduIsMalformed() {
        for (byte[] bad : List.of(new byte[] {0, 6, 0x42, 0x43, 0, 0, 0, 0, 0, 0}, new byte[] {0, 4, 0x41, 0x43, 0, 0, 0, 0})) {
            RecordingSink sink = new RecordingSink();
            sink.decoder = new FrameDecoder(sink);
            EmbeddedChannel ch = new EmbeddedChannel(sink.decoder);
            ch.writeInbound(Unpooled.wrappedBuffer(mpaRequest(0x10, new byte[4])));
            ch.writeInbound(Unpooled.wrappedBuffer(bad));
            assertThat(sink.malformed).isIn(TerminateCode.DDP_INVALID_QN, TerminateCode.MPA_FPDU);
            ch.finishAndReleaseAll();
        }
    }

    @Test
    void theHelpersMatchTheRfcDiagrams() {
        HexFormat hex = HexFormat.of();
        assertThat(hex.formatHex(mpaRequest(0x10, new byte[] {0x00, 0x10, 0x00, 0x08})))
                .isEqualTo("4d504120494420526571204672616d65" + "10" + "02" + "0004" + "00100008");
        // SEND, last, queue 0, MSN 1, MO 0, payload "ab": length 20, then pad 2 to reach 24
        assertThat(hex.formatHex(fpdu(untagged(3, true, 0, 1, 0, "ab".getBytes()), false)))
                .isEqualTo("0014" + "41" + "43" + "00000000" + "00000000" + "00000001" + "00000000" + "6162"
                        + "0000" + "00000000");
    }

    /** A sink whose tagged payloads land in {@code region} at the segment's TO. */
    private static final class RegionSink extends RecordingSinkBase {
        final byte[] region = new byte[2 << 20];
        long base;
        long copiedBytes;

        @Override
        public boolean beginTagged(ByteBuf header, int payloadLength) {
            base = header.getLong(6);
            events.add("tagged len " + payloadLength);
            return true;
        }

        @Override
        public void place(ByteBuf src, int n, long segmentOffset) {
            src.getBytes(src.readerIndex(), region, (int) (base + segmentOffset), n);
            copiedBytes += n;
        }

        @Override
        public ByteBuf placementTarget(long segmentOffset, int max) {
            return Unpooled.wrappedBuffer(region, (int) (base + segmentOffset), max).clear();
        }

        @Override
        public void endTagged() {
            events.add("placed");
        }
    }

    /** What both sinks share: text events, untagged segments, no blocking. */
    private abstract static class RecordingSinkBase implements FrameSink {
        final List<String> events = new ArrayList<>();
        FrameDecoder decoder;

        @Override
        public void mpaFrame(ByteBuf header, ByteBuf privateData) {
            privateData.release();
            decoder.startFpdus(false);
        }

        @Override
        public void untagged(ByteBuf header, ByteBuf payload) {
            events.add("untagged " + payload.readableBytes());
            payload.release();
        }

        @Override
        public boolean blocked() {
            return false;
        }

        @Override
        public void malformed(TerminateCode code, String why) {
            events.add("malformed " + why);
        }
    }

    /**
     * Feeds {@code bytes} the way {@link PlacementRecvAllocator} and a socket would: each read goes
     * into the decoder's placement buffer when it offers one, else into a 1 MiB pool buffer; no
     * read returns more than {@code perRead} bytes. Returns the sizes the reads asked for.
     */
    private static List<Integer> feed(FrameDecoder decoder, EmbeddedChannel ch, byte[] bytes, int perRead) {
        List<Integer> asked = new ArrayList<>();
        int at = 0;
        while (at < bytes.length) {
            ByteBuf buf = decoder.placementBuffer(io.netty.buffer.UnpooledByteBufAllocator.DEFAULT);
            if (buf == null) {
                buf = Unpooled.buffer(1 << 20);
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

    private static byte[] writeSegment(int seed, long to, int length) {
        byte[] payload = new byte[length];
        for (int i = 0; i < length; i++) {
            payload[i] = (byte) (i * 31 + seed);
        }
        return fpdu(tagged(0, true, 1, to, payload), false);
    }

    @Test
    void largeSegmentsAreReadStraightIntoTheirRegionWithOnlyTheBytesBetweenThemCopied() {
        int size = FrameOutput.MAX_SEGMENT_PAYLOAD;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(mpaRequest(0x10, new byte[4]));
        out.writeBytes(writeSegment(0, 0, size));
        out.writeBytes(writeSegment(1, size, size));
        byte[] bytes = out.toByteArray();
        RegionSink sink = new RegionSink();
        FrameDecoder decoder = new FrameDecoder(sink);
        sink.decoder = decoder;
        EmbeddedChannel ch = new EmbeddedChannel(decoder);

        // reads of at most 20,000 bytes: the first goes to a pool buffer (MPA request, FPDU header,
        // the start of the payload); the rest of that payload is read into the region; then only
        // the trailer and the next header (4 + 16 bytes), then the whole second payload, directly
        List<Integer> asked = feed(decoder, ch, bytes, 20_000);

        assertThat(sink.events).containsExactly("tagged len " + size, "placed", "tagged len " + size, "placed");
        int firstCopied = 20_000 - 24 - 16;
        assertThat(asked).startsWith(1 << 20, size - firstCopied);
        assertThat(asked).containsSubsequence(4 + 16, size);
        assertThat(sink.copiedBytes).isEqualTo(firstCopied);
        for (int seed = 0; seed < 2; seed++) {
            byte[] expected = java.util.Arrays.copyOfRange(writeSegment(seed, 0, size), 16, 16 + size);
            assertThat(java.util.Arrays.copyOfRange(sink.region, seed * size, (seed + 1) * size)).isEqualTo(expected);
        }
        assertThat(ch.finishAndReleaseAll()).isFalse();
    }

    /**
     * Small FPDUs are read many at a time into pool buffers; a large payload starts streaming (the
     * rest of its message, a small segment too, is read directly, the bytes between the payloads in
     * small reads), and a whole small message after the end of that one ends it.
     */
    @Test
    void streamingStartsWithALargePayloadAndEndsWithASmallMessage() {
        int large = FrameDecoder.DIRECT_MIN;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(mpaRequest(0x10, new byte[4]));
        out.writeBytes(fpdu(tagged(0, true, 1, 0, new byte[100]), false));
        out.writeBytes(fpdu(tagged(0, false, 1, 100, new byte[large]), false));
        out.writeBytes(fpdu(tagged(0, true, 1, 100 + large, new byte[200]), false));
        out.writeBytes(fpdu(tagged(0, true, 1, 300 + large, new byte[300]), false));
        out.writeBytes(fpdu(tagged(0, true, 1, 600 + large, new byte[400]), false));
        out.writeBytes(fpdu(tagged(0, true, 1, 1000 + large, new byte[500]), false));
        byte[] bytes = out.toByteArray();
        RegionSink sink = new RegionSink();
        FrameDecoder decoder = new FrameDecoder(sink);
        sink.decoder = decoder;
        EmbeddedChannel ch = new EmbeddedChannel(decoder);

        // per read at most: the MPA request (24 bytes), then the first FPDU (16 + 100 + 4)
        // and the header of the large one, so that its payload starts on a read of its own
        List<Integer> asked = new ArrayList<>();
        asked.addAll(feed(decoder, ch, java.util.Arrays.copyOfRange(bytes, 0, 24), 24));
        asked.addAll(feed(decoder, ch, java.util.Arrays.copyOfRange(bytes, 24, 24 + 120 + 16), 1 << 20));
        asked.addAll(feed(decoder, ch, java.util.Arrays.copyOfRange(bytes, 24 + 120 + 16, bytes.length), 1 << 20));

        assertThat(sink.events).containsExactly("tagged len 100", "placed", "tagged len " + large, "placed",
                "tagged len 200", "placed", "tagged len 300", "placed", "tagged len 400", "placed",
                "tagged len 500", "placed");
        // the large payload directly; its trailer and the next header (4 + 16 bytes); the 200 bytes
        // that end its message directly; 4 + 16 again (the next message may be large too); that
        // header is of a whole small message, which ends streaming: one pool read takes the rest
        assertThat(asked).containsExactly(1 << 20, 1 << 20, large, 20, 200, 20, 1 << 20);
        assertThat(sink.copiedBytes).isEqualTo(100 + 300 + 400 + 500);
        assertThat(ch.finishAndReleaseAll()).isFalse();
    }
}
