package org.jtarget.scsi.sense;

/** SPC-4 4.5.6 table 37: sense keys. */
public final class SenseKey {
    public static final int NO_SENSE = 0x0;
    public static final int RECOVERED_ERROR = 0x1;
    public static final int NOT_READY = 0x2;
    public static final int MEDIUM_ERROR = 0x3;
    public static final int HARDWARE_ERROR = 0x4;
    public static final int ILLEGAL_REQUEST = 0x5;
    public static final int UNIT_ATTENTION = 0x6;
    public static final int DATA_PROTECT = 0x7;
    /** SPC-4 4.5.6: an EXTENDED COPY failed while processing its segments (SPC-4 5.16.7.4). */
    public static final int COPY_ABORTED = 0xA;
    public static final int ABORTED_COMMAND = 0xB;
    public static final int MISCOMPARE = 0xE;

    private SenseKey() {
    }
}
