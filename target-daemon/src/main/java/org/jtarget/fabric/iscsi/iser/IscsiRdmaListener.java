package org.jtarget.fabric.iscsi.iser;

import io.netty.buffer.ByteBufAllocator;
import io.netty.util.concurrent.EventExecutorGroup;
import io.netty.util.concurrent.EventExecutor;
import org.jtarget.fabric.rdma.CompletionPoller;
import org.jtarget.fabric.rdma.ConnectionQueues;
import org.jtarget.fabric.rdma.RegisteredMemory;
import org.jtarget.fabric.iscsi.spi.IscsiEngine;
import org.jtarget.fabric.iscsi.spi.IscsiTransport;
import org.jtarget.fabric.rdma.Decoded;
import org.jtarget.rdma.ProtectionDomain;
import org.jtarget.rdma.QueuePair;
import org.jtarget.rdma.RdmaDevice;
import org.jtarget.rdma.RdmaException;
import org.jtarget.rdma.cm.CmEvent;
import org.jtarget.rdma.cm.CmEventHandler;
import org.jtarget.rdma.cm.CmId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.SocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Accepts iSER connections on one connection manager listener (an iSCSI portal marked for
 * iSER): each connect request that carries a well-formed iSER CM header (RFC 7145 Annex A) gets a
 * queue pair, a completion queue and an {@link IscsiRdmaTransport} with its engine, on the next
 * event loop of the group; the accept carries the target's iSER CM header. Requests with a
 * malformed header are rejected. When a connection ends its transport frees everything of it.
 *
 * <p>Events arrive on the connection manager's thread, one at a time; connection work is handed
 * to each connection's loop.
 */
public final class IscsiRdmaListener implements CmEventHandler {

    private static final Logger LOG = LoggerFactory.getLogger(IscsiRdmaListener.class);

    private final RdmaDevice device;
    private final ProtectionDomain pd;
    private final RegisteredMemory memory;
    private final EventExecutorGroup loops;
    private final ByteBufAllocator alloc;
    private final IserLimits limits;
    private final SocketAddress localAddress;
    private final Duration nopInterval;
    private final Function<IscsiTransport, ? extends IscsiEngine> engineFactory;
    private final Map<CmId, IscsiRdmaTransport> connections = new ConcurrentHashMap<>();

    /**
     * @param memory        registered in {@code pd}
     * @param localAddress  the portal's address, as the engine reports it (SendTargets, logs)
     * @param nopInterval   how long a connection may stay silent before the engine pings it (0: never)
     * @param engineFactory makes each connection's engine over its transport
     */
    public IscsiRdmaListener(RdmaDevice device, ProtectionDomain pd, RegisteredMemory memory, EventExecutorGroup loops,
                             ByteBufAllocator alloc, IserLimits limits, SocketAddress localAddress, Duration nopInterval,
                             Function<IscsiTransport, ? extends IscsiEngine> engineFactory) {
        this.device = device;
        this.pd = pd;
        this.memory = memory;
        this.loops = loops;
        this.alloc = alloc;
        this.limits = limits;
        this.localAddress = localAddress;
        this.nopInterval = nopInterval;
        this.engineFactory = engineFactory;
    }

    /** Connections currently served. */
    public int connections() {
        return connections.size();
    }

    /** Disconnects every connection (each then frees itself on its loop). */
    public void disconnectAll() {
        for (IscsiRdmaTransport t : connections.values()) {
            t.close();
        }
    }

    @Override
    public void onEvent(CmEvent e) {
        switch (e.type()) {
            case CONNECT_REQUEST -> connectRequest(e.id(), e.privateData());
            case DISCONNECTED -> disconnected(e.id());
            default -> {
                // ESTABLISHED follows our own accept: the transport started before it
            }
        }
    }

    private void connectRequest(CmId id, byte[] privateData) {
        IserCmPrivateData request;
        switch (IserCmPrivateData.decode(privateData)) {
            case Decoded.Malformed<IserCmPrivateData> m -> {
                LOG.info("iSER connect request from {} rejected: {}", id.remoteAddress(), m.reason());
                id.reject(new byte[0]);
                return;
            }
            case Decoded.Ok<IserCmPrivateData> ok -> request = ok.value();
        }
        IserCmPrivateData accept = IserCmPrivateData.acceptFor(request);
        // the transport runs where the provider moves the connection's bytes, if it has such a
        // thread (iwarp: the socket's event loop): posting and polling there hand nothing over
        EventExecutor loop = id.ioExecutor() instanceof EventExecutor io ? io : loops.next();
        CompletionPoller poller = new CompletionPoller(loop);
        IscsiRdmaTransport transport;
        QueuePair qp;
        try {
            ConnectionQueues queues = ConnectionQueues.create(device, pd, poller,
                    limits.sendDepth() + limits.dataDepth(), limits.receiveDepth()); // receives before the accept
            qp = queues.qp();
            transport = new IscsiRdmaTransport(qp, queues.cq(), poller, id, loop, alloc, memory, limits, localAddress, nopInterval,
                    engineFactory);
            transport.sendWithInvalidate(!accept.sendWithInvalidateUnsupported());
        } catch (RdmaException ex) {
            LOG.warn("iSER connect request from {} rejected: {}", id.remoteAddress(), ex.getMessage());
            id.reject(new byte[0]);
            return;
        }
        String refusal = transport.prepare();
        if (refusal != null) {
            LOG.warn("iSER connect request from {} rejected: {}", id.remoteAddress(), refusal);
            id.reject(new byte[0]);
            endOn(loop, transport);
            return;
        }
        connections.put(id, transport);
        // the engine is started before the accept, so the initiator's first SEND finds it ready:
        // its completion is polled on the same loop, after this task
        loop.execute(transport::start);
        try {
            id.accept(qp, accept.encode());
        } catch (RdmaException ex) {
            LOG.info("iSER connection from {}: accept failed: {}", id.remoteAddress(), ex.getMessage());
            connections.remove(id);
            endOn(loop, transport);
        }
    }

    private void disconnected(CmId id) {
        IscsiRdmaTransport t = connections.remove(id);
        if (t != null) {
            endOn(t.executor(), t);
        }
    }

    /** Ends the transport on its loop (or here, if that loop has stopped: shutdown). */
    private static void endOn(EventExecutor loop, IscsiRdmaTransport transport) {
        CompletionPoller.onLoop(loop, transport::disconnected);
    }
}
