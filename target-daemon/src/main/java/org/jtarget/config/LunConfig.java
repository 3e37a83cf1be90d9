package org.jtarget.config;

/**
 * A logical unit of a target ({@code targets[].luns[]}).
 *
 * @param lun        the LUN, 0..16383 (SAM-5 4.7.3 flat/peripheral addressing single level)
 * @param backstore  the backstore name
 * @param readOnly   key {@code read-only}: writes fail with DATA PROTECT / WRITE PROTECTED (default false)
 * @param removable  key {@code removable}: RMB bit in INQUIRY (default false)
 * @param queueDepth key {@code queue-depth}: commands of this LU outstanding at once, from all
 *                   sessions (default {@value #DEFAULT_QUEUE_DEPTH}, 1..{@value #MAX_QUEUE_DEPTH}); more wait,
 *                   and their sessions' MaxCmdSN stops advancing until they get in
 */
public record LunConfig(int lun, String backstore, boolean readOnly, boolean removable, int queueDepth) {

    /** Highest LUN accepted: 14 bits, the range of single-level peripheral/flat addressing. */
    public static final int MAX_LUN = 16383;
    /** Default {@code queue-depth}: enough to keep a disk or SSD queue busy, a fraction of the command window. */
    public static final int DEFAULT_QUEUE_DEPTH = 64;
    /** Largest {@code queue-depth}: the I/O executor of a LU queues up to 1024 tasks (SANITIZE and copies too). */
    public static final int MAX_QUEUE_DEPTH = 512;

    /** With the default queue depth. */
    public LunConfig(int lun, String backstore, boolean readOnly, boolean removable) {
        this(lun, backstore, readOnly, removable, DEFAULT_QUEUE_DEPTH);
    }
}
