package org.jtarget.initiator.crashcheck;

/**
 * The LBAs one write run cycles over: write number {@code s} goes to {@code firstLba + s mod blockCount},
 * so once the run has gone round once every further write overwrites an acknowledged block.
 */
public record Region(long firstLba, long blockCount) {

    public Region {
        if (firstLba < 0 || blockCount <= 0) {
            throw new IllegalArgumentException("bad region: firstLba=" + firstLba + " blockCount=" + blockCount);
        }
    }

    /** The LBA of write number {@code sequence}. */
    public long lbaOf(long sequence) {
        return firstLba + Long.remainderUnsigned(sequence, blockCount);
    }
}
