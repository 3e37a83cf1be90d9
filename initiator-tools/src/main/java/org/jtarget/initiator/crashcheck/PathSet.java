package org.jtarget.initiator.crashcheck;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import org.jtarget.initiator.cli.Capacity;
import org.jtarget.initiator.cli.CliFailure;
import org.jtarget.initiator.cli.ScsiSession;
import org.jtarget.initiator.cli.SenseText;
import org.jtarget.initiator.raw.ScsiCdbs;
import org.jtarget.initiator.raw.ScsiResult;

/**
 * The paths crashcheck reaches its LU through (each {@code --url}), used as a multipath initiator
 * uses an ALUA LU's paths: one session at a time, on the current path, opened when first needed
 * (login, then READ CAPACITY, which must give the same geometry on every path: they are one LU).
 *
 * <p>A command's outcome is sorted here ({@link #run}): a UNIT ATTENTION is retried on the same
 * path (the command was not executed, SAM-5 5.14; up to {@link ScsiSession#UNIT_ATTENTION_TRIES}
 * times); a lost connection, a refused login or NOT READY with ASC 04h and ASCQ 0Ah/0Bh/0Ch (ALUA
 * transition, standby, unavailable) is a {@link PathFailure}, after which the caller may move on
 * with {@link #next} (round robin, a pause after every full round of failed paths); any other bad
 * status is a {@link CliFailure}, as with one path.
 */
final class PathSet implements AutoCloseable {

    /** Opens a session on one path (login; the CLI's {@link ScsiSession#open}); tests give their own. */
    @FunctionalInterface
    interface Opener {
        ScsiSession open(LunPath path) throws IOException, CliFailure;
    }

    /** One SCSI command on a session, without its status checked. */
    @FunctionalInterface
    interface Command {
        ScsiResult run(ScsiSession s) throws IOException;
    }

    /** Waits between rounds; tests give their own. */
    @FunctionalInterface
    interface Pause {
        void pause(Duration d) throws InterruptedException;
    }

    /** How long to wait after every path failed once in a row, before trying them again. */
    static final Duration ROUND_PAUSE = Duration.ofMillis(200);
    /** SPC-4 4.5.6: sense keys NOT READY, UNIT ATTENTION, ILLEGAL REQUEST. */
    static final int NOT_READY = 0x2;
    static final int UNIT_ATTENTION = 0x6;
    static final int ILLEGAL_REQUEST = 0x5;
    /** ASC 04h LOGICAL UNIT NOT ACCESSIBLE / NOT READY, and the ALUA qualifiers (SPC-4 5.15.2.4). */
    static final int LU_NOT_READY = 0x04;
    static final int ASYMMETRIC_ACCESS_STATE_TRANSITION = 0x0A;
    static final int TARGET_PORT_IN_STANDBY_STATE = 0x0B;
    static final int TARGET_PORT_IN_UNAVAILABLE_STATE = 0x0C;

    private final List<LunPath> paths;
    private final Opener opener;
    private final PrintStream out;
    private final Duration roundPause;
    private final Pause pause;
    private int current;
    private ScsiSession session;
    private Capacity capacity;
    /** Path failures since a command last succeeded; every {@code paths.size()} of them, a pause. */
    private int failuresInRow;
    private long switches;

    PathSet(List<LunPath> paths, Opener opener, PrintStream out, Duration roundPause, Pause pause) {
        if (paths.isEmpty()) {
            throw new IllegalArgumentException("no path");
        }
        this.paths = List.copyOf(paths);
        this.opener = opener;
        this.out = out;
        this.roundPause = roundPause;
        this.pause = pause;
    }

    /** The paths of {@code args}, opened as the CLI opens a session, with {@link #ROUND_PAUSE}. */
    static PathSet of(CrashcheckArguments args, PrintStream out) {
        return new PathSet(args.paths(), p -> ScsiSession.open(p.url(), p.initiatorName(), args.digests(),
                args.timeout()), out, ROUND_PAUSE, d -> Thread.sleep(d));
    }

    /** The path in use, or tried next. */
    LunPath current() {
        return paths.get(current);
    }

    /** The LU's capacity as the first path that answered READ CAPACITY reported it (null before). */
    Capacity capacity() {
        return capacity;
    }

    /** How many times a failed path was left for the next one. */
    long switches() {
        return switches;
    }

    /**
     * The current path's session, opened first when there is none: login, then READ CAPACITY
     * (the (10) form when the target does not know the (16) one), which must match the capacity
     * the first path reported.
     */
    ScsiSession session() throws PathFailure, CliFailure {
        if (session != null) {
            return session;
        }
        LunPath p = current();
        ScsiSession s;
        try {
            s = opener.open(p);
        } catch (IOException e) {
            throw new PathFailure(p, PathFailure.Kind.CONNECTION, "cannot connect and log in: " + e, e);
        } catch (CliFailure e) {
            if (e.exitCode() == CliFailure.LOGIN_FAILED) {
                throw new PathFailure(p, PathFailure.Kind.LOGIN, e.getMessage(), e);
            }
            throw e;
        }
        session = s;
        Capacity c = readCapacity();
        if (capacity != null && !c.equals(capacity)) {
            throw new CliFailure(CliFailure.IO_ERROR, p.describe() + " reports " + c.blockCount() + " blocks of "
                    + c.blockSize() + " bytes where an earlier path reported " + capacity.blockCount() + " of "
                    + capacity.blockSize() + ": the URLs are not paths to one LU");
        }
        capacity = c;
        return s;
    }

    private Capacity readCapacity() throws PathFailure, CliFailure {
        ScsiResult r16 = execute(s -> s.execute(ScsiCdbs.readCapacity16(Capacity.RC16_LENGTH), Capacity.RC16_LENGTH),
                "READ CAPACITY (16)");
        if (r16.good()) {
            return Capacity.decode16(r16.data());
        }
        if (r16.status() != ScsiResult.CHECK_CONDITION || r16.senseKey() != ILLEGAL_REQUEST) {
            ScsiSession.check(r16, "READ CAPACITY (16)");
        }
        return Capacity.decode10(run(s -> s.execute(ScsiCdbs.readCapacity10(), Capacity.RC10_LENGTH),
                "READ CAPACITY (10)").data());
    }

    /**
     * Runs {@code command} on the current path's session (opened first if needed) and returns its
     * GOOD result; a path problem is a {@link PathFailure}, any other bad status a {@link CliFailure}.
     */
    ScsiResult run(Command command, String what) throws PathFailure, CliFailure {
        return ScsiSession.check(execute(command, what), what);
    }

    /** {@link #run} without the final status check (the caller judges the other answers). */
    private ScsiResult execute(Command command, String what) throws PathFailure, CliFailure {
        ScsiSession s = session();
        LunPath p = current();
        ScsiResult r = null;
        for (int i = 0; i < ScsiSession.UNIT_ATTENTION_TRIES && (r == null || r.status() == ScsiResult.CHECK_CONDITION
                && r.senseKey() == UNIT_ATTENTION); i++) {
            try {
                r = command.run(s);
            } catch (IOException e) {
                abort();
                throw new PathFailure(p, PathFailure.Kind.CONNECTION, what + ": connection lost: " + e, e);
            }
        }
        if (notAccessible(r)) {
            throw new PathFailure(p, PathFailure.Kind.NOT_ACCESSIBLE, what + ": CHECK CONDITION: "
                    + SenseText.describe(r.senseKey(), r.additionalSenseCode(), r.additionalSenseCodeQualifier()), null);
        }
        return r;
    }

    /** NOT READY, LOGICAL UNIT NOT ACCESSIBLE because of the port group's ALUA state (SPC-4 5.15.2.4). */
    static boolean notAccessible(ScsiResult r) {
        if (r.response() != 0 || r.status() != ScsiResult.CHECK_CONDITION || r.senseKey() != NOT_READY
                || r.additionalSenseCode() != LU_NOT_READY) {
            return false;
        }
        int q = r.additionalSenseCodeQualifier();
        return q == ASYMMETRIC_ACCESS_STATE_TRANSITION || q == TARGET_PORT_IN_STANDBY_STATE
                || q == TARGET_PORT_IN_UNAVAILABLE_STATE;
    }

    /**
     * The current path failed with {@code f}: its session is closed (a lost one was aborted
     * already), one line says so, and the next path (round robin) becomes current. After every full
     * round of failed paths the caller waits {@link #ROUND_PAUSE} here before trying them again.
     */
    void next(PathFailure f) throws InterruptedIOException {
        close();
        current = (current + 1) % paths.size();
        failuresInRow++;
        switches++;
        out.println(f.getMessage() + "; next: " + current().describe());
        if (failuresInRow % paths.size() == 0) {
            try {
                pause.pause(roundPause);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted between rounds of paths");
            }
        }
    }

    /** A command went through the current path: says so once after path failures, and counts rounds anew. */
    void succeeded() {
        if (failuresInRow > 0) {
            out.println(current().describe() + " works (after " + failuresInRow + " path failure"
                    + (failuresInRow == 1 ? "" : "s") + " in a row)");
        }
        failuresInRow = 0;
    }

    /** Aborts the current session (its connection is gone: no logout). */
    private void abort() {
        end(false);
    }

    /** Logs the current session out (best effort) and forgets it. */
    @Override
    public void close() {
        end(true);
    }

    private void end(boolean logout) {
        ScsiSession s = session;
        session = null;
        try {
            if (s != null && logout) {
                s.close();
            } else if (s != null) {
                s.abort();
            }
        } catch (IOException e) {
            // best effort: the path is being left anyway
        }
    }
}
