package org.jtarget.ha.link;

import io.netty.channel.EventLoopGroup;
import org.jtarget.buffer.BufferPool;
import org.jtarget.buffer.PinnedArena;
import org.jtarget.fabric.rdma.RegisteredMemory;
import org.jtarget.rdma.PinnedMemoryPolicy;
import org.jtarget.rdma.ProtectionDomain;
import org.jtarget.rdma.RdmaException;
import org.jtarget.rdma.iwarp.TcpConnectionManager;
import org.jtarget.rdma.iwarp.TcpDevice;

import java.util.concurrent.TimeUnit;

/**
 * What one node's replication link stands on in tests, as in the daemon: an iwarp device on its own
 * event loop, a pool whose pinned arena is registered once, and its connection manager.
 */
public final class LinkProvider implements AutoCloseable {

    public final EventLoopGroup group;
    public final BufferPool pool;
    public final TcpDevice device;
    public final TcpConnectionManager cm;
    public final ProtectionDomain pd;
    public final RegisteredMemory memory;

    public LinkProvider(String name, int arenaBytes) throws java.io.IOException, RdmaException {
        this(name, arenaBytes, 1);
    }

    /** A provider whose device runs on {@code loops} event loops (a link's lanes need more than one). */
    public LinkProvider(String name, int arenaBytes, int loops) throws java.io.IOException, RdmaException {
        group = TcpConnectionManager.newEventLoopGroup(loops);
        pool = new BufferPool(1, PinnedArena.map(arenaBytes, true));
        device = new TcpDevice(name, TcpDevice.DEFAULT_ATTRIBUTES, PinnedMemoryPolicy.withinPinned(pool.pinnedArena()),
                group, pool.allocator());
        cm = new TcpConnectionManager(device);
        pd = device.allocateProtectionDomain();
        memory = RegisteredMemory.register(pd, pool);
    }

    /** A link on this provider. */
    public ReplicationLink link(LinkSettings settings, LinkEvents events) {
        return new ReplicationLink(settings, device, cm, pd, memory, group, events);
    }

    @Override
    public void close() {
        cm.close();
        device.close();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        pool.close();
    }
}
