package org.jtarget.config;

import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Process-wide settings from the optional top-level {@code daemon:} map.
 *
 * <pre>
 * daemon:
 *   state-dir: /var/lib/jtarget   # persistent state (reservations...); default: &lt;config dir&gt;/state
 *   event-loop-threads: 0         # Netty I/O threads; 0 = one per CPU
 *   io-threads-per-lun: 4         # blocking store I/O threads per logical unit (1..64)
 *   shutdown-timeout: 10          # seconds to drain and close on SIGTERM (1..3600)
 *   memory-limit: 8GiB            # memory all memory backstores may hold together, or "unlimited";
 *                                 # default: half of the physical memory (the container's limit if any)
 *   sanitize-rate: 64MiB          # bytes per second a SANITIZE OVERWRITE may write, or "unlimited"
 *   buffer-pool:                  # see BufferPoolSettings
 *     pinned-size: 64MiB          # page-aligned I/O buffer arena; 0 = none
 *     pin: true                   # mlock it: true (best effort), false, required
 * </pre>
 *
 * @param stateDir          absolute directory for persistent state
 * @param eventLoopThreads  event loop threads, already resolved (never 0)
 * @param ioThreadsPerLun   I/O executor threads per LU for blocking stores
 * @param shutdownTimeout   how long a stop may take before the daemon gives up waiting
 * @param memoryLimit       bytes all memory backstores may allocate together; {@link #UNLIMITED} for none
 * @param sanitizeRate      bytes per second SANITIZE OVERWRITE may write per LU; 0 for no pacing
 * @param bufferPool        the pinned I/O buffer arena
 */
public record DaemonSettings(Path stateDir, int eventLoopThreads, int ioThreadsPerLun, Duration shutdownTimeout,
                             long memoryLimit, long sanitizeRate, BufferPoolSettings bufferPool) {

    /** {@code memory-limit: unlimited}. */
    public static final long UNLIMITED = Long.MAX_VALUE;

    /** With the default memory limit and sanitize rate. */
    public DaemonSettings(Path stateDir, int eventLoopThreads, int ioThreadsPerLun, Duration shutdownTimeout) {
        this(stateDir, eventLoopThreads, ioThreadsPerLun, shutdownTimeout, defaultMemoryLimit());
    }

    /** With the default buffer pool. */
    public DaemonSettings(Path stateDir, int eventLoopThreads, int ioThreadsPerLun, Duration shutdownTimeout,
                          long memoryLimit, long sanitizeRate) {
        this(stateDir, eventLoopThreads, ioThreadsPerLun, shutdownTimeout, memoryLimit, sanitizeRate,
                BufferPoolSettings.DEFAULTS);
    }

    /** With the default sanitize rate. */
    public DaemonSettings(Path stateDir, int eventLoopThreads, int ioThreadsPerLun, Duration shutdownTimeout,
                          long memoryLimit) {
        this(stateDir, eventLoopThreads, ioThreadsPerLun, shutdownTimeout, memoryLimit, DEFAULT_SANITIZE_RATE);
    }

    /**
     * 64 MiB/s: a sanitize is hours of background work on a real disk; at this pace it leaves most
     * of a disk's (or the memory bus's) bandwidth to the other LUs, and a 1 GiB LU is done in 16 s.
     */
    public static final long DEFAULT_SANITIZE_RATE = 64L << 20;

    /** Seconds a stop may take by default: well under systemd's default TimeoutStopSec of 90 s. */
    public static final int DEFAULT_SHUTDOWN_SECONDS = 10;

    /**
     * File I/O threads per LU: initiators queue 32+ commands, and page-cache reads and writes of
     * different ranges proceed in parallel, so one thread would serialise a whole queue.
     */
    public static final int DEFAULT_IO_THREADS_PER_LUN = 4;

    /** The defaults, with the state directory next to the config file. */
    public static DaemonSettings defaults(Path configDir) {
        return new DaemonSettings(configDir.resolve("state"), defaultEventLoopThreads(), DEFAULT_IO_THREADS_PER_LUN,
                Duration.ofSeconds(DEFAULT_SHUTDOWN_SECONDS), defaultMemoryLimit(), DEFAULT_SANITIZE_RATE,
                BufferPoolSettings.DEFAULTS);
    }

    /**
     * Half of the physical memory (the JDK reports a container's memory limit here): memory LUNs
     * past the machine's memory would get the whole daemon killed by the kernel's OOM killer,
     * losing every LU, while a refused write on one thin LU is a SCSI error the initiator handles.
     * The other half is left to the JVM, the buffer pool and the page cache of file LUNs.
     */
    public static long defaultMemoryLimit() {
        OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.OperatingSystemMXBean sun && sun.getTotalMemorySize() > 0) {
            return Math.max(1, sun.getTotalMemorySize() / 2);
        }
        return UNLIMITED;
    }

    /** One event loop per CPU: connections are spread over them and each is single-threaded. */
    static int defaultEventLoopThreads() {
        return Math.max(1, Runtime.getRuntime().availableProcessors());
    }
}
