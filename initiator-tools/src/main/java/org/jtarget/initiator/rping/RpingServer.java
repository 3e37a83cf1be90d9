package org.jtarget.initiator.rping;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.Consumer;
import org.jtarget.initiator.cli.CliFailure;
import org.jtarget.initiator.rdma.TcpProviderStack;
import org.jtarget.rdma.RdmaException;
import org.jtarget.rdma.cm.CmEvent;
import org.jtarget.rdma.cm.CmEventType;
import org.jtarget.rdma.cm.CmListener;

/**
 * rping's server: accepts a client, then for each ping waits for the advertisement of the client's
 * source, RDMA READs it into its own buffer, SENDs a go-ahead, waits for the advertisement of the
 * client's sink, RDMA WRITEs the data back (up to and with its first NUL, as rping does), and SENDs
 * a go-ahead again, until the client disconnects. With {@code -V} it checks the data it read against
 * rping's pattern for that ping number; with {@code -v} it prints {@code server ping data: <data>}.
 * With {@code -P} it serves the next client after each one, one at a time (rping's own serves them
 * at once, each on a thread); later clients wait in the listen queue meanwhile.
 */
public final class RpingServer implements AutoCloseable {

    private final RpingArguments args;
    private final PrintStream out;
    private final PrintStream err;
    private final Duration timeout;
    private final TcpProviderStack stack;
    private final PingBuffers buffers;
    private final BlockingQueue<CmEvent> requests = new LinkedBlockingQueue<>();
    private final CmListener listener;
    private Consumer<MemorySegment> beforeWrite = data -> { };

    private RpingServer(RpingArguments args, PrintStream out, PrintStream err, Duration timeout,
                        TcpProviderStack stack) throws RdmaException {
        this.args = args;
        this.out = out;
        this.err = err;
        this.timeout = timeout;
        this.stack = stack;
        this.buffers = PingBuffers.register(stack.device(), stack.memory().segment(), args.size(), false);
        this.listener = stack.connectionManager().listen(new InetSocketAddress(args.address(), args.port()), e -> {
            if (e.type() == CmEventType.CONNECT_REQUEST) {
                requests.add(e);
            }
        });
    }

    /**
     * Listens at {@code a.address():a.port()} and says so on {@code err}
     * ({@code rping: server listening on ADDR:PORT}, with the port picked when {@code -p 0}).
     */
    public static RpingServer listen(RpingArguments a, PrintStream out, PrintStream err, Duration timeout)
            throws IOException, CliFailure {
        TcpProviderStack stack = TcpProviderStack.open(PingBuffers.memoryBytes(a.size()));
        stack.connectionManager().requestCrc(a.crc());
        try {
            RpingServer s = new RpingServer(a, out, err, timeout, stack);
            err.println("rping: server listening on " + a.address() + ":" + s.port());
            err.flush();
            return s;
        } catch (RdmaException e) {
            stack.close();
            throw new CliFailure(CliFailure.IO_ERROR, "cannot set up the server: " + e.getMessage());
        }
    }

    /** The port listened on. */
    public int port() {
        return ((InetSocketAddress) listener.localAddress()).getPort();
    }

    /** Replaces the data just before it is written back (tests: a server that corrupts it). */
    void beforeWrite(Consumer<MemorySegment> hook) {
        this.beforeWrite = hook;
    }

    /**
     * Serves one client (with {@code -P}, one after another for ever); returns when that client has
     * disconnected.
     *
     * @throws CliFailure as soon as a session fails (with {@code -P}, it is reported on {@code err}
     *                    and the next client is served)
     */
    public void serve() throws CliFailure, InterruptedException {
        do {
            CmEvent request = requests.take();
            try {
                int pings = session(request);
                err.println("rping: client " + request.id().remoteAddress() + " disconnected after " + pings
                        + " pings");
            } catch (CliFailure e) {
                if (!args.persistent()) {
                    throw e;
                }
                err.println("rping: client " + request.id().remoteAddress() + ": " + e.getMessage());
            }
            err.flush();
        } while (args.persistent());
    }

    /** Accepts {@code request} and runs pings until the client disconnects; returns how many. */
    private int session(CmEvent request) throws CliFailure {
        PingConnection c;
        try {
            c = PingConnection.create(stack.device(), buffers, timeout);
            request.id().accept(c.queuePair(), null);
        } catch (RdmaException e) {
            request.id().reject(null);
            throw new CliFailure(CliFailure.IO_ERROR, "cannot accept the client: " + e.getMessage());
        }
        int ping = 0;
        try {
            while (true) {
                RdmaInfo source;
                try {
                    source = c.receive("ping " + ping + ": the advertisement of the client's source");
                } catch (ConnectionClosed e) {
                    return ping; // rping's client disconnects after its last ping
                }
                if (ping == 0) {
                    Rping.sayReadyToReceive(request.id(), err); // known once the first SEND came
                }
                pong(c, source, ping);
                ping++;
            }
        } finally {
            request.id().disconnect();
            c.destroy();
        }
    }

    /** The rest of one round: READ, check, go-ahead, WRITE back, go-ahead. */
    private void pong(PingConnection c, RdmaInfo source, int ping) throws CliFailure {
        if (source.unsignedSize() > buffers.size || source.size() == 0) {
            throw new CliFailure(CliFailure.IO_ERROR, "ping " + ping + ": the client's buffer is "
                    + source.unsignedSize() + " bytes, this server's -S is " + buffers.size);
        }
        int size = source.size();
        c.read(source, size, "ping " + ping + ": the RDMA READ of " + source);
        MemorySegment data = buffers.sink.segment();
        if (args.validate()) {
            long at = PingPattern.firstMismatch(data, ping, size);
            if (at >= 0) {
                throw new CliFailure(CliFailure.MISCOMPARE, String.format(
                        "ping %d: byte %d of the %d read is 0x%02x, not rping's pattern: \"%s\"", ping, at, size,
                        data.get(ValueLayout.JAVA_BYTE, at), PingPattern.text(data, size)));
            }
        }
        if (args.verbose()) {
            out.println("server ping data: " + PingPattern.text(data, size));
        }
        c.sendGoAhead("ping " + ping + ": the go-ahead after the RDMA READ");
        RdmaInfo sink = c.receive("ping " + ping + ": the advertisement of the client's sink");
        int length = Math.min(PingPattern.cStringLength(data, size) + 1, size);
        if (Integer.toUnsignedLong(length) > sink.unsignedSize()) {
            throw new CliFailure(CliFailure.IO_ERROR, "ping " + ping + ": the client's sink (" + sink
                    + ") is smaller than the " + length + " bytes to write back");
        }
        beforeWrite.accept(data);
        c.write(sink, length, "ping " + ping + ": the RDMA WRITE to " + sink);
        c.sendGoAhead("ping " + ping + ": the go-ahead after the RDMA WRITE");
    }

    /** Stops listening and closes every connection (a client still pinging sees its connection go down). */
    @Override
    public void close() {
        stack.close();
    }
}
