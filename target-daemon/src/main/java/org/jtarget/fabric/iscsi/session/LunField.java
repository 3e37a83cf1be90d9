package org.jtarget.fabric.iscsi.session;

/**
 * Decodes the 8-byte LUN field of iSCSI PDUs (RFC 7143 11.2.1.3 uses the SAM-5 4.7 encoding).
 * Only single-level LUNs are supported: peripheral device addressing (method 00b, bus 0) and flat
 * space addressing (method 01b), which together cover LUNs 0..16383.
 *
 * <pre>
 *  byte 0: | method (2) | bus id / LUN high 6 bits |   byte 1: LUN low 8 bits   bytes 2-7: 0
 * </pre>
 */
public final class LunField {

    /** Returned for an address this target cannot represent; the core reports it as not supported. */
    public static final int UNSUPPORTED = -1;

    private static final int METHOD_PERIPHERAL = 0;
    private static final int METHOD_FLAT = 1;

    private LunField() {
    }

    /** @return the LUN number, or {@link #UNSUPPORTED} for other addressing methods or levels */
    public static int decode(long field) {
        int b0 = (int) (field >>> 56) & 0xff;
        int b1 = (int) (field >>> 48) & 0xff;
        int method = b0 >>> 6;
        if ((field & 0x0000_ffff_ffff_ffffL) != 0) {
            return UNSUPPORTED; // SAM-5 4.7.2: second-level addressing is not supported
        }
        if (method == METHOD_PERIPHERAL) {
            return (b0 & 0x3f) == 0 ? b1 : UNSUPPORTED;
        }
        if (method == METHOD_FLAT) {
            return ((b0 & 0x3f) << 8) | b1;
        }
        return UNSUPPORTED;
    }

    /** Encodes a LUN as SAM-5 peripheral (LUN < 256) or flat space addressing. */
    public static long encode(int lun) {
        if (lun < 256) {
            return (long) lun << 48;
        }
        return ((long) (0x40 | ((lun >>> 8) & 0x3f)) << 56) | ((long) (lun & 0xff) << 48);
    }
}
