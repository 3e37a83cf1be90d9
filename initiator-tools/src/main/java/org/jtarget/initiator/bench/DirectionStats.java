package org.jtarget.initiator.bench;

/**
 * What one direction (reads or writes) of one session, or of the whole run after
 * {@link #add merging}, did inside the measured window: commands that ended GOOD with their
 * latencies, and failed commands (counted whenever they ended). Not thread-safe.
 */
public final class DirectionStats {

    private final LatencyHistogram latency = new LatencyHistogram();
    private long bytes;
    private long errors;

    /** One command that ended GOOD after {@code nanos}, moving {@code commandBytes}. */
    public void completed(long nanos, int commandBytes) {
        latency.record(nanos);
        bytes += commandBytes;
    }

    /** One command that did not end GOOD. */
    public void failed() {
        errors++;
    }

    /** Adds {@code other}'s counts to this one. */
    public void add(DirectionStats other) {
        latency.add(other.latency);
        bytes += other.bytes;
        errors += other.errors;
    }

    public LatencyHistogram latency() {
        return latency;
    }

    /** Commands that ended GOOD inside the window. */
    public long commands() {
        return latency.count();
    }

    public long bytes() {
        return bytes;
    }

    public long errors() {
        return errors;
    }
}
