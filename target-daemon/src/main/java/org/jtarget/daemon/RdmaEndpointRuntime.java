package org.jtarget.daemon;

import io.netty.channel.EventLoopGroup;
import org.jtarget.backstore.spi.Backstore;
import org.jtarget.buffer.BufferPool;
import org.jtarget.buffer.PinnedArena;
import org.jtarget.config.ConfigException;
import org.jtarget.config.JtargetConfig;
import org.jtarget.config.RdmaConfig;
import org.jtarget.fabric.endpoint.EndpointListener;
import org.jtarget.fabric.endpoint.StoreEndpoint;
import org.jtarget.fabric.endpoint.StoreEndpointSettings;
import org.jtarget.io.LunIoExecutors;
import org.jtarget.rdma.PinnedMemoryPolicy;
import org.jtarget.rdma.ProtectionDomain;
import org.jtarget.rdma.RdmaException;
import org.jtarget.rdma.iwarp.TcpConnectionManager;
import org.jtarget.rdma.iwarp.TcpDevice;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code rdma:} section at run time: a iwarp-provider device on the daemon's event loops, one
 * {@link StoreEndpoint} per configured endpoint (store I/O on an executor of its own), and the
 * {@link EndpointListener} that connects clients to them. Wiring only.
 */
final class RdmaEndpointRuntime implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(RdmaEndpointRuntime.class);

    private final TcpDevice device;
    private final TcpConnectionManager cm;
    private final ProtectionDomain pd;
    private final Map<String, StoreEndpoint> endpoints = new LinkedHashMap<>();

    private RdmaEndpointRuntime(TcpDevice device) {
        this.device = device;
        this.cm = new TcpConnectionManager(device);
        this.pd = device.allocateProtectionDomain();
    }

    /**
     * Registers the endpoints and listens. Operator problems (a range outside a store whose size was
     * only known at open, an address in use) are {@link ConfigException}s naming the key; whatever
     * was set up is closed again.
     */
    static RdmaEndpointRuntime start(JtargetConfig config, BackstoreSet stores, BufferPool pool, EventLoopGroup group,
                                     LunIoExecutors io) throws ConfigException {
        RdmaConfig rdma = config.rdma();
        RdmaEndpointRuntime r = new RdmaEndpointRuntime(new TcpDevice("rdma-tcp0", TcpDevice.DEFAULT_ATTRIBUTES,
                memoryPolicy(pool), group, pool.allocator()));
        try {
            List<RdmaConfig.EndpointConfig> list = rdma.endpoints();
            for (int i = 0; i < list.size(); i++) {
                r.register(config, i, list.get(i), stores.get(list.get(i).backstore()), pool, io);
            }
            r.listen(config, rdma);
        } catch (ConfigException | RuntimeException e) {
            r.close();
            throw e;
        }
        LOG.info("rdma: {} store endpoint(s) {} on {}:{} (tcp provider)", r.endpoints.size(), r.endpoints.keySet(),
                rdma.host(), rdma.port());
        return r;
    }

    /**
     * DESIGN 3: memory registered for RDMA comes from the buffer pool's pinned arena; without an arena
     * ({@code pinned-size: 0}) any native memory. Store endpoints register no memory (their regions
     * are backed by the store), so this governs what later fabrics on this device register.
     */
    private static PinnedMemoryPolicy memoryPolicy(BufferPool pool) {
        PinnedArena arena = pool.pinnedArena();
        return arena == null ? PinnedMemoryPolicy.ANY_NATIVE : PinnedMemoryPolicy.withinPinned(arena);
    }

    private void register(JtargetConfig config, int index, RdmaConfig.EndpointConfig e, Backstore store,
                          BufferPool pool, LunIoExecutors io) throws ConfigException {
        String key = "rdma.endpoints[" + index + "]";
        StoreEndpointSettings settings = new StoreEndpointSettings(e.readOnly(), new HashSet<>(e.allowedPeers()),
                e.firstBlock(), e.blockCount(), e.writeThrough());
        try {
            endpoints.put(e.name(), StoreEndpoint.register(pd, store, settings, io.forLun("rdma-" + e.name()),
                    pool.allocator()));
        } catch (IllegalArgumentException ex) {
            // the range lies outside the store, whose size may be known only now that it is open
            boolean firstPastEnd = e.firstBlock() >= store.info().blockCount();
            throw new ConfigException(config.source().toString(),
                    key + (firstPastEnd ? ".first-block" : ".block-count"), ex.getMessage(), ex);
        } catch (RdmaException ex) {
            throw new ConfigException(config.source().toString(), key, "cannot expose it: " + ex.getMessage(), ex);
        }
    }

    private void listen(JtargetConfig config, RdmaConfig rdma) throws ConfigException {
        try {
            cm.listen(new InetSocketAddress(rdma.host(), rdma.port()), new EndpointListener(device, pd, endpoints));
        } catch (RdmaException e) {
            throw new ConfigException(config.source().toString(), "rdma.listen",
                    TargetRuntime.hostPort(rdma.host(), rdma.port()) + ": " + e.getMessage(), e);
        }
    }

    /**
     * Closes the listener and every connection, then the endpoints (an access still running on a
     * store is logged; its completion finds the connection gone).
     */
    @Override
    public void close() {
        cm.close();
        for (Map.Entry<String, StoreEndpoint> e : endpoints.entrySet()) {
            try {
                e.getValue().close();
            } catch (RdmaException ex) {
                LOG.warn("rdma endpoint {}: {} at shutdown", e.getKey(), ex.getMessage());
            }
        }
        endpoints.clear();
        device.close();
    }
}
