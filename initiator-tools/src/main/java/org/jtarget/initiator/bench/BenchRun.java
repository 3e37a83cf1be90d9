package org.jtarget.initiator.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.jtarget.initiator.cli.Capacity;
import org.jtarget.initiator.cli.CliFailure;

/**
 * One {@code bench} run: opens every session first (logins are not measured), checks the region
 * and block size against the LUN's capacity, starts one thread per session on a shared clock,
 * waits for them, merges their numbers and prints the report. The first failed command or lost
 * connection stops the run; it is reported after the numbers, as exit 4 or 5.
 */
final class BenchRun {

    private final BenchArguments args;
    private final PrintStream out;

    private BenchRun(BenchArguments args, PrintStream out) {
        this.args = args;
        this.out = out;
    }

    static void run(BenchArguments args, PrintStream out) throws IOException, CliFailure {
        new BenchRun(args, out).run();
    }

    private void run() throws IOException, CliFailure {
        List<SessionSetup.Connection> connections = new ArrayList<>();
        try {
            for (int i = 0; i < args.sessions(); i++) {
                connections.add(SessionSetup.open(args, i));
            }
            Capacity cap = connections.getFirst().capacity();
            SessionPlan plan = plan(cap);
            List<BenchSession> sessions = new ArrayList<>();
            for (int i = 0; i < connections.size(); i++) {
                sessions.add(connections.get(i).session(i, plan));
            }
            RunControl control = RunControl.startingNow(args.rampSeconds(), args.seconds());
            runAll(sessions, control);
            report(sessions, cap, plan, control);
        } finally {
            for (SessionSetup.Connection c : connections) {
                c.close();
            }
        }
    }

    /** One platform thread per session; returns when all have drained and logged out. */
    private static void runAll(List<BenchSession> sessions, RunControl control) throws CliFailure {
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < sessions.size(); i++) {
            BenchSession s = sessions.get(i);
            threads.add(Thread.ofPlatform().name("bench-session-" + i).start(() -> s.run(control)));
        }
        try {
            for (Thread t : threads) {
                t.join();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CliFailure(CliFailure.IO_ERROR, "interrupted while the sessions ran");
        }
    }

    private void report(List<BenchSession> sessions, Capacity cap, SessionPlan plan, RunControl control)
            throws CliFailure {
        DirectionStats reads = new DirectionStats();
        DirectionStats writes = new DirectionStats();
        for (BenchSession s : sessions) {
            reads.add(s.reads());
            writes.add(s.writes());
        }
        out.print(BenchReport.format(header(cap, plan), reads, writes, plan.readPercent() > 0,
                plan.readPercent() < 100, control.measuredNanos()));
        out.flush();
        if (control.failure() != null) {
            throw control.failure();
        }
    }

    private String header(Capacity cap, SessionPlan plan) {
        String mix = args.workload().mixed() ? " (" + plan.readPercent() + "% reads)" : "";
        return "bench: " + args.workload().word() + mix + " bs=" + args.blockBytes() + " qd=" + args.queueDepth()
                + " sessions=" + args.sessions() + " ramp=" + args.rampSeconds() + "s seconds=" + args.seconds()
                + " LBA " + plan.firstLba() + ".." + (plan.firstLba() + plan.blocks() - 1) + " ("
                + cap.blockSize() + "-byte blocks) " + args.url();
    }

    private SessionPlan plan(Capacity cap) throws CliFailure {
        int blockSize = cap.blockSize();
        if (blockSize <= 0 || args.blockBytes() % blockSize != 0) {
            throw CliFailure.usage("--bs " + args.blockBytes() + " is not a multiple of the LUN's " + blockSize
                    + "-byte blocks");
        }
        long first = Math.max(args.lba(), 0);
        long count = args.blocks() > 0 ? args.blocks() : cap.blockCount() - first;
        int ioBlocks = args.blockBytes() / blockSize;
        if (first >= cap.blockCount() || count <= 0 || count > cap.blockCount() - first) {
            throw CliFailure.usage("region --lba " + first + " --blocks " + count + " exceeds the LUN's "
                    + cap.blockCount() + " blocks");
        }
        if (count < ioBlocks) {
            throw CliFailure.usage("region of " + count + " blocks is smaller than one --bs " + args.blockBytes()
                    + " command (" + ioBlocks + " blocks)");
        }
        return new SessionPlan(args.url().lun(), args.blockBytes(), ioBlocks, args.queueDepth(), args.readPercent(),
                first, count, args.workload().random(), args.sessions(), ThreadLocalRandom.current().nextLong());
    }
}
