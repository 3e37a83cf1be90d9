package org.jtarget.initiator.crashcheck;

import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What each journaled LBA must hold after a crash, built from the journal's records in order.
 *
 * <p><b>The rule.</b> Journal order is acknowledgement order. For every LBA the journal names, the
 * last ACK record for it (across all runs in the journal) is its <em>newest acknowledged version</em>,
 * and every earlier ACK of the same LBA is superseded by it. After a crash the LBA must hold:
 * <ol>
 * <li>exactly the newest acknowledged version (header, checksum and whole payload match), or</li>
 * <li>exactly the block of the write that was <em>in flight</em> when a run ended: the write sent but
 * never acknowledged (queue depth 1, so per run that is sequence = last acknowledged sequence + 1, at
 * the LBA the run's {@link Region} gives it), provided that run is the one of the newest version or a
 * later one. SBC-4 makes no promise about a write that has not completed: the block may hold the old
 * or the new data, and both are correct.</li>
 * </ol>
 * Anything else (zeros, foreign data, an older version, a torn or misdirected block) is a lost
 * acknowledged write.
 *
 * <p>The journal itself is checked: ACK records must follow their run's RUN record, with sequence
 * numbers 0, 1, 2... and the LBA the run's region gives; all runs must share one block length.
 */
public final class Expectations {

    private final Map<Long, Run> runs = new LinkedHashMap<>();
    private final Map<Long, Newest> newest = new HashMap<>();
    private int blockLength;
    private long acknowledged;
    private byte[] scratch;

    private Expectations() {
    }

    /** One write run as the journal describes it. */
    private static final class Run {
        final int index;
        final long id;
        final Region region;
        long lastSequence = -1;

        Run(int index, long id, Region region) {
            this.index = index;
            this.id = id;
            this.region = region;
        }

        long inFlightSequence() {
            return lastSequence + 1;
        }

        String name(long sequence) {
            return "run #" + index + " (0x" + Long.toHexString(id) + ") seq " + sequence;
        }
    }

    private record Newest(Run run, long sequence) {
    }

    /** Builds the expectations from the journal's valid records, in file order. */
    public static Expectations of(List<JournalRecord> records) throws CorruptJournalException {
        Expectations e = new Expectations();
        int n = 0;
        for (JournalRecord r : records) {
            if (r.isRun()) {
                e.addRun(r, n);
            } else {
                e.addAck(r, n);
            }
            n++;
        }
        return e;
    }

    private void addRun(JournalRecord r, int n) throws CorruptJournalException {
        if (runs.containsKey(r.runId())) {
            throw corrupt(n, "run 0x" + Long.toHexString(r.runId()) + " starts twice");
        }
        if (r.blockCount() <= 0 || r.firstLba() < 0 || r.blockLength() < BlockImage.MIN_BLOCK_LENGTH) {
            throw corrupt(n, "bad RUN record " + r);
        }
        if (blockLength != 0 && r.blockLength() != blockLength) {
            throw corrupt(n, "block length " + r.blockLength() + " differs from the earlier runs' " + blockLength);
        }
        blockLength = r.blockLength();
        runs.put(r.runId(), new Run(runs.size() + 1, r.runId(), new Region(r.firstLba(), r.blockCount())));
    }

    private void addAck(JournalRecord r, int n) throws CorruptJournalException {
        Run run = runs.get(r.runId());
        if (run == null) {
            throw corrupt(n, "ACK of unknown run 0x" + Long.toHexString(r.runId()));
        }
        if (r.sequence() != run.inFlightSequence() || r.lba() != run.region.lbaOf(r.sequence())) {
            throw corrupt(n, "ACK " + run.name(r.sequence()) + " at LBA " + r.lba() + " out of order (expected seq "
                    + run.inFlightSequence() + " at LBA " + run.region.lbaOf(run.inFlightSequence()) + ")");
        }
        run.lastSequence = r.sequence();
        newest.put(r.lba(), new Newest(run, r.sequence()));
        acknowledged++;
    }

    private static CorruptJournalException corrupt(int record, String why) {
        return new CorruptJournalException("journal record " + record + ": " + why);
    }

    /** The block length all runs used (0 when the journal has no run). */
    public int blockLength() {
        return blockLength;
    }

    /** Number of write runs in the journal. */
    public int runCount() {
        return runs.size();
    }

    /** Number of acknowledged writes (ACK records), superseded ones included. */
    public long acknowledged() {
        return acknowledged;
    }

    /** The distinct journaled LBAs, ascending. */
    public long[] lbas() {
        long[] l = newest.keySet().stream().mapToLong(Long::longValue).toArray();
        Arrays.sort(l);
        return l;
    }

    /** Judges the block read from journaled {@code lba}, found at {@code off} in {@code data}. */
    public Verdict check(long lba, byte[] data, int off) {
        Newest want = newest.get(lba);
        if (want == null) {
            throw new IllegalArgumentException("LBA " + lba + " is not in the journal");
        }
        BlockImage.Header h = BlockImage.header(data, off, blockLength);
        if (h != null && h.crcOk() && h.lba() == lba && h.blockLength() == blockLength) {
            if (h.runId() == want.run().id && h.sequence() == want.sequence()) {
                return matches(data, off, h) ? Verdict.NEWEST : lost(want, "a damaged payload with the right header");
            }
            Run r = runs.get(h.runId());
            if (r != null && h.sequence() == r.inFlightSequence() && r.region.lbaOf(h.sequence()) == lba
                    && r.index >= want.run().index && matches(data, off, h)) {
                return Verdict.IN_FLIGHT;
            }
        }
        return lost(want, describe(lba, data, off, h, want));
    }

    private boolean matches(byte[] data, int off, BlockImage.Header h) {
        if (scratch == null) {
            scratch = new byte[blockLength];
        }
        BlockImage.render(scratch, h.runId(), h.sequence(), h.lba());
        return Arrays.equals(data, off, off + blockLength, scratch, 0, blockLength);
    }

    private String describe(long lba, byte[] data, int off, BlockImage.Header h, Newest want) {
        if (h == null) {
            boolean zeros = true;
            for (int i = off; i < off + blockLength && zeros; i++) {
                zeros = data[i] == 0;
            }
            return zeros ? "all zeros" : "no crashcheck block (foreign data)";
        }
        Run r = runs.get(h.runId());
        String what = r != null ? r.name(h.sequence()) : "unknown run 0x" + Long.toHexString(h.runId()) + " seq "
                + h.sequence();
        if (!h.crcOk()) {
            return "checksum mismatch (torn or corrupted block claiming " + what + ")";
        }
        if (h.lba() != lba) {
            return "the block of " + what + " written for LBA " + h.lba() + " (misdirected)";
        }
        if (h.blockLength() != blockLength) {
            return "a block of " + what + " formatted for " + h.blockLength() + "-byte blocks";
        }
        if (r != null && (r.index < want.run().index || (r == want.run() && h.sequence() < want.sequence()))) {
            return "an older version: " + what;
        }
        return what + ", which is not acknowledged there";
    }

    private static Verdict lost(Newest want, String found) {
        return Verdict.lost("expected " + want.run().name(want.sequence()) + ", found " + found);
    }
}
