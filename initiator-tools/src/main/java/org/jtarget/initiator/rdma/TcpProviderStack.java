package org.jtarget.initiator.rdma;

import io.netty.channel.EventLoopGroup;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import org.jtarget.buffer.BufferPool;
import org.jtarget.rdma.iwarp.TcpConnectionManager;
import org.jtarget.rdma.iwarp.TcpDevice;

/**
 * What one process's use of the iwarp provider owns (the store-endpoint client, both sides of
 * rdma-bench): an event loop, registrable memory, the device and its connection manager.
 * {@link #close()} takes them down in the order that keeps memory safe.
 */
public final class TcpProviderStack implements AutoCloseable {

    /** One event loop: each user has one connection. */
    private static final int EVENT_LOOPS = 1;

    private final EventLoopGroup group;
    private final BufferPool pool;
    private final PinnableMemory memory;
    private final TcpDevice device;
    private final TcpConnectionManager cm;

    private TcpProviderStack(EventLoopGroup group, BufferPool pool, PinnableMemory memory) {
        this.group = group;
        this.pool = pool;
        this.memory = memory;
        this.device = new TcpDevice("tcp0", TcpDevice.DEFAULT_ATTRIBUTES, memory.policy(), group,
                pool.allocator());
        this.cm = new TcpConnectionManager(device);
    }

    /** Starts the event loop and maps {@code memoryBytes} of registrable memory. */
    public static TcpProviderStack open(long memoryBytes) throws IOException {
        EventLoopGroup group = TcpConnectionManager.newEventLoopGroup(EVENT_LOOPS);
        try {
            return new TcpProviderStack(group, new BufferPool(EVENT_LOOPS), PinnableMemory.map(memoryBytes));
        } catch (IOException | RuntimeException e) {
            stop(group);
            throw e;
        }
    }

    public TcpDevice device() {
        return device;
    }

    public TcpConnectionManager connectionManager() {
        return cm;
    }

    public PinnableMemory memory() {
        return memory;
    }

    /**
     * Closes the connections, destroys the queue pairs (while the event loop still runs: destroying
     * one schedules work on it), stops the event loop, after which nothing places data into the
     * registered memory any more, and only then unmaps the memory.
     */
    @Override
    public void close() {
        try {
            cm.close();
            device.close();
        } finally {
            stop(group);
            memory.close();
            pool.close();
        }
    }

    private static void stop(EventLoopGroup group) {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
