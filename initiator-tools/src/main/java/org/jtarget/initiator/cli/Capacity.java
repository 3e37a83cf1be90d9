package org.jtarget.initiator.cli;

/**
 * What READ CAPACITY reports: the last LBA and the logical block length.
 *
 * <pre>
 * READ CAPACITY (16) data (SBC-4 5.21.2): 0..7 RETURNED LOGICAL BLOCK ADDRESS | 8..11 LOGICAL BLOCK LENGTH IN BYTES
 * READ CAPACITY (10) data (SBC-4 5.20.2): 0..3 RETURNED LOGICAL BLOCK ADDRESS | 4..7 LOGICAL BLOCK LENGTH IN BYTES
 * </pre>
 */
public record Capacity(long lastLba, int blockSize) {

    public static final int RC16_LENGTH = 32;
    public static final int RC16_MIN_LENGTH = 12;
    public static final int RC10_LENGTH = 8;
    /** SBC-4 5.20.2: READ CAPACITY (10) returns this when the last LBA does not fit in 32 bits. */
    public static final long RC10_TOO_LARGE = 0xffffffffL;

    /** Decodes READ CAPACITY (16) data. */
    public static Capacity decode16(byte[] d) {
        if (d.length < RC16_MIN_LENGTH) {
            throw new IllegalArgumentException("READ CAPACITY (16) data is " + d.length + " bytes, need 12");
        }
        return new Capacity(be64(d, 0), (int) be32(d, 8));
    }

    /** Decodes READ CAPACITY (10) data. */
    public static Capacity decode10(byte[] d) {
        if (d.length < RC10_LENGTH) {
            throw new IllegalArgumentException("READ CAPACITY (10) data is " + d.length + " bytes, need 8");
        }
        return new Capacity(be32(d, 0), (int) be32(d, 4));
    }

    /** The number of blocks: last LBA + 1. */
    public long blockCount() {
        return lastLba + 1;
    }

    /** The size in bytes. */
    public long bytes() {
        return blockCount() * blockSize;
    }

    /** The lines {@code readcap} prints. */
    public String describe() {
        return "Block size: " + blockSize + "\nBlocks: " + blockCount() + "\nBytes: " + bytes() + "\n";
    }

    static long be32(byte[] d, int off) {
        return ((d[off] & 0xffL) << 24) | ((d[off + 1] & 0xffL) << 16) | ((d[off + 2] & 0xffL) << 8)
                | (d[off + 3] & 0xffL);
    }

    static long be64(byte[] d, int off) {
        return (be32(d, off) << 32) | be32(d, off + 4);
    }
}
