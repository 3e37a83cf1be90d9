package org.jtarget.initiator.bench;

import java.util.Locale;

/**
 * The run's summary, in fio's spirit and easy to grep: a header line with the workload, then per
 * direction that ran
 *
 * <pre>
 *   read: IOPS=12304.3, BW=48.06MiB/s (50.40MB/s), ios=36913, errors=0
 *     lat (usec): min=45.1, avg=120.3, p50=110.2, p99=400.0, p99.9=900.1, max=2100.5
 * </pre>
 *
 * IOPS and bandwidth count commands that ended GOOD inside the measured window (after the ramp);
 * latencies are from sending the SCSI Command PDU to receiving its status, in microseconds.
 */
final class BenchReport {

    private static final double NANOS_PER_SECOND = 1e9;
    private static final double NANOS_PER_MICRO = 1e3;
    private static final double MIB = 1024.0 * 1024.0;
    private static final double MB = 1e6;

    private BenchReport() {
    }

    /** The whole report, ending with a newline. */
    static String format(String header, DirectionStats reads, DirectionStats writes, boolean readsRan,
                         boolean writesRan, long measuredNanos) {
        StringBuilder b = new StringBuilder(header).append('\n');
        if (readsRan) {
            direction(b, "read", reads, measuredNanos);
        }
        if (writesRan) {
            direction(b, "write", writes, measuredNanos);
        }
        return b.toString();
    }

    private static void direction(StringBuilder b, String name, DirectionStats s, long measuredNanos) {
        double seconds = measuredNanos / NANOS_PER_SECOND;
        LatencyHistogram h = s.latency();
        b.append("  ").append(name).append(": IOPS=").append(fixed(s.commands() / seconds, 1))
                .append(", BW=").append(fixed(s.bytes() / MIB / seconds, 2)).append("MiB/s (")
                .append(fixed(s.bytes() / MB / seconds, 2)).append("MB/s), ios=").append(s.commands())
                .append(", errors=").append(s.errors()).append('\n');
        b.append("    lat (usec): min=").append(micros(h.min())).append(", avg=").append(fixed(h.mean()
                / NANOS_PER_MICRO, 1)).append(", p50=").append(micros(h.percentile(50)))
                .append(", p99=").append(micros(h.percentile(99)))
                .append(", p99.9=").append(micros(h.percentile(99.9)))
                .append(", max=").append(micros(h.max())).append('\n');
    }

    private static String micros(long nanos) {
        return fixed(nanos / NANOS_PER_MICRO, 1);
    }

    private static String fixed(double v, int decimals) {
        return String.format(Locale.ROOT, "%." + decimals + "f", v);
    }
}
