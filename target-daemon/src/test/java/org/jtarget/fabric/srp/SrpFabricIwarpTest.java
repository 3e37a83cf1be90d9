package org.jtarget.fabric.srp;

import org.jtarget.rdma.TcpProviderFixture;

import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * The same end-to-end cases over the iwarp provider: every SEND, RDMA READ and WRITE crosses a real
 * TCP connection as iWARP frames, and the SRP_LOGIN_REQ, SRP_LOGIN_RSP and SRP_LOGIN_REJ travel in
 * the MPA request's and reply's private data, as between Linux's ib_srp over siw and the target.
 */
class SrpFabricIwarpTest extends SrpFabricTest {

    @Override
    void provider() {
        TcpProviderFixture tcp = new TcpProviderFixture(2);
        provider(tcp.device, tcp.cm, tcp::close);
    }

    @Override
    SocketAddress listenAddress() {
        return new InetSocketAddress("127.0.0.1", 0);
    }
}
