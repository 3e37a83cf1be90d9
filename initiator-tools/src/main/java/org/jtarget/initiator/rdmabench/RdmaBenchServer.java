package org.jtarget.initiator.rdmabench;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import org.jtarget.initiator.rdma.TcpProviderStack;
import org.jtarget.rdma.cm.CmListener;

/**
 * The second process of {@code rdma-bench}: a iwarp-provider listener with a {@link BenchTarget} and a
 * baseline TCP stream server. Prints {@code rdma-bench-server rdma=PORT tcp=PORT} and runs until its
 * standard input closes (the parent exits or is done).
 */
public final class RdmaBenchServer {

    private RdmaBenchServer() {
    }

    public static void main(String[] args) throws Exception {
        try (TcpProviderStack stack = TcpProviderStack.open(BenchTarget.REGION_BYTES);
             ServerSocketChannel baseline = TcpBaseline.open()) {
            BenchMemory.sayIfUnpinned(stack.memory());
            BenchTarget target = new BenchTarget(stack.device(), stack.memory().segment());
            CmListener listener = stack.connectionManager().listen(new InetSocketAddress("127.0.0.1", 0),
                    target::onEvent);
            TcpBaseline.serve(baseline);
            System.out.println("rdma-bench-server rdma=" + ((InetSocketAddress) listener.localAddress()).getPort()
                    + " tcp=" + ((InetSocketAddress) baseline.getLocalAddress()).getPort());
            System.out.flush();
            waitForEndOfInput();
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
