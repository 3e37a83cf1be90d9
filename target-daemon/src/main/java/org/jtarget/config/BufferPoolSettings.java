package org.jtarget.config;

/**
 * The {@code daemon.buffer-pool:} map: the pinned arena that store I/O buffers are carved from
 * (page-aligned, so O_DIRECT file and block stores read and write them in place) and that RDMA
 * fabrics register once (DESIGN 3, "Buffer pool").
 *
 * <pre>
 * daemon:
 *   buffer-pool:
 *     pinned-size: 64MiB   # the arena; 0 = none (I/O buffers from the pooled allocator)
 *     pin: true            # mlock it: true (try; unpinned with a warning if refused), false, or required
 * </pre>
 *
 * @param pinnedSize bytes of the arena, 0 for none
 * @param pin        whether and how strictly to lock it in RAM
 */
public record BufferPoolSettings(long pinnedSize, Pin pin) {

    /**
     * 64 MiB: 64 READs of 1 MiB in flight at once (Linux initiators split I/O at max_sectors_kb,
     * 512 KiB to 1280 KiB by default; the target's MaxBurstLength is 1 MiB); past that buffers come
     * from the pooled allocator, counted, so a busy daemon shows it needs more. Small next to a
     * storage server's memory; untouched pages cost nothing until used unless pinned, and pinning
     * happens only where the kernel allows (root or CAP_IPC_LOCK, or LimitMEMLOCK=).
     */
    public static final long DEFAULT_PINNED_SIZE = 64L << 20;

    /** Largest arena: 64 GiB (slot bookkeeping is one int per 4 KiB page). */
    public static final long MAX_PINNED_SIZE = 64L << 30;

    /** {@code pin:}. */
    public enum Pin {
        /** {@code false}: never mlock. */
        OFF,
        /** {@code true}: mlock; if the kernel refuses, run unpinned and say so once. */
        TRY,
        /** {@code required}: a refused mlock stops the daemon with a one-line error. */
        REQUIRED
    }

    /** The defaults: a {@link #DEFAULT_PINNED_SIZE} arena, pinned if allowed. */
    public static final BufferPoolSettings DEFAULTS = new BufferPoolSettings(DEFAULT_PINNED_SIZE, Pin.TRY);

    public BufferPoolSettings {
        if (pinnedSize < 0 || pinnedSize > MAX_PINNED_SIZE) {
            throw new IllegalArgumentException("pinned-size out of range: " + pinnedSize);
        }
    }
}
