package org.jtarget.rdma;

import io.netty.channel.EventLoopGroup;
import org.jtarget.buffer.BufferPool;
import org.jtarget.rdma.iwarp.TcpConnectionManager;
import org.jtarget.rdma.iwarp.TcpDevice;

import java.lang.foreign.Arena;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * A tcp-provider device with its own event loops, pooled buffers and connection manager, plus an
 * arena for registered memory and an executor for store I/O: what the tests of code running over
 * the tcp provider share. {@link #close} frees it all.
 */
public final class TcpProviderFixture implements AutoCloseable {

    public final EventLoopGroup group;
    public final BufferPool pool;
    public final TcpDevice device;
    public final TcpConnectionManager cm;
    public final Arena arena = Arena.ofShared();
    public final ExecutorService io = Executors.newFixedThreadPool(2);

    /** With {@code threads} event loops. */
    public TcpProviderFixture(int threads) {
        group = TcpConnectionManager.newEventLoopGroup(threads);
        pool = new BufferPool(threads);
        device = new TcpDevice("tcp0", TcpDevice.DEFAULT_ATTRIBUTES, PinnedMemoryPolicy.ANY_NATIVE, group,
                pool.allocator());
        cm = new TcpConnectionManager(device);
    }

    @Override
    public void close() {
        cm.close();
        device.close();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        io.shutdownNow();
        arena.close();
    }
}
