package org.jtarget.initiator.rping;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jtarget.initiator.cli.CliFailure;
import org.jtarget.initiator.rdma.TcpProviderStack;
import org.jtarget.rdma.RdmaException;
import org.jtarget.rdma.cm.CmEvent;
import org.jtarget.rdma.cm.CmEventType;
import org.jtarget.rdma.cm.CmId;

/**
 * rping's client: for each ping it fills its source buffer with rping's data for that ping
 * ({@link PingPattern}), SENDs where it is, waits for the server's go-ahead (the server has RDMA
 * READ it by then), SENDs where its sink is, waits for the second go-ahead (the server has RDMA
 * WRITTEN the data back by then), then with {@code -V} compares sink and source, with {@code -v}
 * prints {@code ping data: <sink>}. After the last ping it disconnects.
 */
final class RpingClient {

    private RpingClient() {
    }

    /**
     * Runs {@code a}'s pings against the server at {@code a.address():a.port()}.
     *
     * @throws CliFailure {@link CliFailure#LOGIN_FAILED} when the server cannot be reached or rejects
     *                    the connection, {@link CliFailure#MISCOMPARE} when data came back different,
     *                    {@link CliFailure#IO_ERROR} when a work request failed, the connection went
     *                    down or nothing completed within {@code timeout}
     */
    static void run(RpingArguments a, PrintStream out, Duration timeout) throws CliFailure, IOException {
        InetSocketAddress server = new InetSocketAddress(a.address(), a.port());
        if (server.isUnresolved()) {
            throw new CliFailure(CliFailure.LOGIN_FAILED, "unknown host " + a.address());
        }
        try (TcpProviderStack stack = TcpProviderStack.open(PingBuffers.memoryBytes(a.size()))) {
            stack.connectionManager().requestCrc(a.crc());
            stack.connectionManager().requestPeerToPeer(a.peerToPeer());
            PingBuffers buffers = PingBuffers.register(stack.device(), stack.memory().segment(), a.size(), true);
            PingConnection c = PingConnection.create(stack.device(), buffers, timeout);
            CmId id = connect(stack, c, server, timeout);
            Rping.sayReadyToReceive(id, out);
            try {
                for (int ping = 0; a.count() == 0 || ping < a.count(); ping++) {
                    ping(c, buffers, ping, a);
                    if (a.verbose()) {
                        out.println("ping data: " + PingPattern.text(buffers.sink.segment(), a.size()));
                    }
                }
            } finally {
                id.disconnect();
            }
        } catch (RdmaException e) {
            throw new CliFailure(CliFailure.IO_ERROR, "cannot set up the client: " + e.getMessage());
        }
    }

    /** One round of rping's protocol; checks the data with {@code -V}. */
    private static void ping(PingConnection c, PingBuffers b, int ping, RpingArguments a) throws CliFailure {
        PingPattern.fill(b.source.segment(), ping, a.size());
        b.sink.segment().fill((byte) 0); // so that a WRITE that never happened cannot pass for one
        c.sendInfo(PingBuffers.describe(b.source, a.size()), "ping " + ping + ": the advertisement of the source");
        c.receive("ping " + ping + ": the server's go-ahead after its RDMA READ");
        c.sendInfo(PingBuffers.describe(b.sink, a.size()), "ping " + ping + ": the advertisement of the sink");
        c.receive("ping " + ping + ": the server's go-ahead after its RDMA WRITE");
        if (a.validate()) {
            MemorySegment sent = b.source.segment();
            MemorySegment back = b.sink.segment();
            long at = sent.mismatch(back);
            if (at >= 0) {
                throw new CliFailure(CliFailure.MISCOMPARE, String.format(
                        "ping %d: data mismatch at byte %d of %d: sent 0x%02x, the server wrote back 0x%02x",
                        ping, at, a.size(), sent.get(ValueLayout.JAVA_BYTE, at), back.get(ValueLayout.JAVA_BYTE, at)));
            }
        }
    }

    /**
     * rdma_connect: waits for the answer at most {@code timeout}. The connection manager's connect
     * blocks until TCP is up, so it runs aside and the timeout bounds it; closing the stack ends it.
     */
    private static CmId connect(TcpProviderStack stack, PingConnection c, InetSocketAddress server, Duration timeout)
            throws CliFailure {
        CompletableFuture<CmEvent> answer = new CompletableFuture<>();
        Thread.ofVirtual().name("rping-connect").start(() -> {
            try {
                stack.connectionManager().connect(server, c.queuePair(), null, answer::complete);
            } catch (RdmaException | RuntimeException e) {
                answer.completeExceptionally(e);
            }
        });
        CmEvent e;
        try {
            e = answer.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (ExecutionException ex) {
            throw refused(server, ex.getCause().getMessage());
        } catch (TimeoutException ex) {
            throw refused(server, "no answer within " + timeout.toSeconds() + " s");
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw refused(server, "interrupted");
        }
        if (e.type() != CmEventType.ESTABLISHED) {
            throw refused(server, e.type() == CmEventType.REJECTED ? "the server rejected the connection"
                    : "nothing answers there (" + e.type() + ")");
        }
        return e.id();
    }

    private static CliFailure refused(InetSocketAddress server, String why) {
        return new CliFailure(CliFailure.LOGIN_FAILED, "cannot connect to " + server.getHostString() + ":"
                + server.getPort() + ": " + why);
    }
}
