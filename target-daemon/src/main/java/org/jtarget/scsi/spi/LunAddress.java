package org.jtarget.scsi.spi;

/**
 * The 8-byte LUN field (SAM-5 4.7): LUNs below 256 use peripheral device addressing (00b),
 * larger ones flat space addressing (01b), as Linux and libiscsi expect. One codec for every
 * fabric and for REPORT LUNS, so what is reported is exactly what is accepted.
 */
public final class LunAddress {

    /** Returned for an address this target cannot represent; the core reports it as not supported. */
    public static final int UNSUPPORTED = -1;

    private static final int METHOD_PERIPHERAL = 0;
    private static final int METHOD_FLAT = 1;

    private LunAddress() {
    }

    /** Encodes a LUN number (0..16383) as the 64-bit LUN field. */
    public static long encode(int lun) {
        long first = lun < 256 ? lun : (0x4000 | (lun & 0x3FFF));
        return first << 48;
    }

    /**
     * Decodes a single-level LUN field.
     *
     * @return the LUN number, or {@link #UNSUPPORTED} for other addressing methods, a non-zero
     *         bus identifier, or a second level (SAM-5 4.7.2: hierarchical addressing is not used here)
     */
    public static int decode(long field) {
        if ((field & 0x0000_ffff_ffff_ffffL) != 0) {
            return UNSUPPORTED;
        }
        int first = (int) (field >>> 48) & 0xFFFF;
        int method = first >>> 14;
        if (method == METHOD_PERIPHERAL) {
            return (first & 0x3F00) == 0 ? first & 0xFF : UNSUPPORTED;
        }
        return method == METHOD_FLAT ? first & 0x3FFF : UNSUPPORTED;
    }
}
