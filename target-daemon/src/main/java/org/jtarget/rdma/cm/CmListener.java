package org.jtarget.rdma.cm;

import java.net.SocketAddress;

/** A listening endpoint (rdma_listen(3)). Closing it stops new requests; connections stay. */
public interface CmListener extends AutoCloseable {

    /** The address actually bound (with the port chosen when 0 was asked). */
    SocketAddress localAddress();

    @Override
    void close();
}
