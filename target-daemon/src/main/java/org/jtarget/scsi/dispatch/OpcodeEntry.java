package org.jtarget.scsi.dispatch;

/**
 * One row of the {@link CommandTable} (DESIGN 3 "Dispatch").
 *
 * @param opcode         operation code
 * @param name           T10 name, for logs
 * @param cdbLength      CDB length; the control byte is its last byte (SAM-5 5.2)
 * @param handler        parser and executor, or null for a row that only holds service actions
 * @param flags          {@link #NO_LUN_OK}, {@link #UA_EXEMPT}, {@link #MEDIUM_IO}, {@link #WRITES_MEDIUM}
 * @param serviceActions 32 rows by SERVICE ACTION (CDB byte 1 bits 4..0), or null
 */
public record OpcodeEntry(int opcode, String name, int cdbLength, CommandHandler handler, int flags,
                          OpcodeEntry[] serviceActions) {

    /** Allowed on a LUN with no logical unit (SPC-4 4.x: INQUIRY, REPORT LUNS, REQUEST SENSE). */
    public static final int NO_LUN_OK = 1;
    /** Neither reports nor clears a unit attention (SAM-5 5.14 / SPC-4 5.x). */
    public static final int UA_EXEMPT = 1 << 1;
    /** Does store I/O: runs on the LU's I/O executor unless the store is non-blocking. */
    public static final int MEDIUM_IO = 1 << 2;
    /** Modifies the medium: refused with DATA PROTECT on a read-only LU. */
    public static final int WRITES_MEDIUM = 1 << 3;

    /** A plain row. */
    public static OpcodeEntry of(int opcode, String name, int cdbLength, CommandHandler handler, int flags) {
        return new OpcodeEntry(opcode, name, cdbLength, handler, flags, null);
    }

    public boolean has(int flag) {
        return (flags & flag) != 0;
    }
}
