package org.jtarget.rdma.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

import java.util.ArrayDeque;

/**
 * Parses the {@link TcpRdmaFrame} stream without cumulating it: the header goes into a small buffer
 * of its own, tagged payloads are handed on chunk by chunk as they arrive, only control frames and
 * SENDs are gathered whole. Never throws on bad input: it tells the sink once and then drops
 * everything (the connection is closed by the sink).
 *
 * <p>Back-pressure: while the sink is {@link FrameSink#blocked()}, input is queued, and reading stops
 * ({@code setAutoRead(false)}) once 1 MiB is queued; {@link #resume} continues.
 */
final class FrameDecoder extends ChannelInboundHandlerAdapter {

    private enum State { LENGTH, HEADER, PAYLOAD, FAILED }

    /** Payload left below which reads still go to pool buffers (they also bring the next headers). */
    private static final int DIRECT_MIN = 32 * 1024;
    /**
     * Payloads from this size on are read wholly into their region: the read that starts their frame
     * asks only for its header ({@link #headerReadSize}), and a short tail after a partial read is
     * read directly too. One more system call per frame is nothing next to copying most of a large
     * payload out of a pool buffer. Smaller payloads arrive with the reads of whole bursts of frames
     * (measured with rdma-bench: header-sized reads in front of 64 KiB frames cost a third of the
     * throughput, and gain nothing at 1 MiB over pool reads, but keep large payloads zero-copy).
     */
    static final int LARGE_PAYLOAD = 256 * 1024;
    /** The longest header of a data frame (length field, common header, RDMA WRITE's opcode header). */
    static final int LARGEST_DATA_HEADER = TcpRdmaFrame.LENGTH_FIELD + TcpRdmaFrame.COMMON_HEADER + 16;
    /** Input queued while the sink is blocked before reading stops. */
    private static final long MAX_QUEUED_WHILE_BLOCKED = 1 << 20;

    private final FrameSink sink;
    private final int maxFrame;
    private final ArrayDeque<ByteBuf> input = new ArrayDeque<>();
    private ByteBuf header;
    private State state = State.LENGTH;
    private int frameLength;
    private int headerLength;
    private int opcode;
    private int flags;
    private int msn;
    private int payloadLength;
    private int payloadDone;
    private boolean tagged;
    private boolean placing;
    private ByteBuf gathered;
    private ChannelHandlerContext ctx;
    /** The buffer handed to the socket read that wraps the destination itself (no copy needed). */
    private ByteBuf direct;
    /** The last frame was a tagged payload of at least {@link #LARGE_PAYLOAD} bytes. */
    private boolean lastFrameLarge;

    /** @param maxPayload the largest payload accepted (the device's max message size) */
    FrameDecoder(FrameSink sink, int maxPayload) {
        this.sink = sink;
        this.maxFrame = maxPayload + 64;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        header = ctx.alloc().directBuffer(64);
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
        ByteBuf b;
        while ((b = input.poll()) != null) {
            b.release();
        }
        if (gathered != null) {
            gathered.release();
            gathered = null;
        }
        if (header != null) {
            header.release();
            header = null;
        }
        state = State.FAILED;
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

    /** Continues after the sink stopped blocking. */
    void resume() {
        process();
        if (!sink.blocked() && state != State.FAILED) {
            ctx.channel().config().setAutoRead(true);
        }
    }

    private void process() {
        while (state != State.FAILED) {
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
            case LENGTH -> {
                if (fillHeader(in, TcpRdmaFrame.LENGTH_FIELD)) {
                    frameLength = header.readInt();
                    header.clear();
                    if (frameLength < TcpRdmaFrame.COMMON_HEADER || frameLength > maxFrame) {
                        fail("frame length " + frameLength);
                        return;
                    }
                    headerLength = TcpRdmaFrame.COMMON_HEADER;
                    state = State.HEADER;
                }
            }
            case HEADER -> readHeader(in);
            case PAYLOAD -> readPayload(in);
            case FAILED -> in.skipBytes(in.readableBytes());
        }
    }

    private boolean fillHeader(ByteBuf in, int wanted) {
        int n = Math.min(wanted - header.readableBytes(), in.readableBytes());
        header.writeBytes(in, n);
        return header.readableBytes() == wanted;
    }

    private void readHeader(ByteBuf in) {
        if (!fillHeader(in, headerLength)) {
            return;
        }
        if (headerLength == TcpRdmaFrame.COMMON_HEADER) {
            opcode = header.getUnsignedByte(TcpRdmaFrame.OPCODE_OFFSET);
            int extra = TcpRdmaFrame.opcodeHeaderLength(opcode);
            if (extra < 0) {
                fail("unknown opcode " + opcode);
                return;
            }
            if (extra > 0) {
                headerLength += extra;
                if (frameLength < headerLength) {
                    fail("frame shorter than its header");
                    return;
                }
                return; // read the opcode header next
            }
        }
        startPayload();
    }

    private void startPayload() {
        flags = header.getUnsignedByte(TcpRdmaFrame.FLAGS_OFFSET);
        msn = header.getInt(TcpRdmaFrame.MSN_OFFSET);
        header.readerIndex(TcpRdmaFrame.COMMON_HEADER);
        payloadLength = frameLength - headerLength;
        payloadDone = 0;
        if (payloadLength > 0 && !TcpRdmaFrame.hasPayload(opcode)) {
            fail("opcode " + opcode + " with a payload");
            return;
        }
        tagged = opcode == TcpRdmaFrame.RDMA_WRITE || opcode == TcpRdmaFrame.READ_RESPONSE;
        if (tagged) {
            placing = sink.beginTagged(opcode, flags, msn, header, payloadLength);
            if (state == State.FAILED) {
                return;
            }
        } else {
            gathered = payloadLength == 0 ? Unpooled.EMPTY_BUFFER : ctx.alloc().directBuffer(payloadLength);
        }
        state = State.PAYLOAD;
        if (payloadLength == 0) {
            endFrame();
        }
    }

    /**
     * A buffer over the destination of the tagged payload being received, for the next socket read
     * ({@link PlacementRecvAllocator}), or null when reads should go to a pool buffer.
     */
    ByteBuf placementBuffer() {
        int remaining = payloadLength - payloadDone;
        if (state != State.PAYLOAD || !tagged || !placing || !input.isEmpty()
                || remaining < DIRECT_MIN && payloadLength < LARGE_PAYLOAD) {
            return null;
        }
        direct = sink.placementTarget(payloadDone, remaining);
        return direct;
    }

    /**
     * How many bytes the next socket read should ask for when it starts a frame after a large tagged
     * one ({@link #LARGE_PAYLOAD}), or 0 for no limit. Reading only up to the end of the largest
     * header keeps a large payload that follows out of pool buffers: it is then read straight into
     * its region ({@link #placementBuffer}). After smaller frames reads stay large, so a burst of
     * them still arrives with one system call.
     */
    int headerReadSize() {
        if (!lastFrameLarge || !input.isEmpty()) {
            return 0;
        }
        int consumed = switch (state) {
            case LENGTH -> header.readableBytes();
            case HEADER -> TcpRdmaFrame.LENGTH_FIELD + header.readableBytes();
            default -> -1;
        };
        return consumed < 0 ? 0 : Math.max(1, LARGEST_DATA_HEADER - consumed);
    }

    private void readPayload(ByteBuf in) {
        int n = Math.min(payloadLength - payloadDone, in.readableBytes());
        if (tagged) {
            if (placing && n > 0 && in != direct) {
                sink.place(in, n, payloadDone);
            }
            in.skipBytes(n);
        } else {
            gathered.writeBytes(in, n);
        }
        payloadDone += n;
        if (payloadDone == payloadLength) {
            endFrame();
        }
    }

    private void endFrame() {
        state = State.LENGTH;
        direct = null;
        lastFrameLarge = tagged && payloadLength >= LARGE_PAYLOAD;
        if (tagged) {
            if (placing) {
                sink.endTagged();
            }
        } else {
            ByteBuf payload = gathered;
            gathered = null;
            sink.frame(opcode, flags, msn, header, payload);
        }
        if (header != null) {
            header.clear();
        }
    }

    /** The sink found the stream bad: drop all input from now on. */
    void abort() {
        state = State.FAILED;
        ByteBuf b;
        while ((b = input.poll()) != null) {
            b.release();
        }
    }

    private void fail(String why) {
        state = State.FAILED;
        ByteBuf b;
        while ((b = input.poll()) != null) {
            b.release();
        }
        sink.malformed(why);
    }
}
