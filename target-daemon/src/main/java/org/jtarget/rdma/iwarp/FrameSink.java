package org.jtarget.rdma.iwarp;

import io.netty.buffer.ByteBuf;

/**
 * What the {@link FrameDecoder} hands the connection's input to: the MPA request or reply, then each
 * DDP segment. Untagged segments (SEND, READ request, TERMINATE) arrive whole, after their CRC was
 * checked; tagged payloads (RDMA WRITE, READ response) are streamed to {@link #place} as they come
 * off the socket, so they are copied once, into the registered region (the CRC, when on, is checked
 * at the segment's end, before {@link #endTagged}; a mismatch terminates the connection).
 */
interface FrameSink {

    /** An MPA request or reply: {@code header} its 20 bytes (borrowed), {@code privateData} consumed. */
    void mpaFrame(ByteBuf header, ByteBuf privateData);

    /**
     * An untagged segment ({@code header}: its 18-byte DDP/RDMAP header, borrowed); the sink consumes
     * (releases) {@code payload}.
     */
    void untagged(ByteBuf header, ByteBuf payload);

    /**
     * A tagged segment starts ({@code header}: its 14-byte DDP/RDMAP header, borrowed).
     *
     * @return true to receive its payload through {@link #place}, false to discard it
     */
    boolean beginTagged(ByteBuf header, int payloadLength);

    /** Borrows {@code n} readable bytes of {@code src} at {@code segmentOffset} of the tagged payload. */
    void place(ByteBuf src, int n, long segmentOffset);

    /**
     * A buffer (empty, writable) over the memory where the tagged payload continues at
     * {@code segmentOffset}, at most {@code max} bytes, or null; the socket reads into it directly
     * and the decoder then does not call {@link #place} for it.
     */
    ByteBuf placementTarget(long segmentOffset, int max);

    /** The tagged segment's payload is complete (and its CRC, if on, checked). */
    void endTagged();

    /** Whether the sink cannot take another segment now (a store endpoint's access is in progress). */
    boolean blocked();

    /** The stream is malformed ({@code code} says how for the TERMINATE); nothing more is decoded. */
    void malformed(TerminateCode code, String why);
}
