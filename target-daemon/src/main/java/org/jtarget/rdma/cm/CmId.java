package org.jtarget.rdma.cm;

import org.jtarget.rdma.QueuePair;
import org.jtarget.rdma.RdmaException;

import java.net.SocketAddress;

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
}
