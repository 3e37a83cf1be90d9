package org.jtarget.initiator.rping;

import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import org.jtarget.initiator.cli.CliFailure;
import org.jtarget.rdma.cm.CmId;
import org.jtarget.rdma.iwarp.ReadyToReceive;
import org.jtarget.rdma.iwarp.TcpConnectionManager;

/**
 * Entry point of {@code jtarget-initiator rping -s|-c ...} ({@link RpingArguments}): rdma-core's
 * rping over the daemon's emulated RDMA provider. Exit codes as the other commands': 0 when every
 * ping went through (the server: when its client disconnected after its pings), 1 when data came
 * back different with {@code -V}, 2 for a bad command line, 3 when the client cannot connect, 5 when
 * a work request failed, the connection went down or nothing completed within {@link #TIMEOUT}.
 */
public final class Rping {

    /** The longest wait for the connection and for each completion once connected. */
    static final Duration TIMEOUT = Duration.ofSeconds(30);

    private Rping() {
    }

    /**
     * Prints, for a connection opened in RFC 6581's peer-to-peer mode, which ready-to-receive message
     * opened it ({@code rping: peer-to-peer mode, RTR zero-length RDMA READ}); nothing in client-server mode.
     */
    static void sayReadyToReceive(CmId id, PrintStream out) {
        ReadyToReceive rtr = TcpConnectionManager.readyToReceive(id);
        if (rtr != ReadyToReceive.NONE) {
            out.println("rping: peer-to-peer mode, RTR zero-length "
                    + (rtr == ReadyToReceive.SEND ? "SEND" : "RDMA " + rtr));
        }
    }

    /** Whether a command line is an rping one. */
    public static boolean handles(String[] args) {
        return args.length > 0 && args[0].equals(RpingArguments.WORD);
    }

    /** Runs {@code args} (starting with {@code rping}). */
    public static void run(String[] args, PrintStream out, PrintStream err) throws IOException, CliFailure {
        RpingArguments a = RpingArguments.parse(args);
        try {
            if (a.server()) {
                try (RpingServer server = RpingServer.listen(a, out, err, TIMEOUT)) {
                    server.serve();
                }
            } else {
                RpingClient.run(a, out, TIMEOUT);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CliFailure(CliFailure.IO_ERROR, "rping: interrupted");
        } catch (CliFailure e) {
            throw e.exitCode() == CliFailure.USAGE ? e : new CliFailure(e.exitCode(), "rping: " + e.getMessage());
        } finally {
            out.flush();
        }
    }
}
