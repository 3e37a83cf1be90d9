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
    static final int MODE_SENSE_10 = 0x5a;
    /** SPC-4 6.12: DBD is bit 3 of MODE SENSE (10) CDB byte 1 (no block descriptors wanted). */
    static final int DBD_BIT = 0x08;
    /** SBC-4 6.5.5: the caching mode page, and WCE (bit 2 of its byte 2). */
    static final int CACHING_PAGE = 0x08;
    static final int CACHING_FLAGS_OFFSET = 2;
    static final int WCE_BIT = 0x04;
    /** SPC-4 7.5.5: MODE SENSE (10) parameter header length, BLOCK DESCRIPTOR LENGTH at bytes 6..7. */
    static final int MODE_HEADER_10_LENGTH = 8;
    static final int BLOCK_DESCRIPTOR_LENGTH_OFFSET = 6;
    static final int MODE_SENSE_ALLOCATION = 255;
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

    /**
     * MODE SENSE (10) (SPC-4 6.12) of the caching page's current values (PC=0), DBD=1, allocation
     * length {@link #MODE_SENSE_ALLOCATION}.
     */
    static byte[] modeSenseCaching() {
        byte[] cdb = new byte[10];
        cdb[0] = (byte) MODE_SENSE_10;
        cdb[1] = (byte) DBD_BIT;
        cdb[2] = (byte) CACHING_PAGE;
        cdb[8] = (byte) MODE_SENSE_ALLOCATION;
        return cdb;
    }

    /**
     * WCE of the caching page in MODE SENSE (10) data: the header (SPC-4 7.5.5), any block
     * descriptors the target sent despite DBD, then the page (SBC-4 6.5.5).
     *
     * @throws IllegalArgumentException when the data is too short or the page is not the caching page
     */
    static boolean writeCacheEnabled(byte[] data) {
        if (data.length < MODE_HEADER_10_LENGTH) {
            throw new IllegalArgumentException("MODE SENSE (10) data of " + data.length + " bytes has no header");
        }
        int descriptors = ((data[BLOCK_DESCRIPTOR_LENGTH_OFFSET] & 0xff) << 8)
                | (data[BLOCK_DESCRIPTOR_LENGTH_OFFSET + 1] & 0xff);
        int page = MODE_HEADER_10_LENGTH + descriptors;
        if (data.length < page + CACHING_FLAGS_OFFSET + 1 || (data[page] & 0x3f) != CACHING_PAGE) {
            throw new IllegalArgumentException("MODE SENSE (10) data holds no caching page at byte " + page);
        }
        return (data[page + CACHING_FLAGS_OFFSET] & WCE_BIT) != 0;
    }

    /** Short name for messages. */
    static String name(byte[] cdb) {
        return switch (cdb[0] & 0xff) {
            case WRITE_10 -> "WRITE (10)";
            case WRITE_16 -> "WRITE (16)";
            case SYNCHRONIZE_CACHE_10 -> "SYNCHRONIZE CACHE (10)";
            case SYNCHRONIZE_CACHE_16 -> "SYNCHRONIZE CACHE (16)";
            case MODE_SENSE_10 -> "MODE SENSE (10)";
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
