package org.jtarget.rdma.iwarp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.jtarget.rdma.MemoryRegion;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * Copies received bytes straight into a registered region (DDP direct placement): absolute bulk
 * puts between the socket buffer's NIO view and the region's shared view, which move no positions,
 * so no copy of the data and no per-call view is made for the common single-buffer case.
 */
final class Placement {

    private Placement() {
    }

    /** Copies {@code n} bytes of {@code src} at {@code index} into {@code dst} at {@code dstOffset}. */
    static void copy(ByteBuf src, int index, int n, MemoryRegion dst, long dstOffset) {
        ByteBuffer from = src.nioBufferCount() == 1 ? src.internalNioBuffer(index, n) : src.nioBuffer(index, n);
        ByteBuffer to = dst.byteBuffer();
        if (to != null) {
            to.put((int) dstOffset, from, from.position(), n);
        } else {
            MemorySegment.copy(MemorySegment.ofBuffer(from), 0, dst.segment(), dstOffset, n);
        }
    }

    /** A buffer over {@code length} bytes of {@code mr} at {@code offset}: a view of the region, not a copy. */
    static ByteBuf view(MemoryRegion mr, long offset, int length) {
        ByteBuffer whole = mr.byteBuffer();
        ByteBuffer slice = whole != null ? whole.slice((int) offset, length)
                : mr.segment().asSlice(offset, length).asByteBuffer();
        return Unpooled.wrappedBuffer(slice);
    }
}
