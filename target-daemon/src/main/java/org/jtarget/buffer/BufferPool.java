package org.jtarget.buffer;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;

/**
 * The one pooled direct allocator shared by fabrics and stores (DESIGN 3, "Buffer pool"). Netty 4.2
 * defaults to its adaptive allocator; we pick the pooled one on purpose so buffer sizes and
 * arenas are predictable, and set it on every bootstrap.
 */
public final class BufferPool {

    private final PooledByteBufAllocator allocator;

    /** @param arenas number of direct arenas (one per event loop thread is a good default) */
    public BufferPool(int arenas) {
        this.allocator = new PooledByteBufAllocator(true, 0, arenas,
                PooledByteBufAllocator.defaultPageSize(), PooledByteBufAllocator.defaultMaxOrder(),
                PooledByteBufAllocator.defaultSmallCacheSize(), PooledByteBufAllocator.defaultNormalCacheSize(),
                true);
    }

    /** The allocator to set as {@code ChannelOption.ALLOCATOR} and to take store buffers from. */
    public ByteBufAllocator allocator() {
        return allocator;
    }
}
