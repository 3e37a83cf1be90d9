package org.jtarget.initiator.cli;

import java.util.Map;

/** Sense keys and the common additional sense codes in words (SPC-4 4.5.6 table 47, annex D). */
public final class SenseText {

    private static final String[] SENSE_KEYS = {"NO SENSE", "RECOVERED ERROR", "NOT READY", "MEDIUM ERROR",
        "HARDWARE ERROR", "ILLEGAL REQUEST", "UNIT ATTENTION", "DATA PROTECT", "BLANK CHECK", "VENDOR SPECIFIC",
        "COPY ABORTED", "ABORTED COMMAND", "RESERVED", "VOLUME OVERFLOW", "MISCOMPARE", "COMPLETED"};

    /** ASC << 8 | ASCQ -> text, for the codes a block target commonly returns. */
    private static final Map<Integer, String> ASC_ASCQ = Map.ofEntries(
            Map.entry(0x0000, "NO ADDITIONAL SENSE INFORMATION"),
            Map.entry(0x0400, "LOGICAL UNIT NOT READY, CAUSE NOT REPORTABLE"),
            Map.entry(0x0C00, "WRITE ERROR"),
            Map.entry(0x1100, "UNRECOVERED READ ERROR"),
            Map.entry(0x1A00, "PARAMETER LIST LENGTH ERROR"),
            Map.entry(0x1D00, "MISCOMPARE DURING VERIFY OPERATION"),
            Map.entry(0x2000, "INVALID COMMAND OPERATION CODE"),
            Map.entry(0x2100, "LOGICAL BLOCK ADDRESS OUT OF RANGE"),
            Map.entry(0x2400, "INVALID FIELD IN CDB"),
            Map.entry(0x2500, "LOGICAL UNIT NOT SUPPORTED"),
            Map.entry(0x2600, "INVALID FIELD IN PARAMETER LIST"),
            Map.entry(0x2700, "WRITE PROTECTED"),
            Map.entry(0x2900, "POWER ON, RESET, OR BUS DEVICE RESET OCCURRED"),
            Map.entry(0x2A01, "MODE PARAMETERS CHANGED"),
            Map.entry(0x2A09, "CAPACITY DATA HAS CHANGED"),
            Map.entry(0x3A00, "MEDIUM NOT PRESENT"),
            Map.entry(0x3F0E, "REPORTED LUNS DATA HAS CHANGED"),
            Map.entry(0x4700, "SCSI PARITY ERROR"),
            Map.entry(0x4B00, "DATA PHASE ERROR"),
            Map.entry(0x5500, "SYSTEM RESOURCE FAILURE"));

    private SenseText() {
    }

    /** The sense key's name, e.g. "ILLEGAL REQUEST". */
    public static String senseKey(int key) {
        return key >= 0 && key < SENSE_KEYS.length ? SENSE_KEYS[key] : "UNKNOWN";
    }

    /** The ASC/ASCQ in words, or "ASC 0xNN ASCQ 0xNN" when not in the table. */
    public static String ascAscq(int asc, int ascq) {
        String s = ASC_ASCQ.get((asc << 8) | ascq);
        return s != null ? s : String.format("ASC 0x%02X ASCQ 0x%02X", asc, ascq);
    }

    /** The line printed for a CHECK CONDITION, e.g. "ILLEGAL REQUEST (0x5) 21/00 LOGICAL BLOCK ADDRESS OUT OF RANGE". */
    public static String describe(int key, int asc, int ascq) {
        if (key < 0) {
            return "no sense data";
        }
        return String.format("%s (0x%X) %02X/%02X %s", senseKey(key), key, asc & 0xff, ascq & 0xff,
                asc < 0 ? "" : ascAscq(asc, ascq));
    }
}
