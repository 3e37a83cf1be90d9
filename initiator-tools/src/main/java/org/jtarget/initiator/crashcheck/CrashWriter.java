package org.jtarget.initiator.crashcheck;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.security.SecureRandom;
import org.jtarget.initiator.cli.Capacity;
import org.jtarget.initiator.cli.CliFailure;
import org.jtarget.initiator.cli.ScsiSession;

/**
 * {@code crashcheck write}: one write run. Writes block images one at a time (queue depth 1) over
 * its {@link Region}, makes each stable as its {@link WriteMode} says (or relies on WCE=0 for that), and journals it only after
 * the target's GOOD status; stops when {@code --seconds} pass, the target fails a command, or the
 * connection drops (exit 5, journal intact). Killing the writer at any moment also leaves a usable
 * journal: every record is forced before the next write is sent.
 */
final class CrashWriter {

    private final CrashcheckArguments args;
    private final PrintStream out;
    private final long runId = new SecureRandom().nextLong();

    private CrashWriter(CrashcheckArguments args, PrintStream out) {
        this.args = args;
        this.out = out;
    }

    static void run(CrashcheckArguments args, PrintStream out) throws IOException, CliFailure {
        new CrashWriter(args, out).run();
    }

    private void run() throws IOException, CliFailure {
        Journal.Contents existing = Files.exists(args.journal()) ? Journal.read(args.journal()) : null;
        int earlierBlockLength = existing == null ? 0 : Expectations.of(existing.records()).blockLength();
        try (ScsiSession s = ScsiSession.open(args.url(), args.initiatorName(), args.digests(),
                args.timeout())) {
            Capacity cap = s.capacity();
            checkBlockLength(cap.blockSize(), earlierBlockLength);
            if (args.mode() == WriteMode.NONE) {
                requireWriteCacheOff(s);
            }
            Region region = region(cap);
            try (Journal journal = Journal.openForAppend(args.journal(), existing)) {
                journal.append(JournalRecord.run(runId, region.firstLba(), region.blockCount(), cap.blockSize(),
                        args.mode()));
                long acked = loop(s, journal, region, cap.blockSize());
                out.println(summary(acked, region));
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
    private void requireWriteCacheOff(ScsiSession s) throws IOException, CliFailure {
        byte[] cdb = CrashcheckCdbs.modeSenseCaching();
        byte[] data = s.dataIn(cdb, CrashcheckCdbs.MODE_SENSE_ALLOCATION, CrashcheckCdbs.name(cdb) + " caching page");
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

    /** Writes until the deadline; returns the number of acknowledged writes. */
    private long loop(ScsiSession s, Journal journal, Region region, int blockLength)
            throws IOException, CliFailure {
        long deadline = System.nanoTime() + Math.max(args.seconds(), 0) * 1_000_000_000L;
        byte[] block = new byte[blockLength];
        long seq = 0;
        while (args.seconds() < 0 || System.nanoTime() - deadline < 0) {
            long lba = region.lbaOf(seq);
            BlockImage.render(block, runId, seq, lba);
            try {
                writeStable(s, lba, block);
            } catch (IOException e) {
                s.abort();
                out.println(summary(seq, region));
                throw new CliFailure(CliFailure.IO_ERROR, "connection lost after " + seq + " acknowledged writes "
                        + "(write seq " + seq + " to LBA " + lba + " was in flight): " + e.getMessage()
                        + "; the journal " + args.journal() + " is intact");
            }
            try {
                journal.append(JournalRecord.ack(runId, seq, lba));
            } catch (IOException e) {
                throw new CliFailure(CliFailure.IO_ERROR, "cannot append to the journal " + args.journal()
                        + " after " + seq + " acknowledged writes: " + e);
            }
            seq++;
        }
        return seq;
    }

    /**
     * FUA write, write then SYNCHRONIZE CACHE, or (WCE=0) a plain write; returns only after the GOOD
     * status that makes it acknowledged.
     */
    private void writeStable(ScsiSession s, long lba, byte[] block) throws IOException, CliFailure {
        byte[] write = CrashcheckCdbs.write(lba, args.mode() == WriteMode.FUA);
        s.dataOut(write, block, CrashcheckCdbs.name(write) + " at LBA " + lba);
        if (args.mode() == WriteMode.SYNC) {
            byte[] sync = CrashcheckCdbs.synchronizeCache(lba);
            ScsiSession.check(s.execute(sync, 0), CrashcheckCdbs.name(sync) + " of LBA " + lba);
        }
    }

    private String summary(long acked, Region region) {
        return "acknowledged " + acked + " writes (run 0x" + Long.toHexString(runId) + ", mode " + args.mode().word()
                + ", LBA " + region.firstLba() + ".." + (region.firstLba() + region.blockCount() - 1) + ")";
    }
}
