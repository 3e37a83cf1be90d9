package org.jtarget.initiator.crashcheck;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import org.jtarget.initiator.cli.Capacity;
import org.jtarget.initiator.cli.Chunk;
import org.jtarget.initiator.cli.CliFailure;
import org.jtarget.initiator.raw.ScsiCdbs;

/**
 * {@code crashcheck verify}: reads every journaled LBA back (contiguous LBAs in one READ (16) of up
 * to {@link Chunk#MAX_CHUNK_BYTES}), judges each block with {@link Expectations}, prints one line
 * per lost block (at most {@link #MAX_LOST_LINES}) and then {@code verified N blocks, M lost}.
 * M > 0 is exit 1 (the CLI's data-mismatch code).
 *
 * <p>With several {@code --url}s (paths to one LU) it reads through the first path that answers:
 * a path whose connection or login fails, or whose port group answers ALUA NOT READY (04h/0Ah, 0Bh,
 * 0Ch: the standby node of an HA pair), is left for the next one, and the reading starts over
 * there; only when no path answers does verify fail (exit 5).
 */
final class CrashVerifier {

    static final int MAX_LOST_LINES = 20;

    private final Expectations expectations;
    private final List<String> lostLines = new ArrayList<>();
    private long verified;
    private long lost;
    private long inFlight;

    private CrashVerifier(Expectations expectations) {
        this.expectations = expectations;
    }

    static void run(CrashcheckArguments args, PrintStream out) throws IOException, CliFailure {
        run(args, out, PathSet.of(args, out));
    }

    /** Verify through {@code paths} (tests give paths of their own). */
    static void run(CrashcheckArguments args, PrintStream out, PathSet paths) throws IOException, CliFailure {
        if (!Files.isRegularFile(args.journal())) {
            throw new CliFailure(CliFailure.IO_ERROR, "journal " + args.journal() + " does not exist");
        }
        Journal.Contents contents = Journal.read(args.journal());
        Expectations e = Expectations.of(contents.records());
        long[] lbas = e.lbas();
        out.println("journal: " + e.runCount() + " runs, " + e.acknowledged() + " acknowledged writes, "
                + lbas.length + " distinct LBAs" + (contents.tornBytes() > 0
                ? ", torn tail of " + contents.tornBytes() + " bytes ignored" : ""));
        CrashVerifier v = new CrashVerifier(e);
        if (lbas.length > 0) {
            try (paths) {
                v = throughFirstPathThatAnswers(args, out, paths, e, lbas);
            }
        }
        v.report(out);
    }

    /** Reads everything through one path: the first that answers, each tried once in order. */
    private static CrashVerifier throughFirstPathThatAnswers(CrashcheckArguments args, PrintStream out, PathSet paths,
                                                             Expectations e, long[] lbas)
            throws IOException, CliFailure {
        List<String> failed = new ArrayList<>();
        while (true) {
            CrashVerifier v = new CrashVerifier(e);
            try {
                v.checkAll(paths, lbas);
                if (args.multipath()) {
                    out.println("read through " + paths.current().describe());
                }
                return v;
            } catch (PathFailure f) {
                if (!args.multipath()) {
                    throw f.asCliFailure();
                }
                failed.add(f.getMessage());
                if (failed.size() == args.paths().size()) {
                    throw new CliFailure(CliFailure.IO_ERROR, "no path answered: " + String.join("; ", failed));
                }
                paths.next(f);
            }
        }
    }

    private void checkAll(PathSet paths, long[] lbas) throws PathFailure, CliFailure {
        paths.session();
        Capacity cap = paths.capacity();
        int bl = expectations.blockLength();
        if (cap.blockSize() != bl) {
            throw new CliFailure(CliFailure.IO_ERROR, "the journal was written with " + bl + "-byte blocks but the LUN"
                    + " has " + cap.blockSize() + "-byte blocks: wrong LUN?");
        }
        if (lbas[lbas.length - 1] >= cap.blockCount()) {
            throw new CliFailure(CliFailure.IO_ERROR, "the journal names LBA " + lbas[lbas.length - 1]
                    + " but the LUN has only " + cap.blockCount() + " blocks: wrong LUN?");
        }
        int maxBlocks = Math.max(1, Chunk.MAX_CHUNK_BYTES / bl);
        int i = 0;
        while (i < lbas.length) {
            int j = i + 1;
            while (j < lbas.length && j - i < maxBlocks && lbas[j] == lbas[j - 1] + 1) {
                j++;
            }
            readAndCheck(paths, lbas[i], j - i, bl);
            i = j;
        }
    }

    private void readAndCheck(PathSet paths, long lba, int blocks, int bl) throws PathFailure, CliFailure {
        int length = blocks * bl;
        byte[] d = paths.run(s -> s.execute(ScsiCdbs.read16(lba, blocks), length), "READ (16) at LBA " + lba).data();
        if (d.length != length) {
            throw new CliFailure(CliFailure.IO_ERROR, "READ (16) at LBA " + lba + " returned " + d.length + " of "
                    + length + " bytes");
        }
        for (int k = 0; k < blocks; k++) {
            Verdict v = expectations.check(lba + k, d, k * bl);
            verified++;
            if (v.kind() == Verdict.Kind.IN_FLIGHT) {
                inFlight++;
            } else if (v.lost()) {
                lost++;
                if (lost <= MAX_LOST_LINES) {
                    lostLines.add("lost LBA " + (lba + k) + ": " + v.detail());
                }
            }
        }
    }

    private void report(PrintStream out) throws CliFailure {
        lostLines.forEach(out::println);
        if (lost > MAX_LOST_LINES) {
            out.println("... and " + (lost - MAX_LOST_LINES) + " more lost blocks");
        }
        if (inFlight > 0) {
            out.println(inFlight + " blocks hold the write that was in flight, unacknowledged, when its run ended"
                    + " (allowed)");
        }
        out.println("verified " + verified + " blocks, " + lost + " lost");
        if (lost > 0) {
            throw new CliFailure(CliFailure.MISCOMPARE, lost + " of " + verified
                    + " journaled blocks do not hold their newest acknowledged version");
        }
    }
}
