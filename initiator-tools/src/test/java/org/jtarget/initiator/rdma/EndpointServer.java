package org.jtarget.initiator.rdma;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.EventLoopGroup;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.jtarget.backstore.memory.MemoryBackstore;
import org.jtarget.backstore.spi.Backstore;
import org.jtarget.buffer.BufferPool;
import org.jtarget.fabric.endpoint.EndpointHandshake.Rejection;
import org.jtarget.fabric.endpoint.EndpointHandshake;
import org.jtarget.fabric.endpoint.StoreEndpoint;
import org.jtarget.fabric.endpoint.StoreEndpointSettings;
import org.jtarget.rdma.CompletionQueue;
import org.jtarget.rdma.PinnedMemoryPolicy;
import org.jtarget.rdma.ProtectionDomain;
import org.jtarget.rdma.QueuePair;
import org.jtarget.rdma.QueuePairInitAttributes;
import org.jtarget.rdma.RdmaException;
import org.jtarget.rdma.cm.CmEvent;
import org.jtarget.rdma.cm.CmListener;
import org.jtarget.rdma.iwarp.TcpConnectionManager;
import org.jtarget.rdma.iwarp.TcpDevice;

/**
 * A store-endpoint listener in the test's process, on 127.0.0.1 over the tcp provider, answering
 * the way the daemon's would: the connect request names the endpoint; an unknown name is rejected
 * (UNKNOWN_ENDPOINT), a known one gets a queue pair of its own and {@link StoreEndpoint#accept}
 * (which rejects a peer the endpoint does not allow).
 */
public final class EndpointServer implements AutoCloseable {

    /** The peer identity of every client here. */
    public static final Set<String> LOCALHOST = Set.of("127.0.0.1");

    private final EventLoopGroup group = TcpConnectionManager.newEventLoopGroup(1);
    private final BufferPool pool = new BufferPool(1);
    private final TcpDevice device = new TcpDevice("tcp-server", TcpDevice.DEFAULT_ATTRIBUTES,
            PinnedMemoryPolicy.ANY_NATIVE, group, pool.allocator());
    private final TcpConnectionManager cm = new TcpConnectionManager(device);
    private final ProtectionDomain pd = device.allocateProtectionDomain();
    private final ThreadPoolExecutor io = (ThreadPoolExecutor) Executors.newFixedThreadPool(2);
    private final Map<String, StoreEndpoint> endpoints = new ConcurrentHashMap<>();
    private final List<Backstore> stores = new CopyOnWriteArrayList<>();
    private final CmListener listener;

    public EndpointServer() throws RdmaException {
        listener = cm.listen(new InetSocketAddress("127.0.0.1", 0), this::onEvent);
        io.prestartAllCoreThreads(); // all the server's threads exist from here on: tests tell the client's apart
    }

    public int port() {
        return ((InetSocketAddress) listener.localAddress()).getPort();
    }

    /** {@code rdma://127.0.0.1:PORT/name}. */
    public String url(String name) {
        return "rdma://127.0.0.1:" + port() + "/" + name;
    }

    /** A zeroed memory store of {@code blocks} blocks, exposed whole as {@code name} to 127.0.0.1. */
    public MemoryBackstore memoryEndpoint(String name, int blockSize, long blocks, boolean readOnly)
            throws Exception {
        MemoryBackstore store = new MemoryBackstore(name, blockSize, blocks, false, false, 64 * 1024);
        expose(name, store, new StoreEndpointSettings(readOnly, LOCALHOST, 0, 0));
        return store;
    }

    /** Exposes {@code store} as {@code name} (the server closes the store at the end). */
    public void expose(String name, Backstore store, StoreEndpointSettings settings) throws RdmaException {
        stores.add(store);
        endpoints.put(name, StoreEndpoint.register(pd, store, settings, io, pool.allocator()));
    }

    private void onEvent(CmEvent e) {
        switch (e.type()) {
            case CONNECT_REQUEST -> answer(e);
            case DISCONNECTED -> endpoints.values().forEach(ep -> ep.revoke(e.id().queuePair()));
            default -> { }
        }
    }

    private void answer(CmEvent e) {
        String name = EndpointHandshake.requestedName(e.privateData());
        StoreEndpoint endpoint = name == null ? null : endpoints.get(name);
        if (endpoint == null) {
            e.id().reject(name == null ? EndpointHandshake.reject(Rejection.MALFORMED_REQUEST, "")
                    : EndpointHandshake.reject(Rejection.UNKNOWN_ENDPOINT, "no endpoint " + name));
            return;
        }
        try {
            CompletionQueue cq = device.createCompletionQueue(64, null);
            QueuePair qp = device.createQueuePair(pd, new QueuePairInitAttributes(cq, cq, 16, 1, 1, 1));
            endpoint.accept(e.id(), qp);
        } catch (RdmaException ex) {
            e.id().reject(EndpointHandshake.reject(Rejection.UNAVAILABLE, ex.getMessage()));
        }
    }

    /** Blocks {@code lba..lba+blocks-1} of {@code store}, read directly (not through any endpoint). */
    public static byte[] storeBytes(Backstore store, long lba, int blocks) throws IOException {
        int bs = store.info().blockSize();
        ByteBuf buf = Unpooled.buffer(blocks * bs);
        try {
            store.read(lba, blocks, buf);
            byte[] out = new byte[blocks * bs];
            buf.readBytes(out);
            return out;
        } finally {
            buf.release();
        }
    }

    /** Closes the listener and every connection, as a daemon going away would. */
    public void dropConnections() {
        cm.close();
    }

    @Override
    public void close() throws Exception {
        cm.close();
        device.close();
        io.shutdownNow(); // before the event loop stops: a store access ending now completes on it
        io.awaitTermination(5, TimeUnit.SECONDS);
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        for (Backstore store : stores) {
            store.close();
        }
        pool.close();
    }
}
