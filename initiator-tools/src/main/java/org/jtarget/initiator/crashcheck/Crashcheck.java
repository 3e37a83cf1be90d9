package org.jtarget.initiator.crashcheck;

import java.io.IOException;
import java.io.PrintStream;
import org.jtarget.initiator.cli.CliFailure;

/**
 * Entry point of {@code jtarget-initiator crashcheck write|verify} (see the package comment):
 *
 * <pre>
 * jtarget-initiator crashcheck write  --url URL [--url URL...] --journal FILE [--seconds N]
 *                                     [--mode fua|sync|none] [--lba N] [--blocks N]
 * jtarget-initiator crashcheck verify --url URL [--url URL...] --journal FILE
 * </pre>
 *
 * URL is an iscsi://, iser:// or srp:// one: the same checks over every transport. Several URLs
 * are paths to one LU, as multipath uses them (an HA pair's nodes, {@link PathSet}): {@code write}
 * moves to the next path when one fails (lost connection, refused login, ALUA NOT READY) and sends
 * the unacknowledged write again there, until {@code --seconds} end; {@code verify} reads through
 * the first path that answers.
 * Exit codes are the CLI's: 0 ok; 1 verify found lost blocks; 2 usage; 3 login failed; 4 CHECK
 * CONDITION; 5 connection lost (the write run ends there, its journal intact), I/O or journal error.
 */
public final class Crashcheck {

    private Crashcheck() {
    }

    /** Whether a command line is a crashcheck one. */
    public static boolean handles(String[] args) {
        return args.length > 0 && args[0].equals(CrashcheckArguments.WORD);
    }

    /** Runs {@code args} (starting with {@code crashcheck}); failures carry the exit code. */
    public static void run(String[] args, PrintStream out) throws IOException, CliFailure {
        CrashcheckArguments a = CrashcheckArguments.parse(args);
        switch (a.action()) {
            case WRITE -> CrashWriter.run(a, out);
            case VERIFY -> CrashVerifier.run(a, out);
        }
    }
}
