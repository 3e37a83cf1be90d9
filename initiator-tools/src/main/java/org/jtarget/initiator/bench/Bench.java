package org.jtarget.initiator.bench;

import java.io.IOException;
import java.io.PrintStream;
import org.jtarget.initiator.cli.CliFailure;

/**
 * Entry point of {@code jtarget-initiator bench} (see the package comment):
 *
 * <pre>
 * jtarget-initiator bench --url URL [--sessions N] [--qd N] [--rw read|write|rw|randread|randwrite|randrw]
 *                         [--rwmixread PCT] [--bs SIZE] [--seconds N] [--ramp SECONDS] [--lba N] [--blocks N]
 *                         [--initiator-name IQN] [--digests] [--timeout SECONDS]
 * </pre>
 *
 * URL is an iscsi://, iser:// or srp:// one (for srp:// {@code --initiator-name} is an SRP port name).
 * Exit codes are the CLI's: 0 every command ended GOOD; 2 usage; 3 login failed; 4 a command
 * ended in CHECK CONDITION; 5 connection lost, I/O or protocol error (the report is printed first).
 */
public final class Bench {

    private Bench() {
    }

    /** Whether a command line is a bench one. */
    public static boolean handles(String[] args) {
        return args.length > 0 && args[0].equals(BenchArguments.WORD);
    }

    /** Runs {@code args} (starting with {@code bench}); failures carry the exit code. */
    public static void run(String[] args, PrintStream out) throws IOException, CliFailure {
        BenchRun.run(BenchArguments.parse(args), out);
    }
}
