package org.jtarget.initiator.crashcheck;

import java.util.zip.CRC32C;

/**
 * The content crashcheck writes into one logical block: a header naming the write, then a payload
 * that is a pure function of (run id, sequence number), so the verifier can rebuild the exact image.
 *
 * <pre>
 * 0..7   MAGIC          "jtcrash1" (ASCII)
 * 8..15  RUN_ID         random per {@code crashcheck write} run
 * 16..23 SEQUENCE       0, 1, 2... within the run
 * 24..31 LBA            where the block was written (catches misdirected writes)
 * 32..35 BLOCK_LENGTH   logical block length in bytes
 * 36..39 CRC32C         of the whole block with this field taken as zero (catches torn blocks)
 * 40..   PAYLOAD        SplitMix64 stream seeded from RUN_ID and SEQUENCE
 * </pre>
 * All integers big-endian, as in SCSI.
 */
public final class BlockImage {

    public static final long MAGIC = 0x6a74637261736831L; // "jtcrash1"
    public static final int MAGIC_OFFSET = 0;
    public static final int RUN_ID_OFFSET = 8;
    public static final int SEQUENCE_OFFSET = 16;
    public static final int LBA_OFFSET = 24;
    public static final int BLOCK_LENGTH_OFFSET = 32;
    public static final int CRC_OFFSET = 36;
    public static final int HEADER_LENGTH = 40;
    /** The smallest block we can format (the header plus some payload). */
    public static final int MIN_BLOCK_LENGTH = 64;
    private static final long GOLDEN = 0x9e3779b97f4a7c15L;
    private static final byte[] ZERO_CRC = new byte[4];

    private BlockImage() {
    }

    /** The header fields of a block, when it has the magic; {@code crcOk} says whether the checksum matches. */
    public record Header(long runId, long sequence, long lba, int blockLength, boolean crcOk) {
    }

    /** Fills {@code block} (its whole length is the logical block) with the image of one write. */
    public static void render(byte[] block, long runId, long sequence, long lba) {
        if (block.length < MIN_BLOCK_LENGTH) {
            throw new IllegalArgumentException("block of " + block.length + " bytes is too small");
        }
        putLong(block, MAGIC_OFFSET, MAGIC);
        putLong(block, RUN_ID_OFFSET, runId);
        putLong(block, SEQUENCE_OFFSET, sequence);
        putLong(block, LBA_OFFSET, lba);
        putInt(block, BLOCK_LENGTH_OFFSET, block.length);
        fillPayload(block, runId, sequence);
        putInt(block, CRC_OFFSET, crc(block, 0, block.length));
    }

    /** A fresh block of {@code blockLength} bytes holding the image of one write. */
    public static byte[] render(int blockLength, long runId, long sequence, long lba) {
        byte[] b = new byte[blockLength];
        render(b, runId, sequence, lba);
        return b;
    }

    /**
     * Reads the header of the block at {@code off} (length {@code blockLength}) in {@code data}; null
     * when the magic is missing (never written by crashcheck, or overwritten by something else).
     */
    public static Header header(byte[] data, int off, int blockLength) {
        if (blockLength < MIN_BLOCK_LENGTH || getLong(data, off + MAGIC_OFFSET) != MAGIC) {
            return null;
        }
        boolean crcOk = getInt(data, off + CRC_OFFSET) == crc(data, off, blockLength);
        return new Header(getLong(data, off + RUN_ID_OFFSET), getLong(data, off + SEQUENCE_OFFSET),
                getLong(data, off + LBA_OFFSET), getInt(data, off + BLOCK_LENGTH_OFFSET), crcOk);
    }

    /** CRC32C (Castagnoli) of the block at {@code off} with its CRC field counted as zero. */
    static int crc(byte[] data, int off, int blockLength) {
        CRC32C c = new CRC32C();
        c.update(data, off, CRC_OFFSET);
        c.update(ZERO_CRC, 0, ZERO_CRC.length);
        c.update(data, off + HEADER_LENGTH, blockLength - HEADER_LENGTH);
        return (int) c.getValue();
    }

    private static void fillPayload(byte[] block, long runId, long sequence) {
        long state = runId ^ (sequence * GOLDEN);
        int i = HEADER_LENGTH;
        while (i < block.length) {
            state += GOLDEN;
            long z = state;
            z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L; // SplitMix64 finaliser
            z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
            z ^= z >>> 31;
            for (int k = 0; k < 8 && i < block.length; k++, i++) {
                block[i] = (byte) (z >>> (56 - 8 * k));
            }
        }
    }

    static void putLong(byte[] b, int off, long v) {
        putInt(b, off, (int) (v >>> 32));
        putInt(b, off + 4, (int) v);
    }

    static void putInt(byte[] b, int off, int v) {
        b[off] = (byte) (v >>> 24);
        b[off + 1] = (byte) (v >>> 16);
        b[off + 2] = (byte) (v >>> 8);
        b[off + 3] = (byte) v;
    }

    static long getLong(byte[] b, int off) {
        return ((long) getInt(b, off) << 32) | (getInt(b, off + 4) & 0xffffffffL);
    }

    static int getInt(byte[] b, int off) {
        return ((b[off] & 0xff) << 24) | ((b[off + 1] & 0xff) << 16) | ((b[off + 2] & 0xff) << 8) | (b[off + 3] & 0xff);
    }
}
