package org.jtarget.fabric.endpoint;

import org.jtarget.rdma.CompletionQueue;
import org.jtarget.rdma.ProtectionDomain;
import org.jtarget.rdma.QueuePair;
import org.jtarget.rdma.QueuePairInitAttributes;
import org.jtarget.rdma.RdmaDevice;
import org.jtarget.rdma.RdmaException;
import org.jtarget.rdma.cm.CmEvent;
import org.jtarget.rdma.cm.CmEventHandler;
import org.jtarget.rdma.cm.CmId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Serves a set of {@link StoreEndpoint}s on one connection manager's listener: a connect request
 * names its endpoint ({@link EndpointHandshake}); the listener gives the connection a queue pair of
 * its own in the endpoints' protection domain and lets the endpoint admit or reject the peer. When
 * the connection ends (the peer left, or an access violation tore it down) the queue pair loses its
 * access and is destroyed, so nothing of a connection outlives it.
 *
 * <p>Events arrive on the connection manager's own thread, one at a time, in order.
 */
public final class EndpointListener implements CmEventHandler {

    private static final Logger LOG = LoggerFactory.getLogger(EndpointListener.class);
    /**
     * Work requests per queue: the server side posts none (the peer's READs and WRITEs are one-sided),
     * so this only bounds what a misbehaving peer's SENDs could queue.
     */
    private static final int QUEUE_DEPTH = 16;
    /** Connections served at once, so that a peer opening connections in a loop cannot exhaust memory. */
    public static final int MAX_CONNECTIONS = 1024;

    private final RdmaDevice device;
    private final ProtectionDomain pd;
    private final Map<String, StoreEndpoint> endpoints;
    private final Map<CmId, Connection> connections = new ConcurrentHashMap<>();

    private record Connection(String name, StoreEndpoint endpoint, QueuePair qp) {
    }

    /**
     * @param endpoints by name; all registered in {@code pd}
     */
    public EndpointListener(RdmaDevice device, ProtectionDomain pd, Map<String, StoreEndpoint> endpoints) {
        this.device = device;
        this.pd = pd;
        this.endpoints = Map.copyOf(endpoints);
    }

    /** Connections currently served. */
    public int connections() {
        return connections.size();
    }

    @Override
    public void onEvent(CmEvent e) {
        switch (e.type()) {
            case CONNECT_REQUEST -> connectRequest(e.id(), e.privateData());
            case DISCONNECTED -> disconnected(e.id());
            default -> {
                // ESTABLISHED follows our own accept; nothing else reaches a listener
            }
        }
    }

    private void connectRequest(CmId id, byte[] data) {
        String name = EndpointHandshake.requestedName(data);
        if (name == null) {
            reject(id, EndpointHandshake.Rejection.MALFORMED_REQUEST, "expected a version 1 request naming an endpoint");
            return;
        }
        StoreEndpoint endpoint = endpoints.get(name);
        if (endpoint == null) {
            reject(id, EndpointHandshake.Rejection.UNKNOWN_ENDPOINT, "no endpoint '" + name + "'");
            return;
        }
        if (connections.size() >= MAX_CONNECTIONS) {
            reject(id, EndpointHandshake.Rejection.UNAVAILABLE, MAX_CONNECTIONS + " connections already");
            return;
        }
        QueuePair qp;
        try {
            CompletionQueue cq = device.createCompletionQueue(2 * QUEUE_DEPTH, null);
            qp = device.createQueuePair(pd, new QueuePairInitAttributes(cq, cq, QUEUE_DEPTH, QUEUE_DEPTH, 1, 1));
        } catch (RdmaException ex) {
            reject(id, EndpointHandshake.Rejection.UNAVAILABLE, ex.getMessage());
            return;
        }
        connections.put(id, new Connection(name, endpoint, qp));
        try {
            if (endpoint.accept(id, qp)) {
                LOG.info("rdma endpoint {}: {} connected", name, StoreEndpoint.peerIdentity(id.remoteAddress()));
                return;
            }
        } catch (RdmaException ex) {
            LOG.debug("rdma endpoint {}: accept failed: {}", name, ex.getMessage()); // the peer left meanwhile
        }
        connections.remove(id);
        qp.destroy();
    }

    private void disconnected(CmId id) {
        Connection c = connections.remove(id);
        if (c != null) {
            c.endpoint().revoke(c.qp());
            c.qp().destroy();
            LOG.info("rdma endpoint {}: {} disconnected", c.name(),
                    StoreEndpoint.peerIdentity(id.remoteAddress()));
        }
    }

    private static void reject(CmId id, EndpointHandshake.Rejection reason, String text) {
        LOG.info("rdma endpoint: connection from {} rejected: {}", StoreEndpoint.peerIdentity(id.remoteAddress()), text);
        id.reject(EndpointHandshake.reject(reason, text));
    }
}
