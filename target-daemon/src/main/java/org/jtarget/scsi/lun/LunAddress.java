package org.jtarget.scsi.lun;

/**
 * The 8-byte LUN field (SAM-5 4.7): LUNs below 256 use peripheral device addressing (00b),
 * larger ones flat space addressing (01b), as Linux and libiscsi expect.
 */
public final class LunAddress {

    private LunAddress() {
    }

    /** Encodes a LUN number as the 64-bit LUN field. */
    public static long encode(int lun) {
        long first = lun < 256 ? lun : (0x4000 | (lun & 0x3FFF));
        return first << 48;
    }

    /** Decodes the first level of a 64-bit LUN field (peripheral or flat addressing). */
    public static int decode(long field) {
        int first = (int) (field >>> 48) & 0xFFFF;
        int method = first >>> 14;
        return method == 1 ? first & 0x3FFF : (first & 0xFF);
    }
}
