package org.jtarget.initiator.cli;

import java.io.IOException;
import java.io.PrintStream;
import org.jtarget.initiator.bench.Bench;
import org.jtarget.initiator.crashcheck.Crashcheck;
import org.jtarget.initiator.rdmabench.RdmaBench;
import org.jtarget.initiator.rping.Rping;

/**
 * {@code jtarget-initiator COMMAND URL [OPTIONS]}: a small iSCSI initiator for checking a target
 * by hand or from scripts. Exit codes: 0 ok, 1 verify miscompare (data mismatch, also
 * {@code crashcheck verify} finding lost blocks), 2 usage (bad URL or option), 3 login failed,
 * 4 SCSI CHECK CONDITION, 5 connection, I/O or protocol error (also a connection lost during
 * {@code crashcheck write}).
 *
 * <p>Every command that takes an iSCSI URL also takes {@code iser://HOST[:PORT]/IQN/LUN}: the same
 * session over an iSER portal (RFC 7145) of the emulated iwarp provider, data placed by the target
 * with RDMA in registered buffers ({@link org.jtarget.initiator.iser.IserChannel}); {@code --digests}
 * is a usage error there.
 *
 * <p>Every command but {@code discover} also takes {@code srp://HOST[:PORT]/TARGET_PORT_ID/LUN}
 * (port {@value SrpUrl#DEFAULT_PORT} by default): an SRP target port (T10 SRP r16a) over the same
 * provider, the same SCSI commands in SRP_CMD IUs whose data the target moves by RDMA
 * ({@link org.jtarget.initiator.srp.SrpChannel}); {@code --initiator-name} is then our SRP initiator
 * port name ("0x" and 32 hex digits), {@code --digests} a usage error, and a refused login exit 3 with
 * the SRP_LOGIN_REJ reason in words.
 *
 * <p>{@code readcap}, {@code read}, {@code write} and {@code verify} also take
 * {@code rdma://HOST[:PORT]/ENDPOINT} (port 4791 by default): a store endpoint of the daemon's RDMA
 * listener over the emulated iwarp provider, read and written one-sided with RDMA READ/WRITE
 * ({@link org.jtarget.initiator.rdma.StoreEndpointClient}), with the same options, output and exit
 * codes: 3 when nothing listens, the host is unreachable or the endpoint rejects the connection
 * (unknown endpoint, peer not allowed; the reason is printed), 4 when the endpoint refuses an access
 * (REM_ACCESS_ERR: a write to a read-only endpoint), 5 on a store I/O error at the target
 * (REM_OP_ERR), a lost connection or a timeout. A range past the endpoint's end is a usage error
 * (2), checked before anything moves. {@code --fua}, {@code --digests} and {@code --initiator-name}
 * mean nothing there and are usage errors, as are {@code discover} and {@code inquiry};
 * {@code --timeout} bounds the connection and each completion.
 *
 * <p>{@code crashcheck write|verify} ({@link Crashcheck}) has its own {@code --url} form of
 * command line and shares the exit codes, as does {@code bench} ({@link Bench}, a load generator:
 * 4 when a command ended in CHECK CONDITION, 5 when a connection was lost). {@code rdma-bench}
 * ({@link RdmaBench}) measures the emulated RDMA providers against plain TCP (5 on a failure).
 * {@code rping -s|-c} ({@link Rping}) is rdma-core's rping over the emulated provider: 1 when data
 * came back different, 3 when the client cannot connect, 5 when a work request or the connection failed.
 */
public final class JtargetInitiator {

    private JtargetInitiator() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs one command line; returns the exit code. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        if (args.length == 1 && (args[0].equals("--help") || args[0].equals("-h"))) {
            out.println(CliArguments.USAGE);
            out.println("       jtarget-initiator COMMAND --help describes one command and all its options.");
            return 0;
        }
        if (CommandHelp.asked(args)) {
            out.println(CommandHelp.of(args[0]));
            return 0;
        }
        try {
            if (Crashcheck.handles(args)) {
                Crashcheck.run(args, out);
            } else if (Bench.handles(args)) {
                Bench.run(args, out);
            } else if (RdmaBench.handles(args)) {
                RdmaBench.run(args, out);
            } else if (Rping.handles(args)) {
                Rping.run(args, out, err);
            } else {
                CliArguments a = CliArguments.parse(args);
                if (a.rdmaUrl() != null) {
                    try (RdmaBlockDevice d = RdmaBlockDevice.open(a.rdmaUrl(), a.timeout(), err)) {
                        transfer(d, a, out);
                    }
                } else if (a.command() == Command.DISCOVER) {
                    try (InitiatorSession s = InitiatorSession.open(a.url(), a.initiatorName(), a.digests(), a.timeout())) {
                        Commands.discover(s, out);
                    }
                } else {
                    try (ScsiSession s = ScsiSession.open(a.scsiUrl(), a.initiatorName(), a.digests(), a.timeout())) {
                        dispatch(s, a, out);
                    }
                }
            }
            out.flush();
            return 0;
        } catch (CliFailure e) {
            out.flush();
            err.println("jtarget-initiator: " + e.getMessage());
            if (e.exitCode() == CliFailure.USAGE) {
                err.println(CliArguments.USAGE);
            }
            return e.exitCode();
        } catch (IOException | RuntimeException e) {
            out.flush();
            err.println("jtarget-initiator: " + e);
            return CliFailure.IO_ERROR;
        }
    }

    private static void dispatch(ScsiSession s, CliArguments a, PrintStream out) throws IOException, CliFailure {
        if (a.command() == Command.INQUIRY) {
            Commands.inquiry(s, a, out);
        } else {
            transfer(new ScsiBlockDevice(s, a.fua()), a, out);
        }
    }

    /** The commands that work on any {@link BlockDevice} ({@link Command#onStoreEndpoints()}). */
    private static void transfer(BlockDevice d, CliArguments a, PrintStream out) throws IOException, CliFailure {
        switch (a.command()) {
            case READCAP -> Commands.readcap(d, out);
            case READ -> Commands.read(d, a, out);
            case WRITE -> Commands.write(d, a, out);
            case VERIFY -> Commands.verify(d, a, out);
            default -> throw new IllegalArgumentException(a.command().word() + " needs a SCSI session");
        }
    }
}
