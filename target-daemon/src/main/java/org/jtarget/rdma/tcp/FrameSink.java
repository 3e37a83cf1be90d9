package org.jtarget.rdma.tcp;

import io.netty.buffer.ByteBuf;

/**
 * What the {@link FrameDecoder} hands each frame to (one connection). Payloads of control frames and
 * SENDs arrive whole; tagged payloads (RDMA WRITE, READ RESPONSE) are streamed to {@link #place}
 * as they come off the socket, so they are copied once, into the registered region.
 */
interface FrameSink {

    /** A control frame or a SEND with its whole payload; the sink consumes (releases) {@code payload}. */
    void frame(int opcode, int flags, int msn, ByteBuf header, ByteBuf payload);

    /**
     * A tagged frame starts ({@code header}: its opcode header, borrowed).
     *
     * @return true to receive its payload through {@link #place}, false to discard it
     */
    boolean beginTagged(int opcode, int flags, int msn, ByteBuf header, int payloadLength);

    /** Borrows {@code n} readable bytes of {@code src} at {@code messageOffset} of the tagged payload. */
    void place(ByteBuf src, int n, long messageOffset);

    /**
     * A buffer (empty, writable) over the memory where the tagged payload continues at
     * {@code messageOffset}, at most {@code max} bytes, or null; the socket reads into it directly
     * and the decoder then does not call {@link #place} for it.
     */
    ByteBuf placementTarget(long messageOffset, int max);

    /** The tagged frame's payload is complete. */
    void endTagged();

    /** Whether the sink cannot take another frame now (a SEND waits for a receive: RNR). */
    boolean blocked();

    /** The stream is malformed; the decoder drops everything after this. */
    void malformed(String why);
}
