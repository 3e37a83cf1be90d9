package org.jtarget.initiator.crashcheck;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.security.SecureRandom;
import org.jtarget.initiator.cli.Capacity;
import org.jtarget.initiator.cli.CliFailure;

/**
 * {@code crashcheck write}: one write run. Writes block images one at a time (queue depth 1) over
 * its {@link Region}, makes each stable as its {@link WriteMode} says (or relies on WCE=0 for that), and journals it only after
 * the target's GOOD status; stops when {@code --seconds} pass, the target fails a command, or the
 * connection drops (exit 5, journal intact). Killing the writer at any moment also leaves a usable
 * journal: every record is forced before the next write is sent.
 *
 * <p>With several {@code --url}s (paths to one LU, {@link PathSet}) a lost connection, a refused
 * login or an ALUA NOT READY (04h/0Ah, 0Bh, 0Ch) moves the run to the next path, and the write that
 * was not acknowledged is sent again there, the same block image (same sequence number, same LBA):
 * the journal still records only acknowledged writes, in order. The run gives up (exit 5) only when
 * no path takes the write before {@code --seconds} end. A UNIT ATTENTION is retried on the same path
 * whatever the number of paths.
 */
final class CrashWriter {

    private final CrashcheckArguments args;
    private final PrintStream out;
    private final PathSet paths;
    private final long runId = new SecureRandom().nextLong();
    private final long deadline;

    private CrashWriter(CrashcheckArguments args, PrintStream out, PathSet paths) {
        this.args = args;
        this.out = out;
        this.paths = paths;
        this.deadline = System.nanoTime() + Math.max(args.seconds(), 0) * 1_000_000_000L;
    }

    static void run(CrashcheckArguments args, PrintStream out) throws IOException, CliFailure {
        run(args, out, PathSet.of(args, out));
    }

    /** The run over {@code paths} (tests give paths of their own). */
    static void run(CrashcheckArguments args, PrintStream out, PathSet paths) throws IOException, CliFailure {
        try (paths) {
            new CrashWriter(args, out, paths).run();
        }
    }

    private boolean timeLeft() {
        return args.seconds() < 0 || System.nanoTime() - deadline < 0;
    }

    private void run() throws IOException, CliFailure {
        Journal.Contents existing = Files.exists(args.journal()) ? Journal.read(args.journal()) : null;
        int earlierBlockLength = existing == null ? 0 : Expectations.of(existing.records()).blockLength();
        Capacity cap = setUp();
        checkBlockLength(cap.blockSize(), earlierBlockLength);
        Region region = region(cap);
        try (Journal journal = Journal.openForAppend(args.journal(), existing)) {
            journal.append(JournalRecord.run(runId, region.firstLba(), region.blockCount(), cap.blockSize(),
                    args.mode()));
            long acked = loop(journal, region, cap.blockSize());
            out.println(summary(acked, region));
        }
    }

    /**
     * A path that answers: logged in, its capacity read and, for {@code --mode none}, its caching
     * page checked. With several paths, tried in turn until one answers or the time is up.
     */
    private Capacity setUp() throws IOException, CliFailure {
        while (true) {
            try {
                paths.session();
                if (args.mode() == WriteMode.NONE) {
                    requireWriteCacheOff();
                }
                paths.succeeded();
                return paths.capacity();
            } catch (PathFailure f) {
                if (!args.multipath()) {
                    throw f.asCliFailure();
                }
                paths.next(f);
                if (!timeLeft()) {
                    throw new CliFailure(CliFailure.IO_ERROR, "no path answered before --seconds ended (last: "
                            + f.getMessage() + "); nothing was written");
                }
            }
        }
    }

    private void checkBlockLength(int blockLength, int earlier) throws CliFailure {
        if (blockLength < BlockImage.MIN_BLOCK_LENGTH) {
            throw new CliFailure(CliFailure.IO_ERROR, "the LUN's block length " + blockLength + " is too small");
        }
        if (earlier != 0 && earlier != blockLength) {
            throw CliFailure.usage("journal " + args.journal() + " holds runs with " + earlier
                    + "-byte blocks but the LUN has " + blockLength + "-byte blocks: use another journal");
        }
    }

    /**
     * {@code --mode none} counts a plain WRITE's GOOD as stable, which SBC-4 6.5.5 promises only with
     * WCE=0: read the caching page's current WCE and refuse the run (usage, exit 2) when it is 1.
     */
    private void requireWriteCacheOff() throws PathFailure, CliFailure {
        byte[] cdb = CrashcheckCdbs.modeSenseCaching();
        byte[] data = paths.run(s -> s.execute(cdb, CrashcheckCdbs.MODE_SENSE_ALLOCATION),
                CrashcheckCdbs.name(cdb) + " caching page").data();
        boolean wce;
        try {
            wce = CrashcheckCdbs.writeCacheEnabled(data);
        } catch (IllegalArgumentException e) {
            throw new CliFailure(CliFailure.IO_ERROR, e.getMessage());
        }
        if (wce) {
            throw CliFailure.usage("--mode none relies on the write cache being off, but the LUN's caching mode"
                    + " page reports WCE=1: use --mode fua or --mode sync");
        }
    }

    private Region region(Capacity cap) throws CliFailure {
        long first = Math.max(args.lba(), 0);
        long count = args.blocks() > 0 ? args.blocks() : cap.blockCount() - first;
        if (first >= cap.blockCount() || count <= 0 || count > cap.blockCount() - first) {
            throw CliFailure.usage("region --lba " + first + " --blocks " + count + " exceeds the LUN's "
                    + cap.blockCount() + " blocks");
        }
        return new Region(first, count);
    }

    /**
     * Writes until the deadline; returns the number of acknowledged writes. A write a path failed
     * is sent again, unchanged, through the next path (several paths), or ends the run (one path).
     */
    private long loop(Journal journal, Region region, int blockLength) throws IOException, CliFailure {
        byte[] block = new byte[blockLength];
        long seq = 0;
        while (timeLeft()) {
            long lba = region.lbaOf(seq);
            BlockImage.render(block, runId, seq, lba);
            try {
                writeStable(lba, block);
            } catch (PathFailure f) {
                if (!args.multipath()) {
                    throw onlyPathFailed(f, seq, lba, region);
                }
                paths.next(f);
                if (timeLeft()) {
                    continue; // the same seq again, through the next path
                }
                out.println(summary(seq, region));
                throw new CliFailure(CliFailure.IO_ERROR, "no path took write seq " + seq + " to LBA " + lba
                        + " before --seconds ended (last: " + f.getMessage() + "); " + seq
                        + " acknowledged writes, the journal " + args.journal() + " is intact");
            }
            try {
                journal.append(JournalRecord.ack(runId, seq, lba));
            } catch (IOException e) {
                throw new CliFailure(CliFailure.IO_ERROR, "cannot append to the journal " + args.journal()
                        + " after " + seq + " acknowledged writes: " + e);
            }
            paths.succeeded();
            seq++;
        }
        return seq;
    }

    /** With one path, a lost connection ends the run (exit 5, the journal intact); a refusal ends it as before. */
    private CliFailure onlyPathFailed(PathFailure f, long seq, long lba, Region region) {
        if (f.kind() != PathFailure.Kind.CONNECTION) {
            return f.asCliFailure();
        }
        out.println(summary(seq, region));
        return new CliFailure(CliFailure.IO_ERROR, "connection lost after " + seq + " acknowledged writes "
                + "(write seq " + seq + " to LBA " + lba + " was in flight): " + f.detail()
                + "; the journal " + args.journal() + " is intact");
    }

    /**
     * FUA write, write then SYNCHRONIZE CACHE, or (WCE=0) a plain write; returns only after the GOOD
     * status that makes it acknowledged.
     */
    private void writeStable(long lba, byte[] block) throws PathFailure, CliFailure {
        byte[] write = CrashcheckCdbs.write(lba, args.mode() == WriteMode.FUA);
        paths.run(s -> s.execute(write, block), CrashcheckCdbs.name(write) + " at LBA " + lba);
        if (args.mode() == WriteMode.SYNC) {
            byte[] sync = CrashcheckCdbs.synchronizeCache(lba);
            paths.run(s -> s.execute(sync, 0), CrashcheckCdbs.name(sync) + " of LBA " + lba);
        }
    }

    private String summary(long acked, Region region) {
        return "acknowledged " + acked + " writes (run 0x" + Long.toHexString(runId) + ", mode " + args.mode().word()
                + ", LBA " + region.firstLba() + ".." + (region.firstLba() + region.blockCount() - 1) + ")"
                + (args.multipath() ? ", " + paths.switches() + " path switches" : "");
    }
}
