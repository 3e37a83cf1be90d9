package org.jtarget.fabric.rdma;

import org.jtarget.buffer.BufferPool;
import org.jtarget.rdma.ProtectionDomain;
import org.jtarget.rdma.RdmaDevice;
import org.jtarget.rdma.RdmaException;
import org.jtarget.rdma.cm.CmEventHandler;
import org.jtarget.rdma.cm.CmListener;
import org.jtarget.rdma.cm.ConnectionManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;

/**
 * What an RDMA fabric (iSER, SRP) stands on: a provider's device and connection manager, one
 * protection domain, the buffer pool's pinned arena registered in it once ({@link RegisteredMemory};
 * every connection's buffers come from it), and the listeners of its portals; and the order in
 * which they end.
 */
public final class RdmaPortals {

    private static final Logger LOG = LoggerFactory.getLogger(RdmaPortals.class);

    private final String fabric;
    private final RdmaDevice device;
    private final ConnectionManager cm;
    private final ProtectionDomain pd;
    private final RegisteredMemory memory;
    private final List<CmListener> listeners = new ArrayList<>();
    /** Each listener by the address it was asked for (a reload stops one by that address). */
    private final java.util.Map<SocketAddress, CmListener> byAddress = new java.util.HashMap<>();

    /**
     * @param fabric the fabric's name, for log lines
     * @throws IllegalStateException if the pool has no pinned arena
     * @throws RdmaException         if the device refuses to register it
     */
    public RdmaPortals(String fabric, RdmaDevice device, ConnectionManager cm, BufferPool pool) throws RdmaException {
        this.fabric = fabric;
        this.device = device;
        this.cm = cm;
        this.pd = device.allocateProtectionDomain();
        this.memory = RegisteredMemory.register(pd, pool);
    }

    public RdmaDevice device() {
        return device;
    }

    public ProtectionDomain protectionDomain() {
        return pd;
    }

    public RegisteredMemory memory() {
        return memory;
    }

    /** Listens on {@code address}; connection events go to {@code handler}. */
    public synchronized void listen(SocketAddress address, CmEventHandler handler) throws RdmaException {
        CmListener l = cm.listen(address, handler);
        listeners.add(l);
        byAddress.put(address, l);
    }

    /**
     * Stops listening on {@code address} (as given to {@link #listen}): no new connection request
     * is accepted there; connections made through it stay (a {@link CmListener} close keeps them).
     *
     * @return false if nothing listened there
     */
    public synchronized boolean stopListening(SocketAddress address) {
        CmListener l = byAddress.remove(address);
        if (l == null) {
            return false;
        }
        listeners.remove(l);
        l.close();
        return true;
    }

    /** The addresses listened on, in the order bound (a port 0 replaced by the one the system chose). */
    public synchronized List<SocketAddress> listenAddresses() {
        List<SocketAddress> a = new ArrayList<>();
        for (CmListener l : listeners) {
            a.add(l.localAddress());
        }
        return a;
    }

    /**
     * Stops listening, ends every connection ({@code endConnections}), waits at most
     * {@code timeout} until {@code connections} counts none, closes the provider and releases the
     * registered memory.
     */
    public synchronized void close(Duration timeout, Runnable endConnections, IntSupplier connections) {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (CmListener l : listeners) {
            l.close();
        }
        endConnections.run();
        while (connections.getAsInt() > 0 && System.nanoTime() < deadline) {
            sleepBriefly();
        }
        cm.close();
        device.close();
        try {
            memory.close();
        } catch (RdmaException e) {
            LOG.debug("{}: registered memory still in use at close: {}", fabric, e.getMessage());
        }
        LOG.info("{} fabric closed", fabric);
    }

    private static void sleepBriefly() {
        try {
            TimeUnit.MILLISECONDS.sleep(10);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
