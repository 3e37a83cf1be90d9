package org.jtarget.daemon;

import io.netty.channel.EventLoopGroup;
import org.jtarget.buffer.BufferPool;
import org.jtarget.fabric.iscsi.IscsiPortalDefinition;
import org.jtarget.fabric.iscsi.iser.IscsiRdmaFabric;
import org.jtarget.fabric.iscsi.login.LoginSettings;
import org.jtarget.fabric.iscsi.session.ConnectionSettings;
import org.jtarget.fabric.iscsi.tcp.IscsiTcpFabric;
import org.jtarget.rdma.PinnedMemoryPolicy;
import org.jtarget.rdma.RdmaException;
import org.jtarget.rdma.iwarp.TcpConnectionManager;
import org.jtarget.rdma.iwarp.TcpDevice;

import java.time.Duration;

/**
 * The iSER side of the iSCSI node, made when the config has a portal with {@code transport: iser}:
 * an iwarp provider device (iWARP over TCP, what Linux's siw speaks) on the iSCSI fabric's
 * worker loops, and an {@link IscsiRdmaFabric} that shares the TCP fabric's sessions and target
 * view. Its registered memory is the buffer pool's pinned arena, which iSER therefore requires.
 */
final class IserFabricRuntime {

    private final IscsiTcpFabric tcp;
    private final IscsiRdmaFabric fabric;

    private IserFabricRuntime(IscsiTcpFabric tcp, IscsiRdmaFabric fabric) {
        this.tcp = tcp;
        this.fabric = fabric;
    }

    /**
     * @throws IllegalStateException if the pool has no pinned arena
     * @throws RdmaException         if the arena cannot be registered
     */
    static IserFabricRuntime start(BufferPool pool, EventLoopGroup workers, IscsiTcpFabric tcp) throws RdmaException {
        if (pool.pinnedArena() == null) {
            throw new IllegalStateException("iSER needs a pinned arena: set daemon.buffer-pool.pinned-size above 0");
        }
        TcpDevice device = new TcpDevice("iser-tcp0", TcpDevice.DEFAULT_ATTRIBUTES,
                PinnedMemoryPolicy.withinPinned(pool.pinnedArena()), workers, pool.allocator());
        TcpConnectionManager cm = new TcpConnectionManager(device);
        try {
            return new IserFabricRuntime(tcp, new IscsiRdmaFabric(device, cm, pool, workers, tcp.sessionRegistry(),
                    LoginSettings.defaults(), ConnectionSettings.defaults()));
        } catch (RdmaException | RuntimeException e) {
            cm.close();
            device.close();
            throw e;
        }
    }

    /** Listens for iSER on {@code portal}; the TCP fabric lists it and serves its targets' view. */
    void bind(IscsiPortalDefinition portal) throws RdmaException {
        fabric.bind(portal, tcp.servedThrough(portal));
    }

    /** Stops listening for iSER on {@code portal}; SendTargets stops listing it, its connections stay. */
    void unbind(IscsiPortalDefinition portal) {
        fabric.unbind(portal);
        tcp.noLongerServedThrough(portal);
    }

    void close(Duration timeout) {
        fabric.close(timeout);
    }
}
