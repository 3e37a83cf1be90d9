package org.jtarget.scsi.lun;

import java.util.concurrent.atomic.LongAdder;

/**
 * What one logical unit has done since it was created, counted as commands end: READs and WRITEs
 * (commands, bytes, latency from arrival to status), other commands, and the failures by status
 * and sense key. Updated from every event loop without locks or allocation (striped adders);
 * read at any time by whoever reports it (the metrics endpoint). READ means READ (6/10/12/16) and
 * WRITE means WRITE (6/10/12/16); the rest counts as other.
 */
public final class LuStatistics {

    /** Upper bounds (inclusive, nanoseconds) of the latency histograms' buckets; one more bucket holds the rest. */
    private static final long[] LATENCY_BOUNDS_NANOS = {
        25_000, 50_000, 100_000, 250_000, 500_000, 1_000_000, 2_500_000, 5_000_000, 10_000_000, 25_000_000,
        50_000_000, 100_000_000, 250_000_000, 500_000_000, 1_000_000_000, 2_500_000_000L, 10_000_000_000L};

    /** A command's kind as counted. */
    public enum Op { READ, WRITE, OTHER }

    /** SAM-5 status codes counted apart from CHECK CONDITION's sense keys. */
    private static final int[] OTHER_STATUSES = {0x08, 0x18, 0x28}; // BUSY, RESERVATION CONFLICT, TASK SET FULL

    private final LongAdder[] commands = adders(3);
    private final LongAdder[] bytes = adders(2);
    private final Histogram[] latency = {new Histogram(), new Histogram()};
    private final LongAdder[] checkConditions = adders(16);
    private final LongAdder[] otherStatuses = adders(OTHER_STATUSES.length);

    /** The latency histogram of READs or WRITEs, cumulative as OpenMetrics wants it. */
    public record LatencySnapshot(long[] boundsNanos, long[] cumulativeCounts, long count, long sumNanos) {
    }

    private static final class Histogram {
        final LongAdder[] buckets = adders(LATENCY_BOUNDS_NANOS.length + 1);
        final LongAdder sum = new LongAdder();

        void observe(long nanos) {
            int i = 0;
            while (i < LATENCY_BOUNDS_NANOS.length && nanos > LATENCY_BOUNDS_NANOS[i]) {
                i++;
            }
            buckets[i].increment();
            sum.add(nanos);
        }

        LatencySnapshot snapshot() {
            long[] cumulative = new long[buckets.length];
            long n = 0;
            for (int i = 0; i < buckets.length; i++) {
                n += buckets[i].sum();
                cumulative[i] = n;
            }
            return new LatencySnapshot(LATENCY_BOUNDS_NANOS.clone(), cumulative, n, sum.sum());
        }
    }

    private static LongAdder[] adders(int n) {
        LongAdder[] a = new LongAdder[n];
        for (int i = 0; i < n; i++) {
            a[i] = new LongAdder();
        }
        return a;
    }

    /** The kind of command an operation code is. */
    public static Op op(int opcode) {
        return switch (opcode) {
            case 0x08, 0x28, 0xA8, 0x88 -> Op.READ;
            case 0x0A, 0x2A, 0xAA, 0x8A -> Op.WRITE;
            default -> Op.OTHER;
        };
    }

    /**
     * Counts one ended command.
     *
     * @param status   its SAM-5 status
     * @param senseKey the sense key when the status is CHECK CONDITION
     * @param bytes    the data it moved (READ, WRITE) when GOOD
     * @param nanos    from its arrival to its status
     */
    public void record(Op op, int status, int senseKey, long bytes, long nanos) {
        commands[op.ordinal()].increment();
        if (status == 0) {
            if (op != Op.OTHER) {
                this.bytes[op.ordinal()].add(bytes);
                latency[op.ordinal()].observe(nanos);
            }
            return;
        }
        if (status == 0x02) {
            checkConditions[senseKey & 0xF].increment();
            return;
        }
        for (int i = 0; i < OTHER_STATUSES.length; i++) {
            if (OTHER_STATUSES[i] == status) {
                otherStatuses[i].increment();
            }
        }
    }

    public long commands(Op op) {
        return commands[op.ordinal()].sum();
    }

    /** Bytes moved by GOOD READs or WRITEs. */
    public long bytes(Op op) {
        return op == Op.OTHER ? 0 : bytes[op.ordinal()].sum();
    }

    /** Latency of GOOD READs or WRITEs. */
    public LatencySnapshot latency(Op op) {
        if (op == Op.OTHER) {
            throw new IllegalArgumentException("no latency histogram for other commands");
        }
        return latency[op.ordinal()].snapshot();
    }

    /** Commands ended with CHECK CONDITION and this sense key (SPC-4 table 51). */
    public long checkConditions(int senseKey) {
        return checkConditions[senseKey].sum();
    }

    /** Commands ended with BUSY (0x08), RESERVATION CONFLICT (0x18) or TASK SET FULL (0x28). */
    public long statusCount(int status) {
        for (int i = 0; i < OTHER_STATUSES.length; i++) {
            if (OTHER_STATUSES[i] == status) {
                return otherStatuses[i].sum();
            }
        }
        throw new IllegalArgumentException("status 0x" + Integer.toHexString(status) + " is not counted");
    }

    /** The statuses {@link #statusCount} knows. */
    public static int[] countedStatuses() {
        return OTHER_STATUSES.clone();
    }
}
