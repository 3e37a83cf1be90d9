package org.jtarget.rdma.cm;

import org.jtarget.rdma.QueuePair;
import org.jtarget.rdma.RdmaException;

import java.net.SocketAddress;
import java.util.concurrent.Executor;

/** One connection end, after librdmacm {@code struct rdma_cm_id}. */
public interface CmId {

    /** The queue pair bound to this connection, or null before accept. */
    QueuePair queuePair();

    /** The peer's address. */
    SocketAddress remoteAddress();

    /**
     * rdma_accept(3): binds {@code qp} (in RESET) to the requesting peer, moves it to RTS and sends the
     * private data; both sides then get ESTABLISHED.
     */
    void accept(QueuePair qp, byte[] privateData) throws RdmaException;

    /** rdma_reject(3): the requester gets REJECTED with the private data. */
    void reject(byte[] privateData);

    /** rdma_disconnect(3): both queue pairs move to ERROR; both sides get DISCONNECTED. */
    void disconnect();

    /**
     * The thread that moves this connection's bytes, when the provider has one (an emulated
     * provider over a socket: the socket's event loop), else null (hardware). A consumer that posts
     * its requests and polls its completions there saves a thread hand-over per request and per
     * completion.
     */
    default Executor ioExecutor() {
        return null;
    }
}
