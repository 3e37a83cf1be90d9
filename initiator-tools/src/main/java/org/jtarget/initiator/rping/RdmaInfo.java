package org.jtarget.initiator.rping;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * rping's one message, {@code struct rping_rdma_info}: a buffer's address (u64), rkey (u32) and
 * size (u32), all in network byte order, 16 bytes with no padding. The client SENDs one for the
 * buffer the server is to RDMA READ, then one for the buffer it is to RDMA WRITE; the server's
 * go-ahead SENDs have the same length (rping checks it) and content nobody reads.
 *
 * @param buf  the buffer's address as the peer uses it in RDMA READ/WRITE (its region's address space)
 * @param rkey the buffer's region's rkey (the iWARP STag)
 * @param size the buffer's length in bytes (unsigned on the wire; rping keeps it below 64 KiB)
 */
public record RdmaInfo(long buf, int rkey, int size) {

    /** The message's length on the wire. */
    public static final int BYTES = 16;

    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /** Writes this message at the start of {@code dst} (at least {@link #BYTES} long). */
    public void writeTo(MemorySegment dst) {
        dst.set(U64, 0, buf);
        dst.set(U32, 8, rkey);
        dst.set(U32, 12, size);
    }

    /** Reads the message at the start of {@code src} (at least {@link #BYTES} long). */
    public static RdmaInfo readFrom(MemorySegment src) {
        return new RdmaInfo(src.get(U64, 0), src.get(U32, 8), src.get(U32, 12));
    }

    /** The size as the unsigned number it is on the wire. */
    public long unsignedSize() {
        return Integer.toUnsignedLong(size);
    }

    @Override
    public String toString() {
        return String.format("addr 0x%x rkey 0x%x len %d", buf, rkey, unsignedSize());
    }
}
