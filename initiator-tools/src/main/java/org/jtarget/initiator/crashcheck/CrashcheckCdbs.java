package org.jtarget.initiator.crashcheck;

/**
 * The CDBs crashcheck sends, in the form a kernel initiator picks: the 10-byte command while the
 * LBA fits in 32 bits, else the 16-byte one. Big-endian fields as in SBC-4.
 */
final class CrashcheckCdbs {

    static final int WRITE_10 = 0x2a;
    static final int WRITE_16 = 0x8a;
    static final int SYNCHRONIZE_CACHE_10 = 0x35;
    static final int SYNCHRONIZE_CACHE_16 = 0x91;
    /** SBC-4 5.40/5.41: FUA is bit 3 of CDB byte 1 of WRITE (10)/(16). */
    static final int FUA_BIT = 0x08;
    static final long MAX_LBA_10 = 0xffffffffL;

    private CrashcheckCdbs() {
    }

    /** WRITE (10) (SBC-4 5.40) or WRITE (16) (5.41) of one block, FUA as asked. */
    static byte[] write(long lba, boolean fua) {
        return lba <= MAX_LBA_10 ? ten(WRITE_10, lba, fua ? FUA_BIT : 0) : sixteen(WRITE_16, lba, fua ? FUA_BIT : 0);
    }

    /**
     * SYNCHRONIZE CACHE (10) (SBC-4 5.22) or (16) (5.23) of one block, IMMED=0 so GOOD status comes
     * only after the range is stable.
     */
    static byte[] synchronizeCache(long lba) {
        return lba <= MAX_LBA_10 ? ten(SYNCHRONIZE_CACHE_10, lba, 0) : sixteen(SYNCHRONIZE_CACHE_16, lba, 0);
    }

    /** Short name for messages. */
    static String name(byte[] cdb) {
        return switch (cdb[0] & 0xff) {
            case WRITE_10 -> "WRITE (10)";
            case WRITE_16 -> "WRITE (16)";
            case SYNCHRONIZE_CACHE_10 -> "SYNCHRONIZE CACHE (10)";
            case SYNCHRONIZE_CACHE_16 -> "SYNCHRONIZE CACHE (16)";
            default -> "opcode 0x" + Integer.toHexString(cdb[0] & 0xff);
        };
    }

    /** 10-byte layout: LBA in bytes 2..5, length (one block) in 7..8. */
    private static byte[] ten(int opcode, long lba, int byte1) {
        byte[] cdb = new byte[10];
        cdb[0] = (byte) opcode;
        cdb[1] = (byte) byte1;
        BlockImage.putInt(cdb, 2, (int) lba);
        cdb[8] = 1;
        return cdb;
    }

    /** 16-byte layout: LBA in bytes 2..9, length (one block) in 10..13. */
    private static byte[] sixteen(int opcode, long lba, int byte1) {
        byte[] cdb = new byte[16];
        cdb[0] = (byte) opcode;
        cdb[1] = (byte) byte1;
        BlockImage.putLong(cdb, 2, lba);
        BlockImage.putInt(cdb, 10, 1);
        return cdb;
    }
}
