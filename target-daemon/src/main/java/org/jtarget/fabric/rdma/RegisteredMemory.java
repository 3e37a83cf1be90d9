package org.jtarget.fabric.rdma;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import org.jtarget.buffer.BufferPool;
import org.jtarget.buffer.PinnedArena;
import org.jtarget.rdma.AccessFlag;
import org.jtarget.rdma.MemoryRegion;
import org.jtarget.rdma.ProtectionDomain;
import org.jtarget.rdma.QueuePair;
import org.jtarget.rdma.WorkRequest;
import org.jtarget.rdma.WorkRequestOpcode;
import org.jtarget.rdma.RdmaException;

import java.util.EnumSet;

/**
 * The memory the RDMA fabrics' connections (iSER, SRP) post work requests on: the buffer pool's
 * pinned arena, registered once in the fabric's protection domain (DESIGN 3), so that no I/O
 * registers anything. Buffers come from the pool's arena allocator; one that the arena could not
 * hold (the allocator falls back to ordinary pooled memory when full) is refused, never posted.
 *
 * <p>Local access only: the target is the requester of every RDMA READ and WRITE (RFC 7145, SRP
 * r16a), so no rkey of this region ever leaves the daemon.
 */
public final class RegisteredMemory implements AutoCloseable {

    /** The smallest RDMA READ or WRITE chunk {@link #chunk} falls back to. */
    public static final int MIN_CHUNK = 4096;

    private final BufferPool pool;
    private final MemoryRegion region;

    private RegisteredMemory(BufferPool pool, MemoryRegion region) {
        this.pool = pool;
        this.region = region;
    }

    /**
     * Registers the pool's pinned arena in {@code pd}.
     *
     * @throws IllegalStateException if the pool has no pinned arena (the RDMA fabrics need one)
     * @throws RdmaException         if the device refuses the registration
     */
    public static RegisteredMemory register(ProtectionDomain pd, BufferPool pool) throws RdmaException {
        PinnedArena arena = pool.pinnedArena();
        if (arena == null) {
            throw new IllegalStateException("RDMA fabrics need the buffer pool's pinned arena (daemon.buffer-pool.pinned-size)");
        }
        return new RegisteredMemory(pool, pd.registerMemoryRegion(arena.segment(), EnumSet.of(AccessFlag.LOCAL_WRITE)));
    }

    /** A registered buffer of {@code size} bytes (caller owns it), or null when the arena is exhausted. */
    public ByteBuf buffer(int size) {
        ByteBuf b = pool.ioBuffer(size);
        if (!contains(b, 0, size)) {
            b.release();
            return null;
        }
        return b;
    }

    /**
     * The allocator of registered buffers for SCSI data: the arena's, which falls back to ordinary
     * pooled memory when the arena is full (such a buffer is copied into a registered one before
     * it is posted).
     */
    public ByteBufAllocator allocator() {
        return pool.ioAllocator();
    }

    /** True if bytes {@code [index, index + length)} of {@code b} lie in the registered region. */
    public boolean contains(ByteBuf b, int index, int length) {
        return b.hasMemoryAddress() && region.offsetOf(b.memoryAddress() + index, length) >= 0;
    }

    /**
     * A registered buffer of {@code length} bytes for one RDMA READ or WRITE or, when the arena has
     * none that large (its slots split into smaller ones), of the largest smaller size class it
     * has, down to {@link #MIN_CHUNK}: the next size tried is the largest power of two below the
     * last, so the pieces a split slot leaves are used whole. Its capacity is the chunk's length;
     * null when not even {@link #MIN_CHUNK} bytes are free.
     */
    public ByteBuf chunk(int length) {
        ByteBuf b = buffer(length);
        while (b == null && length > MIN_CHUNK) {
            length = Math.max(MIN_CHUNK, Integer.highestOneBit(length - 1));
            b = buffer(length);
        }
        return b;
    }

    /** Posts a receive of the whole of {@code b} (a registered buffer) as {@code wrId}; the errno. */
    public int postReceive(QueuePair qp, WorkRequest wr, long wrId, ByteBuf b) {
        wr.reset();
        wr.wrId = wrId;
        wr.addSge(address(b, 0), b.capacity(), lkey());
        return qp.postRecv(wr);
    }

    /**
     * Posts an RDMA READ into, or WRITE from, {@code length} bytes of {@code buf} at {@code index}
     * (registered) as {@code wrId}, at {@code remoteAddress} of the peer's {@code rkey}; the errno.
     */
    public int postTransfer(QueuePair qp, WorkRequest wr, long wrId, WorkRequestOpcode opcode, ByteBuf buf, int index,
                            int length, long remoteAddress, int rkey) {
        wr.reset();
        wr.wrId = wrId;
        wr.opcode = opcode;
        wr.remoteAddress = remoteAddress;
        wr.rkey = rkey;
        wr.addSge(address(buf, index), length, lkey());
        return qp.postSend(wr);
    }

    /** The virtual address of byte {@code index} of a buffer that {@link #contains} accepted. */
    public long address(ByteBuf b, int index) {
        return b.memoryAddress() + index;
    }

    public int lkey() {
        return region.lkey();
    }

    /** Deregisters the region (the connections must be gone). */
    @Override
    public void close() throws RdmaException {
        region.protectionDomain().deregister(region);
    }
}
