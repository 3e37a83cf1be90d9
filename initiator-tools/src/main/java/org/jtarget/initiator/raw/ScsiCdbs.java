package org.jtarget.initiator.raw;

/** CDB builders for the few commands the raw client issues (SPC-4, SBC-4), big-endian as T10 says. */
public final class ScsiCdbs {

    public static final int TEST_UNIT_READY = 0x00;
    public static final int INQUIRY = 0x12;
    public static final int READ_CAPACITY_10 = 0x25;
    public static final int READ_10 = 0x28;
    public static final int WRITE_10 = 0x2a;
    public static final int REPORT_LUNS = 0xa0;

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
