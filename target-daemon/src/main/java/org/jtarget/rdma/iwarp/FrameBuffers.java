package org.jtarget.rdma.iwarp;

import io.netty.buffer.ByteBuf;
import io.netty.util.internal.PlatformDependent;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.Queue;

/**
 * One connection's small direct buffers for the request FPDUs it sends: a header, a trailer, or a
 * whole FPDU whose payload is small (header, payload copied, pad and CRC in one buffer: one socket
 * write entry instead of three). Reused through a free queue ({@link ReusedDirectBuf}), so a request
 * allocates nothing. Taken by the thread that executes requests, one at a time.
 */
final class FrameBuffers {

    /** Bytes of each buffer. */
    static final int CAPACITY = 1024;
    /** The largest payload that goes whole into its FPDU's buffer: what is left after header and trailer. */
    static final int SMALL_PAYLOAD = CAPACITY - Mpa.LENGTH_FIELD - Math.max(Iwarp.TAGGED_HEADER, Iwarp.UNTAGGED_HEADER)
            - 3 - Mpa.CRC_LENGTH;
    /** Free buffers kept: more than the FPDUs a connection has queued at once. */
    private static final int KEPT = 4096;

    private final Queue<ReusedDirectBuf> free = PlatformDependent.newFixedMpscQueue(KEPT);

    /** An empty buffer of {@link #CAPACITY} bytes (reference count 1; the caller owns it). */
    ByteBuf take() {
        ReusedDirectBuf b = free.poll();
        if (b == null) {
            b = new Small(free);
        }
        return b.reuse(0, 0);
    }

    private static final class Small extends ReusedDirectBuf {
        Small(Queue<ReusedDirectBuf> home) {
            this(ByteBuffer.allocateDirect(CAPACITY), home);
        }

        private Small(ByteBuffer memory, Queue<ReusedDirectBuf> home) {
            super(memory, MemorySegment.ofBuffer(memory).address(), home);
        }
    }
}
