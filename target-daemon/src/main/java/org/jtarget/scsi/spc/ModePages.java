package org.jtarget.scsi.spc;

import org.jtarget.scsi.lun.LogicalUnit;

/**
 * The mode pages a logical unit reports (SPC-4 7.5, SBC-4 6.5), in page-code order, each as
 * <pre>0 PS(7) SPF(6) PAGE CODE(5..0) | 1 PAGE LENGTH | 2.. parameters</pre>
 * Only caching WCE and control D_SENSE and SWP are changeable ({@link ModeParameters}).
 */
final class ModePages {

    static final int PC_CURRENT = 0;
    static final int PC_CHANGEABLE = 1;
    static final int PC_DEFAULT = 2;
    static final int PC_SAVED = 3;
    static final int ALL_PAGES = 0x3F;

    static final int READ_WRITE_ERROR_RECOVERY = 0x01;
    static final int CACHING = 0x08;
    static final int CONTROL = 0x0A;
    static final int INFORMATIONAL_EXCEPTIONS = 0x1C;
    static final int[] PAGE_CODES = {READ_WRITE_ERROR_RECOVERY, CACHING, CONTROL, INFORMATIONAL_EXCEPTIONS};

    /** SBC-4 6.5.5: caching page byte 2 bit 2. */
    static final int CACHING_FLAGS_OFFSET = 2;
    static final int WCE = 0x04;
    /** SPC-4 7.5.8: control page byte 2 bit 2. */
    static final int CONTROL_FLAGS_OFFSET = 2;
    static final int D_SENSE = 0x04;
    /** Control page byte 4: VS, RAC, UA_INTLCK_CTRL, SWP (bit 3). */
    static final int CONTROL_SWP_OFFSET = 4;
    static final int SWP = 0x08;
    /** Control page byte 3: QUEUE ALGORITHM MODIFIER 1h = unrestricted reordering allowed. */
    private static final int QAM_UNRESTRICTED = 0x10;

    private ModePages() {
    }

    static boolean supports(int page) {
        for (int p : PAGE_CODES) {
            if (p == page) {
                return true;
            }
        }
        return false;
    }

    /** The page bytes for page control {@code pc} (current, changeable or default). */
    static byte[] page(int code, int pc, LogicalUnit lu) {
        ModeParameters m = lu.modes();
        return switch (code) {
            case READ_WRITE_ERROR_RECOVERY -> blank(code, 12);
            case CACHING -> {
                byte[] p = blank(code, 20);
                boolean wce = pc == PC_CHANGEABLE || (pc == PC_CURRENT ? m.writeCacheEnabled()
                        : m.defaultWriteCacheEnabled());
                p[CACHING_FLAGS_OFFSET] = (byte) (wce ? WCE : 0);
                yield p;
            }
            case CONTROL -> control(pc, m);
            case INFORMATIONAL_EXCEPTIONS -> blank(code, 12);
            default -> throw new IllegalArgumentException("mode page " + code);
        };
    }

    private static byte[] control(int pc, ModeParameters m) {
        byte[] p = blank(CONTROL, 12);
        if (pc == PC_CHANGEABLE) {
            p[CONTROL_FLAGS_OFFSET] = D_SENSE;
            p[CONTROL_SWP_OFFSET] = SWP;
            return p;
        }
        boolean dSense = pc == PC_CURRENT && m.descriptorSense();
        p[CONTROL_FLAGS_OFFSET] = (byte) (dSense ? D_SENSE : 0); // TST=000b: one task set
        p[CONTROL_SWP_OFFSET] = (byte) (pc == PC_CURRENT && m.softwareWriteProtect() ? SWP : 0);
        p[3] = QAM_UNRESTRICTED; // QERR=00b
        p[8] = (byte) 0xFF; // BUSY TIMEOUT PERIOD: unlimited
        p[9] = (byte) 0xFF;
        return p;
    }

    private static byte[] blank(int code, int length) {
        byte[] p = new byte[length];
        p[0] = (byte) code;
        p[1] = (byte) (length - 2);
        return p;
    }

    /** Applies a validated page from MODE SELECT to the LU's parameters. */
    static void apply(byte[] page, LogicalUnit lu) {
        int code = page[0] & 0x3F;
        if (code == CACHING) {
            lu.modes().writeCacheEnabled((page[CACHING_FLAGS_OFFSET] & WCE) != 0);
        } else if (code == CONTROL) {
            lu.modes().descriptorSense((page[CONTROL_FLAGS_OFFSET] & D_SENSE) != 0);
            lu.modes().softwareWriteProtect((page[CONTROL_SWP_OFFSET] & SWP) != 0);
        }
    }
}
