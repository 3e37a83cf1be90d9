package org.jtarget.scsi.lun;

import java.util.concurrent.atomic.AtomicLong;

/**
 * How far one long operation on a logical unit has come (SANITIZE, EXTENDED COPY), for people
 * watching it ({@code GET /api/v1/tasks}, {@code jtargetctl status}): the bytes done of the bytes
 * it will take, and from them, as read, the percentage, the average rate since it started and the
 * time left at that rate. The job's thread moves it on; any thread reads it.
 */
public final class WorkProgress {

    private final String kind;
    private final long totalBytes;
    private final long startedNanos;
    private final AtomicLong doneBytes = new AtomicLong();

    /**
     * @param kind       what runs, as the API names it (e.g. {@code sanitize-overwrite}, {@code extended-copy})
     * @param totalBytes the bytes the whole operation moves (0: nothing to do)
     */
    public WorkProgress(String kind, long totalBytes, long startedNanos) {
        this.kind = kind;
        this.totalBytes = totalBytes;
        this.startedNanos = startedNanos;
    }

    /** The job has moved {@code bytes} more. */
    public void advance(long bytes) {
        doneBytes.addAndGet(bytes);
    }

    /**
     * One reading.
     *
     * @param percent        0..100, one decimal's worth of precision
     * @param bytesPerSecond the average since the start (0 until a byte is done)
     * @param secondsLeft    at that rate, or -1 while there is no rate yet
     */
    public record Snapshot(String kind, long doneBytes, long totalBytes, double percent, long bytesPerSecond,
                           long secondsLeft, double runningSeconds) {
    }

    public Snapshot snapshot(long nowNanos) {
        return snapshot(kind, doneBytes.get(), totalBytes, startedNanos, nowNanos);
    }

    /** A reading of work counted elsewhere (an HA resync), in the same terms. */
    public static Snapshot snapshot(String kind, long doneBytes, long totalBytes, long startedNanos, long nowNanos) {
        long done = Math.min(doneBytes, totalBytes);
        double seconds = Math.max(0, nowNanos - startedNanos) / 1e9;
        double percent = totalBytes == 0 ? 100 : Math.floor(done * 1000.0 / totalBytes) / 10;
        long rate = seconds > 0 ? (long) (done / seconds) : 0;
        long left = rate > 0 ? (long) Math.ceil((double) (totalBytes - done) / rate) : totalBytes == done ? 0 : -1;
        return new Snapshot(kind, done, totalBytes, percent, rate, left, seconds);
    }
}
