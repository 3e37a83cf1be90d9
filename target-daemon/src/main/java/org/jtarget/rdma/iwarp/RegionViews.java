package org.jtarget.rdma.iwarp;

import io.netty.buffer.ByteBuf;
import io.netty.util.internal.PlatformDependent;
import org.jtarget.rdma.MemoryRegion;

import java.util.Queue;

/**
 * Reusable buffers over registered regions for one connection's socket writes of request
 * payloads (SEND and RDMA WRITE segments): a payload goes to TCP as a window of its region, not a
 * copy. A new view per segment (a {@code ByteBuffer} slice and a Netty wrapper, then a duplicate
 * when the socket write asked for its NIO view) cost ~190 B per segment; a view here covers its
 * whole region, names the segment with its reader and writer index, and comes back when the socket
 * write releases it ({@link ReusedDirectBuf}).
 *
 * <p>A connection keeps views of at most {@link #REGIONS} regions (the daemon's iSER connections
 * use one, the pinned arena); payloads in other regions, and in regions above 2 GiB (no
 * whole-region {@code ByteBuffer}), get a one-off view. Taken by the thread that executes
 * requests, one at a time.
 */
final class RegionViews {

    static final int REGIONS = 4;
    /** Free views kept per region: more than the segments a connection has in flight at once. */
    private static final int KEPT = 4096;

    private final MemoryRegion[] regions = new MemoryRegion[REGIONS];
    @SuppressWarnings("unchecked")
    private final Queue<ReusedDirectBuf>[] free = new Queue[REGIONS];

    /** A buffer over {@code length} bytes of {@code mr} at {@code offset} (reference count 1; the caller owns it). */
    ByteBuf view(MemoryRegion mr, long offset, int length) {
        int slot = slot(mr);
        if (slot < 0) {
            return Placement.view(mr, offset, length);
        }
        ReusedDirectBuf v = free[slot].poll();
        if (v == null) {
            v = new View(mr, free[slot]);
        }
        return v.reuse((int) offset, (int) offset + length);
    }

    private int slot(MemoryRegion mr) {
        for (int i = 0; i < REGIONS; i++) {
            if (regions[i] == mr) {
                return i;
            }
            if (regions[i] == null) {
                if (mr.byteBuffer() == null || mr.segment() == null) {
                    return -1;
                }
                regions[i] = mr;
                free[i] = PlatformDependent.newFixedMpscQueue(KEPT);
                return i;
            }
        }
        return -1;
    }

    /** A whole region as a Netty buffer whose readable bytes are one payload. */
    private static final class View extends ReusedDirectBuf {
        View(MemoryRegion mr, Queue<ReusedDirectBuf> home) {
            super(mr.byteBuffer().duplicate().clear(), mr.segment().address(), home);
        }
    }
}
