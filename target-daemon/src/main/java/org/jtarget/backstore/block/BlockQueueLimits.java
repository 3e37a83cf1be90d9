package org.jtarget.backstore.block;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What the kernel says about a block device's request queue in sysfs
 * ({@code /sys/dev/block/MAJOR:MINOR/queue/}, Documentation/ABI/stable/sysfs-block), read once when
 * the store opens. A partition has no queue of its own: its disk's is one folder up.
 *
 * @param writeZeroesMaxBytes {@code write_zeroes_max_bytes}: &gt; 0 if the device zeroes ranges
 *                            itself (REQ_OP_WRITE_ZEROES), which fallocate(PUNCH_HOLE) on the
 *                            device uses, deallocating where the device can
 * @param discardMaxBytes     {@code discard_max_bytes}: &gt; 0 if the device takes discards
 * @param discardGranularity  {@code discard_granularity} in bytes (0 if unknown)
 */
record BlockQueueLimits(long writeZeroesMaxBytes, long discardMaxBytes, long discardGranularity) {

    /** Limits of the device whose {@code st_rdev} is {@code rdev}; all 0 when sysfs can't tell. */
    static BlockQueueLimits of(long rdev) {
        return of(Path.of("/sys/dev/block", major(rdev) + ":" + minor(rdev)));
    }

    /** Limits from a sysfs device folder (tests give their own). */
    static BlockQueueLimits of(Path device) {
        Path queue = device.resolve("queue");
        if (!Files.isDirectory(queue)) {
            queue = device.resolve("../queue").normalize(); // a partition: its disk's queue
        }
        return new BlockQueueLimits(number(queue.resolve("write_zeroes_max_bytes")),
                number(queue.resolve("discard_max_bytes")), number(queue.resolve("discard_granularity")));
    }

    /** glibc's gnu_dev_major: bits 8..19 and 32..43 of dev_t. */
    static long major(long dev) {
        return ((dev >>> 8) & 0xfffL) | ((dev >>> 32) & 0xfffff000L);
    }

    /** glibc's gnu_dev_minor: bits 0..7 and 20..31 of dev_t. */
    static long minor(long dev) {
        return (dev & 0xffL) | ((dev >>> 12) & 0xffffff00L);
    }

    private static long number(Path file) {
        try {
            return Long.parseLong(Files.readString(file).trim());
        } catch (IOException | NumberFormatException e) {
            return 0;
        }
    }
}
