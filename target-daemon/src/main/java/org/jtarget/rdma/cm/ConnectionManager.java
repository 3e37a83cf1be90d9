package org.jtarget.rdma.cm;

import org.jtarget.rdma.QueuePair;
import org.jtarget.rdma.RdmaException;

import java.net.SocketAddress;

/**
 * The connection manager of a provider, after librdmacm (rdma_cm(7)): it finds the peer by address,
 * exchanges private data, and drives both queue pairs through INIT, RTR and RTS, so consumers
 * never set the peer attributes by hand. Connection setup is asynchronous: results arrive as
 * {@link CmEvent}s.
 */
public interface ConnectionManager extends AutoCloseable {

    /** Most private data bytes in a request, accept or reject (IB CM REQ carries 92, REP 196). */
    int MAX_PRIVATE_DATA = 196;

    /** rdma_listen(3): CONNECT_REQUEST events for {@code address} go to {@code handler}. */
    CmListener listen(SocketAddress address, CmEventHandler handler) throws RdmaException;

    /**
     * rdma_connect(3): asks the listener at {@code address} for a connection of {@code qp} (in RESET);
     * ESTABLISHED, REJECTED or UNREACHABLE follows on {@code handler}, then DISCONNECTED.
     */
    CmId connect(SocketAddress address, QueuePair qp, byte[] privateData, CmEventHandler handler)
            throws RdmaException;

    /**
     * As {@link #connect(SocketAddress, QueuePair, byte[], CmEventHandler)}, with the connection's
     * I/O on {@code ioExecutor} when the provider can put it there (one of its own event loops):
     * a consumer that polls its completions on that loop then never hands a message to another
     * thread (a wake-up and a context switch each way). Providers without such loops ignore it.
     */
    default CmId connect(SocketAddress address, QueuePair qp, byte[] privateData, CmEventHandler handler,
                         java.util.concurrent.Executor ioExecutor) throws RdmaException {
        return connect(address, qp, privateData, handler);
    }

    @Override
    void close();

    /** Checks the private data size (rdma_accept(3), rdma_connect(3)); returns a copy. */
    static byte[] checkPrivateData(byte[] privateData) throws RdmaException {
        byte[] data = privateData == null ? new byte[0] : privateData.clone();
        if (data.length > MAX_PRIVATE_DATA) {
            throw new RdmaException(org.jtarget.rdma.Errno.EINVAL, "private data above " + MAX_PRIVATE_DATA + " bytes");
        }
        return data;
    }
}
