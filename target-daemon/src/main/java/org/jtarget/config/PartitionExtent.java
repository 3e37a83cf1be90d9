package org.jtarget.config;

import org.jtarget.units.ByteSize;

/**
 * The geometry rules of a partition, shared by the config loader (parent geometry from the config)
 * and the store opener (geometry of the opened parent, e.g. a block device): each returns the
 * one-line problem, or null when the rule holds.
 */
public final class PartitionExtent {

    private PartitionExtent() {
    }

    /** Offset and size must be whole blocks of the parent: the partition's LBA 0 is a parent block. */
    public static String misalignment(long offsetBytes, long sizeBytes, int blockSize, String parent) {
        if (offsetBytes % blockSize != 0) {
            return "must be a multiple of the block size " + blockSize + " of '" + parent + "', got " + offsetBytes;
        }
        if (sizeBytes <= 0 || sizeBytes % blockSize != 0) {
            return "must be a positive multiple of the block size " + blockSize + " of '" + parent + "', got "
                    + sizeBytes;
        }
        return null;
    }

    /** The extent must end inside the parent (overflow-safe). */
    public static String outside(long offsetBytes, long sizeBytes, long parentBytes, String parent) {
        if (offsetBytes >= parentBytes || sizeBytes > parentBytes - offsetBytes) {
            return "extent " + describe(offsetBytes, sizeBytes) + " ends past the end of '" + parent + "' ("
                    + ByteSize.format(parentBytes) + ")";
        }
        return null;
    }

    /** {@code [1GiB, 4GiB)}: the half-open byte range, for messages. */
    public static String describe(long offsetBytes, long sizeBytes) {
        long end = offsetBytes + sizeBytes;
        return "[" + (offsetBytes == 0 ? "0" : ByteSize.format(offsetBytes)) + ", "
                + (end < 0 ? "overflow" : ByteSize.format(end)) + ")";
    }
}
