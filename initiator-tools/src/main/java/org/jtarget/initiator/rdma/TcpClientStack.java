package org.jtarget.initiator.rdma;

import io.netty.channel.EventLoopGroup;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import org.jtarget.buffer.BufferPool;
import org.jtarget.rdma.tcp.TcpConnectionManager;
import org.jtarget.rdma.tcp.TcpDevice;

/**
 * What one client of the tcp provider owns: an event loop, registrable memory, the device and its
 * connection manager. {@link #close()} takes them down in the order that keeps memory safe.
 */
final class TcpClientStack implements AutoCloseable {

    /** One event loop: a client has one connection. */
    private static final int EVENT_LOOPS = 1;

    private final EventLoopGroup group;
    private final BufferPool pool;
    private final PinnableMemory memory;
    private final TcpDevice device;
    private final TcpConnectionManager cm;

    private TcpClientStack(EventLoopGroup group, BufferPool pool, PinnableMemory memory) {
        this.group = group;
        this.pool = pool;
        this.memory = memory;
        this.device = new TcpDevice("tcp-client", TcpDevice.DEFAULT_ATTRIBUTES, memory.policy(), group,
                pool.allocator());
        this.cm = new TcpConnectionManager(device);
    }

    /** Starts the event loop and maps {@code memoryBytes} of registrable memory. */
    static TcpClientStack open(long memoryBytes) throws IOException {
        EventLoopGroup group = TcpConnectionManager.newEventLoopGroup(EVENT_LOOPS);
        try {
            return new TcpClientStack(group, new BufferPool(EVENT_LOOPS), PinnableMemory.map(memoryBytes));
        } catch (IOException | RuntimeException e) {
            stop(group);
            throw e;
        }
    }

    TcpDevice device() {
        return device;
    }

    TcpConnectionManager connectionManager() {
        return cm;
    }

    PinnableMemory memory() {
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
