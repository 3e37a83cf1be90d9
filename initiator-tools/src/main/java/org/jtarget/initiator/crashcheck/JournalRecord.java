package org.jtarget.initiator.crashcheck;

import java.util.zip.CRC32C;

/**
 * One fixed-size journal record: the start of a write run, or one acknowledged block.
 *
 * <pre>
 * 0..1   MAGIC        'J' 'C'
 * 2      TYPE         1 = RUN (a write run starts), 2 = ACK (a block was acknowledged)
 * 3      VERSION      1
 * 4..7   CRC32C       of bytes 0..3 and 8..47 (a torn or garbled record fails it)
 * 8..15  RUN_ID
 * 16..23 RUN: FIRST_LBA of the region      ACK: SEQUENCE
 * 24..31 RUN: BLOCK_COUNT of the region    ACK: LBA
 * 32..35 RUN: BLOCK_LENGTH                 ACK: 0
 * 36..39 RUN: MODE (0 fua, 1 sync)         ACK: 0
 * 40..47 TIME         milliseconds since the epoch when the record was made (diagnostics only)
 * </pre>
 *
 * @param a FIRST_LBA (RUN) or SEQUENCE (ACK)
 * @param b BLOCK_COUNT (RUN) or LBA (ACK)
 * @param c BLOCK_LENGTH (RUN) or 0
 * @param d MODE ordinal (RUN) or 0
 */
public record JournalRecord(int type, long runId, long a, long b, int c, int d, long timeMillis) {

    public static final int LENGTH = 48;
    public static final int TYPE_RUN = 1;
    public static final int TYPE_ACK = 2;
    public static final int MAGIC = 0x4a43; // "JC"
    public static final int VERSION = 1;
    public static final int MAGIC_OFFSET = 0;
    public static final int TYPE_OFFSET = 2;
    public static final int VERSION_OFFSET = 3;
    public static final int CRC_OFFSET = 4;
    public static final int RUN_ID_OFFSET = 8;
    public static final int A_OFFSET = 16;
    public static final int B_OFFSET = 24;
    public static final int C_OFFSET = 32;
    public static final int D_OFFSET = 36;
    public static final int TIME_OFFSET = 40;

    /** The record that opens a write run over {@code blockCount} blocks from {@code firstLba}. */
    public static JournalRecord run(long runId, long firstLba, long blockCount, int blockLength, WriteMode mode) {
        return new JournalRecord(TYPE_RUN, runId, firstLba, blockCount, blockLength, mode.ordinal(),
                System.currentTimeMillis());
    }

    /** The record saying block {@code sequence} of run {@code runId}, at {@code lba}, was acknowledged. */
    public static JournalRecord ack(long runId, long sequence, long lba) {
        return new JournalRecord(TYPE_ACK, runId, sequence, lba, 0, 0, System.currentTimeMillis());
    }

    public boolean isRun() {
        return type == TYPE_RUN;
    }

    /** ACK: the sequence number. */
    public long sequence() {
        return a;
    }

    /** ACK: the LBA written. */
    public long lba() {
        return b;
    }

    /** RUN: the region's first LBA. */
    public long firstLba() {
        return a;
    }

    /** RUN: the region's length in blocks. */
    public long blockCount() {
        return b;
    }

    /** RUN: the logical block length. */
    public int blockLength() {
        return c;
    }

    /** RUN: how blocks were made stable. */
    public WriteMode mode() {
        return WriteMode.values()[d];
    }

    /** The 48 bytes of the record. */
    public byte[] encode() {
        byte[] r = new byte[LENGTH];
        r[MAGIC_OFFSET] = (byte) (MAGIC >>> 8);
        r[MAGIC_OFFSET + 1] = (byte) MAGIC;
        r[TYPE_OFFSET] = (byte) type;
        r[VERSION_OFFSET] = (byte) VERSION;
        BlockImage.putLong(r, RUN_ID_OFFSET, runId);
        BlockImage.putLong(r, A_OFFSET, a);
        BlockImage.putLong(r, B_OFFSET, b);
        BlockImage.putInt(r, C_OFFSET, c);
        BlockImage.putInt(r, D_OFFSET, d);
        BlockImage.putLong(r, TIME_OFFSET, timeMillis);
        BlockImage.putInt(r, CRC_OFFSET, crc(r, 0));
        return r;
    }

    /** Decodes the record at {@code off}; null when its magic, version, type or checksum is wrong. */
    public static JournalRecord decode(byte[] data, int off) {
        int magic = ((data[off] & 0xff) << 8) | (data[off + 1] & 0xff);
        int type = data[off + TYPE_OFFSET];
        if (magic != MAGIC || data[off + VERSION_OFFSET] != VERSION || (type != TYPE_RUN && type != TYPE_ACK)
                || BlockImage.getInt(data, off + CRC_OFFSET) != crc(data, off)) {
            return null;
        }
        int d = BlockImage.getInt(data, off + D_OFFSET);
        if (type == TYPE_RUN && (d < 0 || d >= WriteMode.values().length)) {
            return null;
        }
        return new JournalRecord(type, BlockImage.getLong(data, off + RUN_ID_OFFSET),
                BlockImage.getLong(data, off + A_OFFSET), BlockImage.getLong(data, off + B_OFFSET),
                BlockImage.getInt(data, off + C_OFFSET), d, BlockImage.getLong(data, off + TIME_OFFSET));
    }

    private static int crc(byte[] r, int off) {
        CRC32C c = new CRC32C();
        c.update(r, off, CRC_OFFSET);
        c.update(r, off + RUN_ID_OFFSET, LENGTH - RUN_ID_OFFSET);
        return (int) c.getValue();
    }
}
