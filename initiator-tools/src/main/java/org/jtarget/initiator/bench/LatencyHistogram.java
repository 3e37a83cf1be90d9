package org.jtarget.initiator.bench;

/**
 * Command latencies in nanoseconds, in a fixed set of log-linear buckets (the idea of
 * HdrHistogram, in a few lines): values below {@code 2 * SUB_BUCKETS} have a bucket each; above,
 * every power-of-two range {@code [2^e, 2^(e+1))} is cut into {@link #SUB_BUCKETS} equal buckets,
 * so a bucket is never wider than 1/{@link #SUB_BUCKETS} of the values it holds (0.4 % relative
 * error). {@link #record(long)} only increments counters: no allocation per command.
 *
 * <p>Min, max, count and sum are kept exactly; {@link #percentile(double)} returns the highest
 * value of the bucket that holds the requested rank, clamped to [min, max]. Not thread-safe: one
 * per session thread, {@link #add merged} at the end.
 */
public final class LatencyHistogram {

    /** log2 of the buckets per power of two. */
    static final int SUB_BUCKET_BITS = 8;
    /** Buckets per power of two: the relative resolution is 1/256. */
    public static final int SUB_BUCKETS = 1 << SUB_BUCKET_BITS;
    /** Values above this (about 18 minutes) are counted as this. */
    public static final long MAX_TRACKABLE = (1L << 40) - 1;

    private final long[] counts = new long[index(MAX_TRACKABLE) + 1];
    private long count;
    private long sum;
    private long min = Long.MAX_VALUE;
    private long max;

    /** Counts one latency; negative values count as 0, huge ones as {@link #MAX_TRACKABLE}. */
    public void record(long nanos) {
        long v = Math.clamp(nanos, 0, MAX_TRACKABLE);
        counts[index(v)]++;
        count++;
        sum += v;
        min = Math.min(min, v);
        max = Math.max(max, v);
    }

    /** Adds every count of {@code other} to this one. */
    public void add(LatencyHistogram other) {
        for (int i = 0; i < counts.length; i++) {
            counts[i] += other.counts[i];
        }
        count += other.count;
        sum += other.sum;
        min = Math.min(min, other.min);
        max = Math.max(max, other.max);
    }

    /**
     * The value at percentile {@code p} (0 < p <= 100): the smallest bucket whose cumulative count
     * reaches {@code ceil(p/100 * count)}, as that bucket's highest value clamped to [min, max];
     * 0 when empty.
     */
    public long percentile(double p) {
        if (p <= 0 || p > 100) {
            throw new IllegalArgumentException("percentile must be in (0, 100]: " + p);
        }
        if (count == 0) {
            return 0;
        }
        long rank = Math.max(1, (long) Math.ceil(p / 100.0 * count));
        long seen = 0;
        for (int i = 0; i < counts.length; i++) {
            seen += counts[i];
            if (seen >= rank) {
                return Math.clamp(highestInBucket(i), min, max);
            }
        }
        return max;
    }

    public long count() {
        return count;
    }

    /** The smallest value recorded; 0 when empty. */
    public long min() {
        return count == 0 ? 0 : min;
    }

    public long max() {
        return max;
    }

    /** The exact mean; 0 when empty. */
    public double mean() {
        return count == 0 ? 0 : (double) sum / count;
    }

    /** The bucket of a value in 0..MAX_TRACKABLE. */
    static int index(long v) {
        if (v < 2L * SUB_BUCKETS) {
            return (int) v;
        }
        int shift = 63 - Long.numberOfLeadingZeros(v) - SUB_BUCKET_BITS; // >= 1
        return (shift << SUB_BUCKET_BITS) + (int) (v >>> shift);
    }

    /** The lowest value that falls into bucket {@code i}. */
    static long lowestInBucket(int i) {
        if (i < 2 * SUB_BUCKETS) {
            return i;
        }
        int shift = (i >>> SUB_BUCKET_BITS) - 1;
        long top = i - ((long) shift << SUB_BUCKET_BITS);
        return top << shift;
    }

    /** The highest value that falls into bucket {@code i}. */
    static long highestInBucket(int i) {
        return i + 1 < (2 * SUB_BUCKETS) ? i : lowestInBucket(i + 1) - 1;
    }
}
