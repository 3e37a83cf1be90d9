package org.jtarget.buffer;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;

/**
 * The daemon's buffers (DESIGN 3, "Buffer pool"): one pooled direct allocator shared by fabrics
 * and stores, and optionally one {@link PinnedArena} of page-aligned, mlock'ed memory for I/O
 * buffers that stores read into and write from directly (O_DIRECT needs aligned addresses) and
 * that RDMA fabrics register once.
 *
 * <p>Netty 4.2 defaults to its adaptive allocator; we pick the pooled one on purpose so buffer
 * sizes and arenas are predictable, and set it on every bootstrap ({@link #allocator()}).
 *
 * <p>Ownership (DESIGN 4.1): {@link #ioBuffer(int)} hands its caller a buffer with a reference
 * count of one; the caller owns it and the last holder releases it (arena buffers then go back to
 * the arena's free list, pooled ones to Netty's pool). Methods that take a buffer say whether they
 * consume (release) or borrow it. A buffer must not be touched after its last release: its memory
 * is handed out again at once (as with Netty's pooled buffers). {@link #pinnedArena()} lends the
 * region for registration; it stays mapped until {@link #close()}, which refuses to unmap while
 * arena buffers are still out.
 */
public final class BufferPool implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(BufferPool.class);

    private final PooledByteBufAllocator allocator;
    private final ArenaAllocator arena;

    /** No pinned arena: I/O buffers come from the pooled allocator. */
    public BufferPool(int arenas) {
        this(arenas, null);
    }

    /**
     * @param arenas number of Netty direct arenas (one per event loop thread is a good default)
     * @param pinned the region I/O buffers are carved from (this pool closes it), or null for none
     */
    public BufferPool(int arenas, PinnedArena pinned) {
        this.allocator = new PooledByteBufAllocator(true, 0, arenas,
                PooledByteBufAllocator.defaultPageSize(), PooledByteBufAllocator.defaultMaxOrder(),
                PooledByteBufAllocator.defaultSmallCacheSize(), PooledByteBufAllocator.defaultNormalCacheSize(),
                true);
        this.arena = pinned == null ? null : new ArenaAllocator(pinned, allocator);
    }

    /**
     * A pool with a pinned arena of {@code pinnedBytes} (0 = none), locked in RAM if {@code pin}
     * and the kernel allows (else unpinned, with one warning: see {@link PinnedArena}).
     *
     * @throws IOException if the region cannot be mapped at all
     */
    public static BufferPool create(int arenas, long pinnedBytes, boolean pin) throws IOException {
        return new BufferPool(arenas, pinnedBytes > 0 ? PinnedArena.map(pinnedBytes, pin) : null);
    }

    /** The allocator to set as {@code ChannelOption.ALLOCATOR} and for small control buffers. */
    public ByteBufAllocator allocator() {
        return allocator;
    }

    /**
     * Where store I/O buffers come from: the pinned arena's allocator (falling back to the pooled
     * one, counted) if there is an arena, else the pooled allocator.
     */
    public ByteBufAllocator ioAllocator() {
        return arena != null ? arena : allocator;
    }

    /**
     * A direct buffer of {@code size} bytes for a store to read into or write from: from the pinned
     * arena (page-aligned, one contiguous slot) when there is one and it has room, else from the
     * pooled allocator. The caller owns it (reference count 1) and must release it.
     */
    public ByteBuf ioBuffer(int size) {
        return ioAllocator().directBuffer(size);
    }

    /** The pinned region for an RDMA fabric to register, or null when none is configured. */
    public PinnedArena pinnedArena() {
        return arena == null ? null : arena.arena();
    }

    /** The arena's counters, or null when there is no arena. */
    public ArenaStats arenaStats() {
        return arena == null ? null : arena.stats();
    }

    /** One line for the startup log and status output. */
    public String describe() {
        return arena == null ? "buffer pool: pooled direct allocator, no pinned arena"
                : "buffer pool: pooled direct allocator and " + arena.stats().describe();
    }

    /**
     * Unmaps the pinned arena, unless arena buffers are still out (then the region is left mapped,
     * with a warning: unmapping it would turn their late release into a crash).
     */
    @Override
    public void close() {
        if (arena == null) {
            return;
        }
        if (arena.bytesInUse() != 0) {
            LOG.warn("buffer pool closed with {} bytes of arena buffers not released; leaving the arena mapped",
                    arena.bytesInUse());
            return;
        }
        arena.arena().close();
    }
}
