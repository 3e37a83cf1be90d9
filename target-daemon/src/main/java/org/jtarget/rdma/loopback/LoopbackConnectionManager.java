package org.jtarget.rdma.loopback;

import org.jtarget.rdma.Errno;
import org.jtarget.rdma.QueuePair;
import org.jtarget.rdma.QueuePairState;
import org.jtarget.rdma.RdmaException;
import org.jtarget.rdma.cm.CmEvent;
import org.jtarget.rdma.cm.CmEventHandler;
import org.jtarget.rdma.cm.CmEventType;
import org.jtarget.rdma.cm.CmId;
import org.jtarget.rdma.cm.CmListener;
import org.jtarget.rdma.cm.ConnectionManager;
import org.jtarget.rdma.cm.QueuePairBringUp;

import java.net.SocketAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The connection manager of a {@link LoopbackDevice}: addresses are just names in this manager (any
 * {@link SocketAddress}); both ends use the same manager. Events are delivered on one event thread,
 * in order, like a librdmacm event channel.
 */
public final class LoopbackConnectionManager implements ConnectionManager {

    private static final byte[] NONE = new byte[0];

    private final LoopbackDevice device;
    private final ConcurrentHashMap<SocketAddress, CmEventHandler> listeners = new ConcurrentHashMap<>();
    private final ExecutorService events = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "rdma-loopback-cm");
        t.setDaemon(true);
        return t;
    });

    public LoopbackConnectionManager(LoopbackDevice device) {
        this.device = device;
    }

    @Override
    public CmListener listen(SocketAddress address, CmEventHandler handler) throws RdmaException {
        if (listeners.putIfAbsent(address, handler) != null) {
            throw new RdmaException(Errno.EINVAL, "address in use: " + address);
        }
        return new CmListener() {
            @Override
            public SocketAddress localAddress() {
                return address;
            }

            @Override
            public void close() {
                listeners.remove(address, handler);
            }
        };
    }

    @Override
    public CmId connect(SocketAddress address, QueuePair qp, byte[] privateData, CmEventHandler handler)
            throws RdmaException {
        byte[] data = ConnectionManager.checkPrivateData(privateData);
        if (qp.device() != device || qp.state() != QueuePairState.RESET && qp.state() != QueuePairState.INIT) {
            throw new RdmaException(Errno.EINVAL, "queue pair must be of this device, in RESET or INIT");
        }
        End client = new End(qp, handler, address);
        events.execute(() -> {
            CmEventHandler listener = listeners.get(address);
            if (listener == null) {
                handler.onEvent(new CmEvent(CmEventType.UNREACHABLE, client, NONE));
                return;
            }
            End server = new End(null, listener, address);
            server.peer = client;
            client.peer = server;
            listener.onEvent(new CmEvent(CmEventType.CONNECT_REQUEST, server, data));
        });
        return client;
    }

    @Override
    public void close() {
        listeners.clear();
        events.shutdown();
    }

    /** One end of a connection. */
    private final class End implements CmId {
        private volatile QueuePair qp;
        private final CmEventHandler handler;
        private final SocketAddress address;
        private volatile End peer;
        private boolean connected;

        End(QueuePair qp, CmEventHandler handler, SocketAddress address) {
            this.qp = qp;
            this.handler = handler;
            this.address = address;
        }

        @Override
        public QueuePair queuePair() {
            return qp;
        }

        @Override
        public SocketAddress remoteAddress() {
            return address;
        }

        @Override
        public void accept(QueuePair serverQp, byte[] privateData) throws RdmaException {
            byte[] data = ConnectionManager.checkPrivateData(privateData);
            End client = peer;
            QueuePairBringUp.toReadyToSend(serverQp, client.qp.qpNum());
            QueuePairBringUp.toReadyToSend(client.qp, serverQp.qpNum());
            this.qp = serverQp;
            synchronized (LoopbackConnectionManager.this) {
                connected = true;
                client.connected = true;
            }
            events.execute(() -> {
                client.handler.onEvent(new CmEvent(CmEventType.ESTABLISHED, client, data));
                handler.onEvent(new CmEvent(CmEventType.ESTABLISHED, this, NONE));
            });
        }

        @Override
        public void reject(byte[] privateData) {
            byte[] data = privateData == null ? NONE : privateData.clone();
            End client = peer;
            events.execute(() -> client.handler.onEvent(new CmEvent(CmEventType.REJECTED, client, data)));
        }

        @Override
        public void disconnect() {
            End other = peer;
            synchronized (LoopbackConnectionManager.this) {
                if (!connected) {
                    return;
                }
                connected = false;
                other.connected = false;
            }
            toError(qp);
            toError(other.qp);
            events.execute(() -> {
                handler.onEvent(new CmEvent(CmEventType.DISCONNECTED, this, NONE));
                other.handler.onEvent(new CmEvent(CmEventType.DISCONNECTED, other, NONE));
            });
        }

        private static void toError(QueuePair q) {
            try {
                q.modify(org.jtarget.rdma.QueuePairAttributes.to(QueuePairState.ERROR));
            } catch (RdmaException e) {
                throw new IllegalStateException("every state may move to ERROR", e);
            }
        }
    }
}
