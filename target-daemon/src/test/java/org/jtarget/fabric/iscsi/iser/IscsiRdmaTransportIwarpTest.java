package org.jtarget.fabric.iscsi.iser;

import org.jtarget.rdma.TcpProviderFixture;

import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * The same end-to-end cases over the iwarp provider: initiator and target queue pairs in one
 * process, but every SEND, RDMA READ and WRITE crosses a real TCP connection as iWARP frames
 * (MPA, DDP, RDMAP), with the iSER CM headers in the MPA request and reply.
 */
class IscsiRdmaTransportIwarpTest extends IscsiRdmaTransportTest {

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
