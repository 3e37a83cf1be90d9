package org.jtarget.rdma.iwarp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import org.jtarget.buffer.ByteBufCopy;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.zip.CRC32C;

/**
 * Parses a connection's input without cumulating it: first the MPA request or reply
 * ({@link Mpa}), then MPA FPDUs, each one DDP segment ({@link Iwarp}). Headers go into a small
 * buffer of its own, tagged payloads are handed on chunk by chunk as they arrive, untagged segments
 * are gathered whole. With CRC on, every byte is fed to a CRC32C checked at the segment's end. Never
 * throws on bad input: it tells the sink once and then drops everything.
 *
 * <p>Large transfers are read without a copy: while a tagged payload of at least {@link #DIRECT_MIN}
 * bytes is being received, the socket reads straight into its destination, and between such
 * segments only the trailer and the next header are read (into a small pool buffer), so that the
 * next payload again lands where it belongs. Streams of small FPDUs are read in large pool buffers
 * instead, many FPDUs per system call, and their payloads copied.
 *
 * <p>Back-pressure: while the sink is {@link FrameSink#blocked()}, input is queued, and reading stops
 * ({@code setAutoRead(false)}) once 1 MiB is queued; {@link #resume} continues.
 */
final class FrameDecoder extends ChannelInboundHandlerAdapter {

    private enum State { MPA_HEADER, MPA_PRIVATE, AWAIT_FPDUS, LENGTH, CONTROL, HEADER, PAYLOAD, TRAILER, FAILED }

    /**
     * A tagged payload this large starts streaming mode: its reads, and those of the tagged
     * payloads after it, go straight into the destination; only the bytes between payloads are read
     * into pool buffers. A whole small message right after the end of another message ends it.
     */
    static final int DIRECT_MIN = 32 * 1024;
    /** An FPDU's length field and tagged DDP/RDMAP header: what a read between payloads asks for. */
    private static final int TAGGED_FPDU_HEADER = Mpa.LENGTH_FIELD + Iwarp.TAGGED_HEADER;
    /** Input queued while the sink is blocked before reading stops. */
    private static final long MAX_QUEUED_WHILE_BLOCKED = 1 << 20;

    private final FrameSink sink;
    private final ArrayDeque<ByteBuf> input = new ArrayDeque<>();
    private final CRC32C crc = new CRC32C();
    private ByteBuf header;
    private ByteBuf trailer;
    private State state = State.MPA_HEADER;
    private boolean crcOn;
    private int ulpduLength;
    private int headerLength;
    private int payloadLength;
    private int payloadDone;
    private int trailerLength;
    private boolean tagged;
    private boolean placing;
    /** The DDP Last flag of the segment being received, and of the one before it. */
    private boolean lastSegment;
    private boolean previousLast = true;
    /** Large tagged payloads are arriving: read payloads directly, headers in small reads. */
    private boolean streaming;
    private ByteBuf gathered;
    private ChannelHandlerContext ctx;
    /** The buffer handed to the socket read that wraps the destination itself (no copy needed). */
    private ByteBuf direct;

    FrameDecoder(FrameSink sink) {
        this.sink = sink;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        header = ctx.alloc().directBuffer(64);
        trailer = ctx.alloc().directBuffer(8);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        releaseAll();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        releaseAll();
        ctx.fireChannelInactive();
    }

    private void releaseAll() {
        dropInput();
        if (gathered != null) {
            gathered.release();
            gathered = null;
        }
        if (header != null) {
            header.release();
            header = null;
            trailer.release();
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf in = (ByteBuf) msg;
        if (state == State.FAILED) {
            in.release();
            return;
        }
        input.add(in);
        process();
    }

    /** The MPA exchange is done: FPDUs follow, with or without CRC (event loop). */
    void startFpdus(boolean withCrc) {
        crcOn = withCrc;
        if (state == State.AWAIT_FPDUS || state == State.MPA_HEADER) {
            state = State.LENGTH;
            header.clear();
        }
        if (ctx != null && !input.isEmpty()) {
            process();
        }
    }

    /** Continues after the sink stopped blocking. */
    void resume() {
        process();
        if (!sink.blocked() && state != State.FAILED) {
            ctx.channel().config().setAutoRead(true);
        }
    }

    private void process() {
        while (state != State.FAILED && state != State.AWAIT_FPDUS) {
            if (sink.blocked()) {
                // keep reading while little is queued: a peer that goes away is then noticed (NIO
                // sees the end of the stream only by reading); stop reading beyond that
                if (queuedBytes() > MAX_QUEUED_WHILE_BLOCKED) {
                    ctx.channel().config().setAutoRead(false);
                }
                return;
            }
            ByteBuf in = input.peek();
            if (in == null) {
                return;
            }
            step(in);
            if (state == State.FAILED) {
                return;
            }
            if (!in.isReadable() && input.peek() == in) {
                input.poll().release();
            }
        }
    }

    private long queuedBytes() {
        long n = 0;
        for (ByteBuf b : input) {
            n += b.readableBytes();
        }
        return n;
    }

    private void step(ByteBuf in) {
        switch (state) {
            case MPA_HEADER -> mpaHeader(in);
            case MPA_PRIVATE -> mpaPrivateData(in);
            case LENGTH -> length(in);
            case CONTROL -> control(in);
            case HEADER -> segmentHeader(in);
            case PAYLOAD -> readPayload(in);
            case TRAILER -> trailer(in);
            default -> in.skipBytes(in.readableBytes());
        }
    }

    private boolean fillHeader(ByteBuf in, int wanted) {
        int n = Math.min(wanted - header.readableBytes(), in.readableBytes());
        if (crcOn && n > 0) {
            crc(in, in.readerIndex(), n);
        }
        ByteBufCopy.transfer(in, header, n);
        return header.readableBytes() == wanted;
    }

    // ---- MPA request / reply ---------------------------------------------------------------------

    private void mpaHeader(ByteBuf in) {
        if (!fillHeader(in, Mpa.FRAME_HEADER)) {
            return;
        }
        int length = header.getUnsignedShort(Mpa.FRAME_HEADER - 2);
        if (length > Mpa.MAX_PRIVATE_DATA) {
            fail(TerminateCode.MPA_FPDU, "MPA private data length " + length);
            return;
        }
        payloadLength = length;
        gathered = length == 0 ? Unpooled.EMPTY_BUFFER : ctx.alloc().heapBuffer(length);
        state = State.MPA_PRIVATE;
        if (length == 0) {
            endMpaFrame();
        }
    }

    private void mpaPrivateData(ByteBuf in) {
        gathered.writeBytes(in, Math.min(payloadLength - gathered.readableBytes(), in.readableBytes()));
        if (gathered.readableBytes() == payloadLength) {
            endMpaFrame();
        }
    }

    private void endMpaFrame() {
        ByteBuf data = gathered;
        gathered = null;
        state = State.AWAIT_FPDUS;
        sink.mpaFrame(header, data); // may call startFpdus
        if (state == State.AWAIT_FPDUS) {
            header.clear();
        }
    }

    // ---- FPDUs -----------------------------------------------------------------------------------

    private void length(ByteBuf in) {
        if (header.readableBytes() == 0) {
            crc.reset();
        }
        if (!fillHeader(in, Mpa.LENGTH_FIELD)) {
            return;
        }
        ulpduLength = header.readUnsignedShort();
        header.clear();
        state = State.CONTROL;
    }

    private void control(ByteBuf in) {
        if (!fillHeader(in, 2)) {
            return;
        }
        int ddp = header.getUnsignedByte(0);
        int rdmap = header.getUnsignedByte(1);
        if ((ddp & Iwarp.DDP_VERSION_MASK) != Iwarp.DDP_VERSION) {
            fail((ddp & Iwarp.DDP_TAGGED) != 0 ? TerminateCode.DDP_TAGGED_VERSION : TerminateCode.DDP_INVALID_QN,
                    "DDP version");
            return;
        }
        if ((rdmap & Iwarp.RDMAP_VERSION_MASK) != Iwarp.RDMAP_VERSION) {
            fail(TerminateCode.RDMAP_VERSION, "RDMAP version");
            return;
        }
        tagged = (ddp & Iwarp.DDP_TAGGED) != 0;
        lastSegment = (ddp & Iwarp.DDP_LAST) != 0;
        headerLength = tagged ? Iwarp.TAGGED_HEADER : Iwarp.UNTAGGED_HEADER;
        if (ulpduLength < headerLength) {
            fail(TerminateCode.MPA_FPDU, "ULPDU length " + ulpduLength);
            return;
        }
        state = State.HEADER;
    }

    private void segmentHeader(ByteBuf in) {
        if (!fillHeader(in, headerLength)) {
            return;
        }
        payloadLength = ulpduLength - headerLength;
        payloadDone = 0;
        noteSegmentSize();
        if (tagged) {
            placing = sink.beginTagged(header, payloadLength);
            if (state == State.FAILED) {
                return;
            }
        } else {
            gathered = payloadLength == 0 ? Unpooled.EMPTY_BUFFER : ctx.alloc().directBuffer(payloadLength);
        }
        state = State.PAYLOAD;
        if (payloadLength == 0) {
            startTrailer();
        }
    }

    /**
     * The buffer for the next socket read ({@link PlacementRecvAllocator}): a view of the
     * destination of the tagged payload being received, a small pool buffer for the bytes up to the
     * next tagged payload while streaming, or null for an adaptive pool buffer.
     */
    ByteBuf placementBuffer(ByteBufAllocator alloc) {
        if (!input.isEmpty()) {
            return null;
        }
        if (state == State.PAYLOAD) {
            int remaining = payloadLength - payloadDone;
            if (!tagged || !placing || remaining == 0 || remaining < DIRECT_MIN && !streaming) {
                return null;
            }
            direct = sink.placementTarget(payloadDone, remaining);
            return direct;
        }
        int upToPayload = bytesUpToNextPayload();
        return streaming && upToPayload > 0 ? alloc.directBuffer(upToPayload, upToPayload) : null;
    }

    /**
     * The bytes left of this FPDU's trailer and of the next FPDU's header, taking that header as
     * tagged until its control field says otherwise; 0 outside the FPDU stream.
     */
    private int bytesUpToNextPayload() {
        return switch (state) {
            case TRAILER -> trailerLength - trailer.readableBytes() + TAGGED_FPDU_HEADER;
            case LENGTH -> TAGGED_FPDU_HEADER - header.readableBytes();
            case CONTROL -> Iwarp.TAGGED_HEADER - header.readableBytes();
            case HEADER -> headerLength - header.readableBytes();
            default -> 0;
        };
    }

    private void readPayload(ByteBuf in) {
        int n = Math.min(payloadLength - payloadDone, in.readableBytes());
        if (crcOn && n > 0) {
            crc(in, in.readerIndex(), n);
        }
        if (tagged) {
            if (placing && n > 0 && in != direct) {
                sink.place(in, n, payloadDone);
            }
            in.skipBytes(n);
        } else {
            ByteBufCopy.transfer(in, gathered, n);
        }
        payloadDone += n;
        if (payloadDone == payloadLength) {
            startTrailer();
        }
    }

    private void startTrailer() {
        direct = null;
        trailerLength = Mpa.padding(ulpduLength) + Mpa.CRC_LENGTH;
        trailer.clear();
        state = State.TRAILER;
    }

    /** Pad and CRC: the pad counts into the CRC; the segment header stays in {@link #header}. */
    private void trailer(ByteBuf in) {
        int padding = trailerLength - Mpa.CRC_LENGTH;
        int n = Math.min(trailerLength - trailer.readableBytes(), in.readableBytes());
        int padLeft = Math.max(0, padding - trailer.readableBytes());
        if (crcOn && padLeft > 0) {
            crc(in, in.readerIndex(), Math.min(n, padLeft));
        }
        ByteBufCopy.transfer(in, trailer, n);
        if (trailer.readableBytes() < trailerLength) {
            return;
        }
        if (crcOn && (int) crc.getValue() != trailer.getIntLE(padding)) {
            fail(TerminateCode.MPA_CRC, "CRC mismatch");
            return;
        }
        state = State.LENGTH;
        if (tagged) {
            if (placing) {
                sink.endTagged();
            }
        } else {
            ByteBuf payload = gathered;
            gathered = null;
            sink.untagged(header, payload);
        }
        if (header != null) {
            header.clear();
        }
    }

    /**
     * Enters streaming mode at the header of a large tagged payload; leaves it at an untagged one or
     * at a whole small message (Last flag set, as on the segment before it).
     */
    private void noteSegmentSize() {
        if (tagged && payloadLength >= DIRECT_MIN) {
            streaming = true;
        } else if (!tagged || lastSegment && previousLast) {
            streaming = false;
        }
        previousLast = lastSegment;
    }

    private void crc(ByteBuf b, int index, int n) {
        ByteBuffer view = b.nioBufferCount() == 1 ? b.internalNioBuffer(index, n) : b.nioBuffer(index, n);
        crc.update(view);
    }

    /** The sink found the stream bad: drop all input from now on. */
    void abort() {
        state = State.FAILED;
        dropInput();
    }

    private void dropInput() {
        state = State.FAILED;
        ByteBuf b;
        while ((b = input.poll()) != null) {
            b.release();
        }
    }

    private void fail(TerminateCode code, String why) {
        dropInput();
        sink.malformed(code, why);
    }
}
