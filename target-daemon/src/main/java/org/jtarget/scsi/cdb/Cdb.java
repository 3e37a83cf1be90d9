package org.jtarget.scsi.cdb;

/** Big-endian field access on a CDB or parameter array (SPC-4 3.5: multi-byte fields are big-endian). */
public final class Cdb {

    private Cdb() {
    }

    public static int u8(byte[] b, int at) {
        return b[at] & 0xff;
    }

    public static int u16(byte[] b, int at) {
        return (b[at] & 0xff) << 8 | (b[at + 1] & 0xff);
    }

    public static int u24(byte[] b, int at) {
        return (b[at] & 0xff) << 16 | (b[at + 1] & 0xff) << 8 | (b[at + 2] & 0xff);
    }

    /** Unsigned 32-bit value as a long. */
    public static long u32(byte[] b, int at) {
        return ((long) u16(b, at) << 16) | u16(b, at + 2);
    }

    /** Signed 64-bit value (an LBA above 2^63 is out of range anyway). */
    public static long u64(byte[] b, int at) {
        return (u32(b, at) << 32) | u32(b, at + 4);
    }
}
