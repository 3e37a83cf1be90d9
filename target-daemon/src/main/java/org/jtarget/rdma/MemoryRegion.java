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
 *
 * <p>A region may instead be backed by a {@link RemoteAccessHandler} (a store endpoint): it has no
 * memory and no usable lkey (local work requests cannot name it), is zero-based (remote addresses
 * are byte offsets, like IBV_ACCESS_ZERO_BASED), and providers that support it hand every remote
 * access to the handler, which completes it asynchronously. Providers that do not refuse such
 * accesses with REM_ACCESS_ERR.
 */
public final class MemoryRegion {

    private static final int DEREGISTERED = -1;

    private final ProtectionDomain pd;
    private final MemorySegment segment;
    private final ByteBuffer buffer;
    private final RemoteAccessHandler handler;
    private final long base;
    private final long size;
    private final int access;
    private final int lkey;
    private final int rkey;
    private final AtomicInteger uses = new AtomicInteger();
    private volatile boolean invalidated;

    MemoryRegion(ProtectionDomain pd, MemorySegment segment, int access, int lkey, int rkey) {
        this.pd = pd;
        this.segment = segment;
        this.buffer = segment.byteSize() <= Integer.MAX_VALUE ? segment.asByteBuffer() : null;
        this.handler = null;
        this.base = segment.address();
        this.size = segment.byteSize();
        this.access = access;
        this.lkey = lkey;
        this.rkey = rkey;
    }

    /** A handler-backed region of {@code size} bytes at zero-based addresses; its lkey is 0 (invalid). */
    MemoryRegion(ProtectionDomain pd, RemoteAccessHandler handler, long size, int access, int rkey) {
        this.pd = pd;
        this.segment = null;
        this.buffer = null;
        this.handler = handler;
        this.base = 0;
        this.size = size;
        this.access = access;
        this.lkey = 0;
        this.rkey = rkey;
    }

    /** The handler of a handler-backed region (a store endpoint), or null for registered memory. */
    public RemoteAccessHandler remoteAccessHandler() {
        return handler;
    }

    public ProtectionDomain protectionDomain() {
        return pd;
    }

    /** The registered memory; null for a handler-backed region. */
    public MemorySegment segment() {
        return segment;
    }

    /** The first virtual address of the region (the iova of SGEs and remote addresses). */
    public long address() {
        return base;
    }

    public long length() {
        return size;
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
        long off = addr - base;
        if (off < 0 || len < 0 || off > size - len) {
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
