package org.jtarget.rdma.iwarp;

import io.netty.buffer.ByteBuf;
import org.jtarget.rdma.MemoryRegion;
import org.jtarget.rdma.SendQueueEntry;

/**
 * Where the tagged DDP segment now arriving goes (DDP tagged placement, RFC 5041 4): a registered region
 * at an offset (an RDMA WRITE), the scatter list of the READ it answers at the segment's offset (a READ
 * response), or a
 * buffer gathering it for a store endpoint. One per connection, reused for every frame; event loop
 * only. It owns the region of a WRITE until {@link #releaseRegion}; the READ's entry belongs to the
 * queue pair and the gathering buffer to {@link StoreAccess}.
 */
final class TaggedPlacement {

    private MemoryRegion region;
    private long regionOffset;
    private SendQueueEntry entry;
    private long entryOffset;
    private ByteBuf gather;

    /** The payload goes to {@code mr} from {@code offset} on; released by {@link #releaseRegion}. */
    void intoRegion(MemoryRegion mr, long offset) {
        region = mr;
        regionOffset = offset;
    }

    /** The payload is the data of READ {@code e} from {@code offset} on, placed across its elements. */
    void intoEntry(SendQueueEntry e, long offset) {
        entry = e;
        entryOffset = offset;
    }

    /** The payload is appended to {@code buffer} (a store endpoint takes it whole). */
    void intoBuffer(ByteBuf buffer) {
        gather = buffer;
    }

    /** Copies {@code n} readable bytes of {@code src} to {@code messageOffset} of the payload. */
    void place(ByteBuf src, int n, long messageOffset) {
        int index = src.readerIndex();
        if (gather != null) {
            gather.writeBytes(src, index, n);
        } else if (region != null) {
            Placement.copy(src, index, n, region, regionOffset + messageOffset);
        } else {
            placeInEntry(src, index, n, entryOffset + messageOffset);
        }
    }

    private void placeInEntry(ByteBuf src, int index, int n, long messageOffset) {
        SendQueueEntry e = entry;
        long pos = 0;
        long offset = messageOffset;
        int remaining = n;
        for (int i = 0; i < e.numSge() && remaining > 0; i++) {
            long end = pos + e.length(i);
            if (offset < end) {
                long within = offset - pos;
                int k = (int) Math.min(remaining, e.length(i) - within);
                Placement.copy(src, index, k, e.region(i), e.offset(i) + within);
                index += k;
                offset += k;
                remaining -= k;
            }
            pos = end;
        }
    }

    /**
     * An empty, writable view of the memory where the payload continues at {@code messageOffset}
     * (at most {@code max} bytes) for the socket to read into, or null when there is none (a
     * gathering buffer is filled by {@link #place}).
     */
    ByteBuf target(long messageOffset, int max) {
        if (gather != null) {
            return null;
        }
        if (region != null) {
            return Placement.view(region, regionOffset + messageOffset, max).clear();
        }
        SendQueueEntry e = entry;
        messageOffset += entryOffset;
        long pos = 0;
        for (int i = 0; i < e.numSge(); i++) {
            long end = pos + e.length(i);
            if (messageOffset < end) {
                long within = messageOffset - pos;
                int n = (int) Math.min(max, e.length(i) - within);
                return Placement.view(e.region(i), e.offset(i) + within, n).clear();
            }
            pos = end;
        }
        return null;
    }

    /** The READ whose response was placed; placement into it ends. */
    SendQueueEntry takeEntry() {
        SendQueueEntry e = entry;
        entry = null;
        return e;
    }

    /** The gathering buffer stops being a destination (its owner keeps it). */
    void endGather() {
        gather = null;
    }

    /** The WRITE's payload is placed: its region is let go. */
    void releaseRegion() {
        if (region != null) {
            region.release();
            region = null;
        }
    }

    /** The connection is gone: nothing more is placed. */
    void release() {
        releaseRegion();
        entry = null;
        gather = null;
    }
}
