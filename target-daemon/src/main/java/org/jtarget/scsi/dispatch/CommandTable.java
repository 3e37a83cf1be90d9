package org.jtarget.scsi.dispatch;

import org.jtarget.scsi.sbc.SbcReadCapacity;
import org.jtarget.scsi.sbc.SbcReadWrite;
import org.jtarget.scsi.sbc.SbcStartStopUnit;
import org.jtarget.scsi.sbc.SbcSynchronizeCache;
import org.jtarget.scsi.spc.SpcInquiry;
import org.jtarget.scsi.spc.SpcModeSelect;
import org.jtarget.scsi.spc.SpcModeSense;
import org.jtarget.scsi.spc.SpcReportLuns;
import org.jtarget.scsi.spc.SpcRequestSense;
import org.jtarget.scsi.spc.SpcTestUnitReady;

import static org.jtarget.scsi.cdb.Opcodes.*;
import static org.jtarget.scsi.dispatch.OpcodeEntry.*;
import static org.jtarget.scsi.sbc.SbcReadWrite.Kind.*;

/**
 * Every supported command, in opcode order (DESIGN 3 "Dispatch"; tgt's table idea): reading this
 * list shows what jtarget implements. Opcodes not listed get INVALID COMMAND OPERATION CODE.
 * Handlers are stateless, so one table serves every target.
 */
public final class CommandTable {

    private static final int SERVICE_ACTION_MASK = 0x1F;

    private final OpcodeEntry[] entries = new OpcodeEntry[256];

    /** The standard table. */
    public CommandTable() {
        int noLun = NO_LUN_OK | UA_EXEMPT;
        add(OpcodeEntry.of(TEST_UNIT_READY, "TEST UNIT READY", 6, new SpcTestUnitReady(), 0));
        add(OpcodeEntry.of(REQUEST_SENSE, "REQUEST SENSE", 6, new SpcRequestSense(), noLun));
        add(OpcodeEntry.of(READ_6, "READ(6)", 6, new SbcReadWrite(READ, 6), MEDIUM_IO));
        add(OpcodeEntry.of(WRITE_6, "WRITE(6)", 6, new SbcReadWrite(WRITE, 6), MEDIUM_IO | WRITES_MEDIUM));
        add(OpcodeEntry.of(INQUIRY, "INQUIRY", 6, new SpcInquiry(), noLun));
        add(OpcodeEntry.of(MODE_SELECT_6, "MODE SELECT(6)", 6, new SpcModeSelect(false), 0));
        add(OpcodeEntry.of(MODE_SENSE_6, "MODE SENSE(6)", 6, new SpcModeSense(false), 0));
        add(OpcodeEntry.of(START_STOP_UNIT, "START STOP UNIT", 6, new SbcStartStopUnit(), 0));
        add(OpcodeEntry.of(READ_CAPACITY_10, "READ CAPACITY(10)", 10, new SbcReadCapacity(false), 0));
        add(OpcodeEntry.of(READ_10, "READ(10)", 10, new SbcReadWrite(READ, 10), MEDIUM_IO));
        add(OpcodeEntry.of(WRITE_10, "WRITE(10)", 10, new SbcReadWrite(WRITE, 10), MEDIUM_IO | WRITES_MEDIUM));
        add(OpcodeEntry.of(VERIFY_10, "VERIFY(10)", 10, new SbcReadWrite(VERIFY, 10), MEDIUM_IO));
        add(OpcodeEntry.of(SYNCHRONIZE_CACHE_10, "SYNCHRONIZE CACHE(10)", 10, new SbcSynchronizeCache(false), MEDIUM_IO));
        add(OpcodeEntry.of(MODE_SELECT_10, "MODE SELECT(10)", 10, new SpcModeSelect(true), 0));
        add(OpcodeEntry.of(MODE_SENSE_10, "MODE SENSE(10)", 10, new SpcModeSense(true), 0));
        add(OpcodeEntry.of(READ_16, "READ(16)", 16, new SbcReadWrite(READ, 16), MEDIUM_IO));
        add(OpcodeEntry.of(WRITE_16, "WRITE(16)", 16, new SbcReadWrite(WRITE, 16), MEDIUM_IO | WRITES_MEDIUM));
        add(OpcodeEntry.of(VERIFY_16, "VERIFY(16)", 16, new SbcReadWrite(VERIFY, 16), MEDIUM_IO));
        add(OpcodeEntry.of(SYNCHRONIZE_CACHE_16, "SYNCHRONIZE CACHE(16)", 16, new SbcSynchronizeCache(true), MEDIUM_IO));
        add(serviceActionIn16());
        add(OpcodeEntry.of(REPORT_LUNS, "REPORT LUNS", 12, new SpcReportLuns(), noLun));
        add(OpcodeEntry.of(READ_12, "READ(12)", 12, new SbcReadWrite(READ, 12), MEDIUM_IO));
        add(OpcodeEntry.of(WRITE_12, "WRITE(12)", 12, new SbcReadWrite(WRITE, 12), MEDIUM_IO | WRITES_MEDIUM));
        add(OpcodeEntry.of(VERIFY_12, "VERIFY(12)", 12, new SbcReadWrite(VERIFY, 12), MEDIUM_IO));
    }

    private static OpcodeEntry serviceActionIn16() {
        OpcodeEntry[] sa = new OpcodeEntry[32];
        sa[SA_READ_CAPACITY_16] = OpcodeEntry.of(SERVICE_ACTION_IN_16, "READ CAPACITY(16)", 16,
                new SbcReadCapacity(true), 0);
        return new OpcodeEntry(SERVICE_ACTION_IN_16, "SERVICE ACTION IN(16)", 16, null, 0, sa);
    }

    private void add(OpcodeEntry e) {
        if (entries[e.opcode()] != null) {
            throw new IllegalStateException("duplicate opcode " + e.opcode());
        }
        entries[e.opcode()] = e;
    }

    /** The row for this CDB (resolving the service action), or null if not supported. */
    public OpcodeEntry lookup(byte[] cdb) {
        OpcodeEntry e = entries[cdb[0] & 0xFF];
        if (e != null && e.serviceActions() != null) {
            return e.serviceActions()[cdb[1] & SERVICE_ACTION_MASK];
        }
        return e;
    }
}
