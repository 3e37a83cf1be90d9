package org.jtarget.scsi.sense;

/**
 * Writes sense data (SPC-4 4.5) in fixed (response code 70h) or descriptor (72h) format. Which
 * one a logical unit uses is the control mode page's D_SENSE bit (SPC-4 7.5.8); REQUEST SENSE
 * picks by its DESC bit. Allocation-free: it writes into a caller's array.
 *
 * <pre>
 * fixed (18 bytes)                      descriptor (8 + descriptors)
 *  0 VALID|70h                           0 72h
 *  2 sense key                           1 sense key   2 ASC   3 ASCQ
 *  3..6 INFORMATION                      7 additional length
 *  7 additional length (10)              8.. information descriptor (00h, 12 bytes)
 * 12 ASC  13 ASCQ                            sense-key specific descriptor (02h, 8 bytes)
 * 15 SKSV|C/D|BPV|bit  16..17 field pointer
 * </pre>
 */
public final class SenseBuilder {

    /** No INFORMATION / field pointer. */
    public static final int NONE = -1;

    static final int FIXED_LENGTH = 18;
    static final int FIXED_KEY_OFFSET = 2;
    static final int FIXED_INFORMATION_OFFSET = 3;
    static final int FIXED_ADDITIONAL_LENGTH_OFFSET = 7;
    static final int FIXED_ASC_OFFSET = 12;
    static final int FIXED_SKS_OFFSET = 15;
    static final int DESC_HEADER_LENGTH = 8;
    static final int DESC_INFORMATION_LENGTH = 12;
    static final int DESC_SKS_LENGTH = 8;

    private static final int VALID = 0x80;
    private static final int SKSV = 0x80;
    private static final int CD = 0x40;
    private static final int BPV = 0x08;

    private SenseBuilder() {
    }

    /**
     * Writes sense data for {@code reason}.
     *
     * @param dst          at least 252 bytes
     * @param descriptor   descriptor format (72h) instead of fixed (70h)
     * @param information  the INFORMATION field (e.g. miscompare offset), or {@link #NONE}
     * @param fieldPointer byte of the CDB / parameter list in error (sense-key specific field
     *                     pointer, SPC-4 4.5.2.4.2), or {@link #NONE}
     * @param bitPointer   bit in that byte, or {@link #NONE}
     * @param inCdb        the field pointer points into the CDB (C/D = 1) rather than parameter data
     * @return the sense length in bytes
     */
    public static int build(byte[] dst, SenseReason reason, boolean descriptor, long information,
                            int fieldPointer, int bitPointer, boolean inCdb) {
        return descriptor
                ? descriptorFormat(dst, reason, information, fieldPointer, bitPointer, inCdb)
                : fixedFormat(dst, reason, information, fieldPointer, bitPointer, inCdb);
    }

    /** Plain sense data for {@code reason} with no INFORMATION and no field pointer. */
    public static int build(byte[] dst, SenseReason reason, boolean descriptor) {
        return build(dst, reason, descriptor, NONE, NONE, NONE, true);
    }

    private static int fixedFormat(byte[] dst, SenseReason r, long info, int field, int bit, boolean inCdb) {
        java.util.Arrays.fill(dst, 0, FIXED_LENGTH, (byte) 0);
        dst[0] = (byte) (0x70 | (info != NONE ? VALID : 0));
        dst[FIXED_KEY_OFFSET] = (byte) r.senseKey();
        if (info != NONE) {
            putInt(dst, FIXED_INFORMATION_OFFSET, (int) info);
        }
        dst[FIXED_ADDITIONAL_LENGTH_OFFSET] = (byte) (FIXED_LENGTH - 8);
        dst[FIXED_ASC_OFFSET] = (byte) r.asc();
        dst[FIXED_ASC_OFFSET + 1] = (byte) r.ascq();
        if (field != NONE) {
            writeFieldPointer(dst, FIXED_SKS_OFFSET, field, bit, inCdb);
        }
        return FIXED_LENGTH;
    }

    private static int descriptorFormat(byte[] dst, SenseReason r, long info, int field, int bit,
                                        boolean inCdb) {
        int n = DESC_HEADER_LENGTH + (info != NONE ? DESC_INFORMATION_LENGTH : 0)
                + (field != NONE ? DESC_SKS_LENGTH : 0);
        java.util.Arrays.fill(dst, 0, n, (byte) 0);
        dst[0] = 0x72;
        dst[1] = (byte) r.senseKey();
        dst[2] = (byte) r.asc();
        dst[3] = (byte) r.ascq();
        dst[7] = (byte) (n - DESC_HEADER_LENGTH);
        int p = DESC_HEADER_LENGTH;
        if (info != NONE) {
            // SPC-4 4.5.2.2: information descriptor, type 00h, additional length 0Ah
            dst[p] = 0x00;
            dst[p + 1] = 0x0A;
            dst[p + 2] = (byte) VALID;
            putLong(dst, p + 4, info);
            p += DESC_INFORMATION_LENGTH;
        }
        if (field != NONE) {
            // SPC-4 4.5.2.4: sense key specific descriptor, type 02h, additional length 06h
            dst[p] = 0x02;
            dst[p + 1] = 0x06;
            writeFieldPointer(dst, p + 4, field, bit, inCdb);
        }
        return n;
    }

    private static void writeFieldPointer(byte[] dst, int at, int field, int bit, boolean inCdb) {
        int b = SKSV | (inCdb ? CD : 0);
        if (bit != NONE) {
            b |= BPV | (bit & 7);
        }
        dst[at] = (byte) b;
        dst[at + 1] = (byte) (field >>> 8);
        dst[at + 2] = (byte) field;
    }

    private static void putInt(byte[] dst, int at, int v) {
        dst[at] = (byte) (v >>> 24);
        dst[at + 1] = (byte) (v >>> 16);
        dst[at + 2] = (byte) (v >>> 8);
        dst[at + 3] = (byte) v;
    }

    private static void putLong(byte[] dst, int at, long v) {
        putInt(dst, at, (int) (v >>> 32));
        putInt(dst, at + 4, (int) v);
    }
}
