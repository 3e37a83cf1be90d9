package org.jtarget.initiator.bench;

import java.util.concurrent.atomic.AtomicReference;
import org.jtarget.initiator.cli.CliFailure;

/**
 * The clock and the stop signal every session thread of one run shares: commands are issued from
 * {@code start} to {@link #stopAtNanos()}; completions count from {@link #measureFromNanos()} (the
 * end of the ramp) on. The first failure anywhere stops issuing in every session, as fio stops a
 * job at its first error; {@link #measuredNanos()} then ends at that moment.
 */
final class RunControl {

    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    private final long measureFrom;
    private final long stopAt;
    private final AtomicReference<CliFailure> failure = new AtomicReference<>();
    private volatile boolean stopped;
    private volatile long stoppedAt;

    private RunControl(long start, int rampSeconds, int seconds) {
        this.measureFrom = start + rampSeconds * NANOS_PER_SECOND;
        this.stopAt = measureFrom + seconds * NANOS_PER_SECOND;
    }

    /** A run starting now. */
    static RunControl startingNow(int rampSeconds, int seconds) {
        return new RunControl(System.nanoTime(), rampSeconds, seconds);
    }

    long measureFromNanos() {
        return measureFrom;
    }

    long stopAtNanos() {
        return stopAt;
    }

    /** Whether a session may still send new commands at {@code now}. */
    boolean issuing(long now) {
        return !stopped && now - stopAt < 0;
    }

    /** Whether a completion at {@code now} belongs to the measured window. */
    boolean measured(long now) {
        return now - measureFrom >= 0 && now - stopAt < 0;
    }

    /** Records a failure (the first one is kept) and stops issuing everywhere. */
    void fail(CliFailure f) {
        if (failure.compareAndSet(null, f)) {
            stoppedAt = System.nanoTime();
            stopped = true;
        }
    }

    /** The first failure of the run, or null. */
    CliFailure failure() {
        return failure.get();
    }

    /** The length of the measured window: up to the stop time, or to the first failure. */
    long measuredNanos() {
        long end = stopped && stoppedAt - stopAt < 0 ? stoppedAt : stopAt;
        return Math.max(end - measureFrom, 1);
    }
}
