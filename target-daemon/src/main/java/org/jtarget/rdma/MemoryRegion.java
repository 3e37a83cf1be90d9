package org.jtarget.rdma;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A registered memory region, after libibverbs {@code ibv_mr} (ibv_reg_mr(3)): native memory that
 * local work requests name by {@link #lkey()} and the peer by {@link #rkey()}, addressed by virtual
 * address ({@link #address()} is the segment's address). Every access is checked against its
 * bounds and access flags; a region in use by posted work requests or by a peer's access in
 * progress cannot be deregistered.
 */
public final class MemoryRegion {

    private static final int DEREGISTERED = -1;

    private final ProtectionDomain pd;
    private final MemorySegment segment;
    private final ByteBuffer buffer;
    private final int access;
    private final int lkey;
    private final int rkey;
    private final AtomicInteger uses = new AtomicInteger();
    private volatile boolean invalidated;

    MemoryRegion(ProtectionDomain pd, MemorySegment segment, int access, int lkey, int rkey) {
        this.pd = pd;
        this.segment = segment;
        this.buffer = segment.byteSize() <= Integer.MAX_VALUE ? segment.asByteBuffer() : null;
        this.access = access;
        this.lkey = lkey;
        this.rkey = rkey;
    }

    public ProtectionDomain protectionDomain() {
        return pd;
    }

    /** The registered memory. */
    public MemorySegment segment() {
        return segment;
    }

    /** The first virtual address of the region (the iova of SGEs and remote addresses). */
    public long address() {
        return segment.address();
    }

    public long length() {
        return segment.byteSize();
    }

    public int lkey() {
        return lkey;
    }

    public int rkey() {
        return rkey;
    }

    /** Whether {@code flag} was granted at registration. */
    public boolean allows(AccessFlag flag) {
        return (access & flag.bit()) != 0;
    }

    /**
     * A view of the whole region for absolute bulk operations ({@code ByteBuffer.put(int, ByteBuffer,
     * int, int)} never moves positions, so one view serves every thread); {@code null} above 2 GiB.
     */
    public ByteBuffer byteBuffer() {
        return buffer;
    }

    /**
     * The offset of {@code [addr, addr+len)} inside this region, or -1 when any byte of it lies
     * outside (the emulation never touches memory outside a region).
     */
    public long offsetOf(long addr, long len) {
        long off = addr - segment.address();
        if (off < 0 || len < 0 || off > segment.byteSize() - len) {
            return -1;
        }
        return off;
    }

    /** Whether a peer's SEND_WITH_INV invalidated the rkey (remote accesses are then refused). */
    public boolean isInvalidated() {
        return invalidated;
    }

    void invalidate() {
        invalidated = true;
    }

    /** Takes one use; false if the region is deregistered. */
    public boolean acquire() {
        while (true) {
            int n = uses.get();
            if (n == DEREGISTERED) {
                return false;
            }
            if (uses.compareAndSet(n, n + 1)) {
                return true;
            }
        }
    }

    /** Gives back a use taken by {@link #acquire()}. */
    public void release() {
        uses.decrementAndGet();
    }

    boolean markDeregistered() {
        return uses.compareAndSet(0, DEREGISTERED);
    }

    /** Whether {@link ProtectionDomain#deregister} succeeded. */
    public boolean isDeregistered() {
        return uses.get() == DEREGISTERED;
    }
}
