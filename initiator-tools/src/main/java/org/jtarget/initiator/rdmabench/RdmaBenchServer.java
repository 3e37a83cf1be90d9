package org.jtarget.initiator.rdmabench;

import io.netty.channel.EventLoopGroup;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import org.jtarget.buffer.BufferPool;
import org.jtarget.rdma.cm.CmListener;
import org.jtarget.rdma.tcp.TcpConnectionManager;
import org.jtarget.rdma.tcp.TcpDevice;

/**
 * The second process of {@code rdma-bench}: a tcp-provider listener with a {@link BenchTarget} and a
 * baseline TCP stream server. Prints {@code rdma-bench-server rdma=PORT tcp=PORT} and runs until its
 * standard input closes (the parent exits or is done).
 */
public final class RdmaBenchServer {

    private RdmaBenchServer() {
    }

    public static void main(String[] args) throws Exception {
        EventLoopGroup group = TcpConnectionManager.newEventLoopGroup(1);
        BenchMemory memory = BenchMemory.map(1);
        TcpDevice device = new TcpDevice("tcp0", TcpDevice.DEFAULT_ATTRIBUTES, memory.policy(), group,
                new BufferPool(1).allocator());
        try (memory;
             TcpConnectionManager cm = new TcpConnectionManager(device);
             ServerSocketChannel baseline = TcpBaseline.open()) {
            BenchTarget target = new BenchTarget(device, memory.region(0));
            CmListener listener = cm.listen(new InetSocketAddress("127.0.0.1", 0), target::onEvent);
            TcpBaseline.serve(baseline);
            System.out.println("rdma-bench-server rdma=" + ((InetSocketAddress) listener.localAddress()).getPort()
                    + " tcp=" + ((InetSocketAddress) baseline.getLocalAddress()).getPort());
            System.out.flush();
            waitForEndOfInput();
        } finally {
            group.shutdownGracefully();
        }
    }

    private static void waitForEndOfInput() {
        try {
            while (System.in.read() >= 0) {
                // the parent keeps the pipe open while it measures
            }
        } catch (IOException e) {
            // parent gone
        }
    }
}
