package org.jtarget.rdma.iwarp;

import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.buffer.UnpooledDirectByteBuf;

import java.nio.ByteBuffer;
import java.util.Queue;

/**
 * A direct Netty buffer that goes back to its owner's free queue when its count drops to zero,
 * instead of being freed or recycled by Netty: the request FPDUs a connection writes use these, so
 * that a socket write allocates nothing and puts no load on Netty's per-thread recyclers (whose
 * overflow queues allocate a chunk each time a burst of releases crosses one). It reports the
 * memory address of its {@code ByteBuffer}, so that the epoll transport writes from the address
 * without asking for an NIO view.
 *
 * <p>Taken by one thread at a time (the one that executes the queue pair's requests), given back by
 * any (the event loop, after the socket write): the free queue is a bounded multi-producer queue,
 * and a buffer that finds it full is left to the garbage collector.
 */
abstract class ReusedDirectBuf extends UnpooledDirectByteBuf {

    private final long address;
    private final Queue<ReusedDirectBuf> home;

    /** Over {@code memory} (its whole capacity), at native address {@code address}. */
    ReusedDirectBuf(ByteBuffer memory, long address, Queue<ReusedDirectBuf> home) {
        super(UnpooledByteBufAllocator.DEFAULT, memory, memory.capacity());
        this.address = address;
        this.home = home;
    }

    /** Makes this buffer a fresh one (count 1) with the given indexes. */
    final ReusedDirectBuf reuse(int readerIndex, int writerIndex) {
        resetRefCnt();
        setIndex(readerIndex, writerIndex);
        return this;
    }

    @Override
    public final boolean hasMemoryAddress() {
        return true;
    }

    @Override
    public final long memoryAddress() {
        ensureAccessible();
        return address;
    }

    /** The memory is not this buffer's to free: it only goes back to its free queue. */
    @Override
    protected final void deallocate() {
        home.offer(this);
    }
}
