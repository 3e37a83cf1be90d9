package org.jtarget.initiator.crashcheck;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import org.jtarget.initiator.cli.Capacity;
import org.jtarget.initiator.cli.Chunk;
import org.jtarget.initiator.cli.CliFailure;
import org.jtarget.initiator.cli.ScsiSession;
import org.jtarget.initiator.raw.ScsiCdbs;

/**
 * {@code crashcheck verify}: reads every journaled LBA back (contiguous LBAs in one READ (16) of up
 * to {@link Chunk#MAX_CHUNK_BYTES}), judges each block with {@link Expectations}, prints one line
 * per lost block (at most {@link #MAX_LOST_LINES}) and then {@code verified N blocks, M lost}.
 * M > 0 is exit 1 (the CLI's data-mismatch code).
 */
final class CrashVerifier {

    static final int MAX_LOST_LINES = 20;

    private final PrintStream out;
    private final Expectations expectations;
    private long verified;
    private long lost;
    private long inFlight;

    private CrashVerifier(PrintStream out, Expectations expectations) {
        this.out = out;
        this.expectations = expectations;
    }

    static void run(CrashcheckArguments args, PrintStream out) throws IOException, CliFailure {
        if (!Files.isRegularFile(args.journal())) {
            throw new CliFailure(CliFailure.IO_ERROR, "journal " + args.journal() + " does not exist");
        }
        Journal.Contents contents = Journal.read(args.journal());
        Expectations e = Expectations.of(contents.records());
        long[] lbas = e.lbas();
        out.println("journal: " + e.runCount() + " runs, " + e.acknowledged() + " acknowledged writes, "
                + lbas.length + " distinct LBAs" + (contents.tornBytes() > 0
                ? ", torn tail of " + contents.tornBytes() + " bytes ignored" : ""));
        CrashVerifier v = new CrashVerifier(out, e);
        if (lbas.length > 0) {
            try (ScsiSession s = ScsiSession.open(args.url(), args.initiatorName(), args.digests(),
                    args.timeout())) {
                v.checkAll(s, lbas);
            }
        }
        v.report();
    }

    private void checkAll(ScsiSession s, long[] lbas) throws IOException, CliFailure {
        Capacity cap = s.capacity();
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
            readAndCheck(s, lbas[i], j - i, bl);
            i = j;
        }
    }

    private void readAndCheck(ScsiSession s, long lba, int blocks, int bl) throws IOException, CliFailure {
        int length = blocks * bl;
        byte[] d = s.dataIn(ScsiCdbs.read16(lba, blocks), length, "READ (16) at LBA " + lba);
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
                    out.println("lost LBA " + (lba + k) + ": " + v.detail());
                }
            }
        }
    }

    private void report() throws CliFailure {
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
