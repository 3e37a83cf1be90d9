package org.jtarget.initiator.raw;

/** CDB builders for the few commands the raw client issues (SPC-4, SBC-4), big-endian as T10 says. */
public final class ScsiCdbs {

    public static final int TEST_UNIT_READY = 0x00;
    public static final int INQUIRY = 0x12;
    public static final int READ_CAPACITY_10 = 0x25;
    public static final int READ_10 = 0x28;
    public static final int WRITE_10 = 0x2a;
    public static final int WRITE_12 = 0xaa;
    public static final int REPORT_LUNS = 0xa0;
    public static final int READ_16 = 0x88;
    public static final int WRITE_16 = 0x8a;
    /** SERVICE ACTION IN (16) with service action 0x10 is READ CAPACITY (16) (SBC-4 5.21). */
    public static final int SERVICE_ACTION_IN_16 = 0x9e;
    public static final int READ_CAPACITY_16_SERVICE_ACTION = 0x10;
    /** SBC-4 5.16/5.40: FUA is bit 3 of CDB byte 1 in READ/WRITE (10/16). */
    public static final int FUA_BIT = 0x08;

    private ScsiCdbs() {
    }

    /** TEST UNIT READY (SPC-4 6.47): 6 bytes, all zero. */
    public static byte[] testUnitReady() {
        return new byte[6];
    }

    /** INQUIRY (SPC-4 6.6): standard data when {@code evpd} is false, else VPD page {@code page}. */
    public static byte[] inquiry(boolean evpd, int page, int allocationLength) {
        byte[] cdb = new byte[6];
        cdb[0] = (byte) INQUIRY;
        cdb[1] = (byte) (evpd ? 1 : 0);
        cdb[2] = (byte) page;
        cdb[3] = (byte) (allocationLength >>> 8);
        cdb[4] = (byte) allocationLength;
        return cdb;
    }

    /** READ CAPACITY (10) (SBC-4 5.20): 8 bytes of returned data. */
    public static byte[] readCapacity10() {
        byte[] cdb = new byte[10];
        cdb[0] = (byte) READ_CAPACITY_10;
        return cdb;
    }

    /** READ (10) (SBC-4 5.16). */
    public static byte[] read10(long lba, int blocks) {
        return rw10(READ_10, lba, blocks);
    }

    /** WRITE (10) (SBC-4 5.40). */
    public static byte[] write10(long lba, int blocks) {
        return rw10(WRITE_10, lba, blocks);
    }

    /** WRITE (12) (SBC-4): LBA in bytes 2..5, TRANSFER LENGTH in 6..9. */
    public static byte[] write12(long lba, int blocks) {
        byte[] cdb = new byte[12];
        cdb[0] = (byte) WRITE_12;
        putInt(cdb, 2, (int) lba);
        putInt(cdb, 6, blocks);
        return cdb;
    }

    /** READ CAPACITY (16) (SBC-4 5.21): SERVICE ACTION IN (16), allocation length in bytes 10..13. */
    public static byte[] readCapacity16(int allocationLength) {
        byte[] cdb = new byte[16];
        cdb[0] = (byte) SERVICE_ACTION_IN_16;
        cdb[1] = (byte) READ_CAPACITY_16_SERVICE_ACTION;
        putInt(cdb, 10, allocationLength);
        return cdb;
    }

    /** READ (16) (SBC-4 5.17): 8-byte LBA in bytes 2..9, TRANSFER LENGTH in 10..13. */
    public static byte[] read16(long lba, int blocks) {
        return rw16(READ_16, lba, blocks, false);
    }

    /** WRITE (16) (SBC-4 5.41), with FUA (force unit access) when asked. */
    public static byte[] write16(long lba, int blocks, boolean fua) {
        return rw16(WRITE_16, lba, blocks, fua);
    }

    private static byte[] rw16(int opcode, long lba, int blocks, boolean fua) {
        if (lba < 0 || blocks < 0) {
            throw new IllegalArgumentException("negative lba=" + lba + " or blocks=" + blocks);
        }
        byte[] cdb = new byte[16];
        cdb[0] = (byte) opcode;
        cdb[1] = (byte) (fua ? FUA_BIT : 0);
        putInt(cdb, 2, (int) (lba >>> 32));
        putInt(cdb, 6, (int) lba);
        putInt(cdb, 10, blocks);
        return cdb;
    }

    /** REPORT LUNS (SPC-4 6.33), SELECT REPORT 0. */
    public static byte[] reportLuns(int allocationLength) {
        byte[] cdb = new byte[12];
        cdb[0] = (byte) REPORT_LUNS;
        putInt(cdb, 6, allocationLength);
        return cdb;
    }

    private static byte[] rw10(int opcode, long lba, int blocks) {
        if (lba < 0 || lba > 0xffffffffL || blocks < 0 || blocks > 0xffff) {
            throw new IllegalArgumentException("out of range for a 10-byte CDB: lba=" + lba + " blocks=" + blocks);
        }
        byte[] cdb = new byte[10];
        cdb[0] = (byte) opcode;
        putInt(cdb, 2, (int) lba);
        cdb[7] = (byte) (blocks >>> 8);
        cdb[8] = (byte) blocks;
        return cdb;
    }

    private static void putInt(byte[] b, int off, int v) {
        b[off] = (byte) (v >>> 24);
        b[off + 1] = (byte) (v >>> 16);
        b[off + 2] = (byte) (v >>> 8);
        b[off + 3] = (byte) v;
    }
}
