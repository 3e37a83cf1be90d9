package org.jtarget.scsi.dispatch;

import org.jtarget.scsi.alua.SpcReportTargetPortGroups;
import org.jtarget.scsi.alua.SpcSetTargetPortGroups;
import org.jtarget.scsi.copy.SpcExtendedCopy;
import org.jtarget.scsi.copy.SpcReceiveCopyResults;
import org.jtarget.scsi.pr.SpcPersistentReserveIn;
import org.jtarget.scsi.pr.SpcPersistentReserveOut;
import org.jtarget.scsi.pr.SpcReserveRelease;
import org.jtarget.scsi.sbc.SbcCompareAndWrite;
import org.jtarget.scsi.sbc.SbcOrWrite;
import org.jtarget.scsi.sbc.SbcPreFetch;
import org.jtarget.scsi.sbc.SbcGetLbaStatus;
import org.jtarget.scsi.sbc.SbcReadCapacity;
import org.jtarget.scsi.sbc.SbcReadDefectData;
import org.jtarget.scsi.sbc.SbcPreventAllowMediumRemoval;
import org.jtarget.scsi.sbc.SbcReadWrite;
import org.jtarget.scsi.sbc.SbcSanitize;
import org.jtarget.scsi.sbc.SbcStartStopUnit;
import org.jtarget.scsi.sbc.SbcSynchronizeCache;
import org.jtarget.scsi.sbc.SbcUnmap;
import org.jtarget.scsi.sbc.SbcWriteAtomic;
import org.jtarget.scsi.sbc.SbcWriteSame;
import org.jtarget.scsi.spc.SpcInquiry;
import org.jtarget.scsi.spc.SpcModeSelect;
import org.jtarget.scsi.spc.SpcModeSense;
import org.jtarget.scsi.spc.SpcReportLuns;
import org.jtarget.scsi.spc.SpcReportSupportedOpcodes;
import org.jtarget.scsi.spc.SpcReportSupportedTmfs;
import org.jtarget.scsi.spc.SpcRequestSense;
import org.jtarget.scsi.spc.SpcTestUnitReady;

import static org.jtarget.scsi.cdb.Opcodes.*;
import static org.jtarget.scsi.dispatch.OpcodeEntry.*;
import static org.jtarget.scsi.pr.ReservationRule.*;
import static org.jtarget.scsi.sbc.SbcReadWrite.Kind.*;

/**
 * Every supported command, in opcode order (DESIGN 3 "Dispatch"; tgt's table idea): reading this
 * list shows what jtarget implements, and REPORT SUPPORTED OPERATION CODES is generated from it.
 * Opcodes not listed get INVALID COMMAND OPERATION CODE. Handlers are stateless, so one table
 * serves every target.
 *
 * <p>The last column of each row is its CDB usage map (SPC-4 6.35.3): a one bit for every CDB bit
 * the handler honours. Fields the core only accepts as zero (RDPROTECT/WRPROTECT, NACA/LINK) are
 * zero there: for this device server they are not supported.
 */
public final class CommandTable {

    private static final int SERVICE_ACTION_MASK = 0x1F;
    private static final int READ_IO = MEDIUM_IO | RANGE_SHARED | NEEDS_MEDIUM;
    private static final int WRITE_IO = MEDIUM_IO | WRITES_MEDIUM | RANGE_SHARED | NEEDS_MEDIUM;
    private static final int RMW_IO = MEDIUM_IO | WRITES_MEDIUM | RANGE_EXCLUSIVE | NEEDS_MEDIUM;
    private static final String LBA10 = " FFFFFFFF 00 FFFF 00";
    private static final String LBA12 = " FFFFFFFF FFFFFFFF 00 00";
    private static final String LBA16 = " FFFFFFFFFFFFFFFF FFFFFFFF 00 00";

    private final OpcodeEntry[] entries = new OpcodeEntry[256];

    /** The standard table. */
    public CommandTable() {
        // INQUIRY, REQUEST SENSE, REPORT LUNS: also the commands every ALUA state answers (SPC-4 5.15.2.4.6)
        int noLun = NO_LUN_OK | UA_EXEMPT | ALUA_ANY_STATE;
        add(OpcodeEntry.of(TEST_UNIT_READY, "TEST UNIT READY", 6, new SpcTestUnitReady(), NEEDS_MEDIUM, ALLOWED, "00 00 00 00 00 00"));
        add(OpcodeEntry.of(REQUEST_SENSE, "REQUEST SENSE", 6, new SpcRequestSense(), noLun, EXEMPT, "03 01 00 00 FF 00"));
        add(OpcodeEntry.of(READ_6, "READ(6)", 6, new SbcReadWrite(READ, 6), READ_IO, MEDIUM_READ, "08 1F FFFF FF 00"));
        add(OpcodeEntry.of(WRITE_6, "WRITE(6)", 6, new SbcReadWrite(WRITE, 6), WRITE_IO, CONFLICT, "0A 1F FFFF FF 00"));
        add(OpcodeEntry.of(INQUIRY, "INQUIRY", 6, new SpcInquiry(), noLun, EXEMPT, "12 01 FF FFFF 00"));
        add(OpcodeEntry.of(MODE_SELECT_6, "MODE SELECT(6)", 6, new SpcModeSelect(false), ALUA_STANDBY | OFF_LOOP, CONFLICT, "15 10 00 00 FF 00"));
        add(OpcodeEntry.of(RESERVE_6, "RESERVE(6)", 6, new SpcReserveRelease(true, false), 0, ALLOWED,
                "16 00 00 00 00 00"));
        add(OpcodeEntry.of(RELEASE_6, "RELEASE(6)", 6, new SpcReserveRelease(false, false), 0, EXEMPT,
                "17 00 00 00 00 00"));
        add(OpcodeEntry.of(MODE_SENSE_6, "MODE SENSE(6)", 6, new SpcModeSense(false), ALUA_STANDBY, CONFLICT, "1A 08 FF FF FF 00"));
        add(OpcodeEntry.of(START_STOP_UNIT, "START STOP UNIT", 6, new SbcStartStopUnit(), OFF_LOOP, START_STOP, "1B 01 00 0F F7 00"));
        // SBC-4 5.15: per I_T nexus; PREVENT = 00b allowed through reservations
        add(OpcodeEntry.of(PREVENT_ALLOW_MEDIUM_REMOVAL, "PREVENT ALLOW MEDIUM REMOVAL", 6,
                new SbcPreventAllowMediumRemoval(), 0, PREVENT_ALLOW, "1E 00 00 00 03 00"));
        // READ CAPACITY runs in standby too (SPC-4 5.15.2.4.4 lets a device server answer more than
        // its list): Linux's sd sizes a disk by it when the path appears, and a standby path (an HA
        // secondary's) sized 0 fails every I/O once multipath uses it ("access beyond end of device").
        add(OpcodeEntry.of(READ_CAPACITY_10, "READ CAPACITY(10)", 10, new SbcReadCapacity(false),
                NEEDS_MEDIUM | ALUA_STANDBY, ALLOWED, "25 00 00000000 00 00 00 00"));
        add(OpcodeEntry.of(READ_10, "READ(10)", 10, new SbcReadWrite(READ, 10), READ_IO, MEDIUM_READ, "28 18" + LBA10));
        add(OpcodeEntry.of(WRITE_10, "WRITE(10)", 10, new SbcReadWrite(WRITE, 10), WRITE_IO, CONFLICT, "2A 18" + LBA10));
        add(OpcodeEntry.of(WRITE_AND_VERIFY_10, "WRITE AND VERIFY(10)", 10, new SbcReadWrite(WRITE_AND_VERIFY, 10),
                WRITE_IO, CONFLICT, "2E 16" + LBA10));
        add(OpcodeEntry.of(VERIFY_10, "VERIFY(10)", 10, new SbcReadWrite(VERIFY, 10), READ_IO, MEDIUM_READ, "2F 16" + LBA10));
        add(OpcodeEntry.of(PRE_FETCH_10, "PRE-FETCH(10)", 10, new SbcPreFetch(false), NEEDS_MEDIUM, MEDIUM_READ, "34 02" + LBA10));
        add(OpcodeEntry.of(SYNCHRONIZE_CACHE_10, "SYNCHRONIZE CACHE(10)", 10, new SbcSynchronizeCache(false),
                MEDIUM_IO | NEEDS_MEDIUM, CONFLICT, "35 02" + LBA10));
        // SBC-4 5.13: no defects; the header in the requested format
        add(OpcodeEntry.of(READ_DEFECT_DATA_10, "READ DEFECT DATA(10)", 10, new SbcReadDefectData(false), 0,
                MEDIUM_READ, "37 00 1F 00000000 FFFF 00"));
        // SBC-4 5.48: ANCHOR/PBDATA/LBDATA/WRPROTECT only accepted as zero
        add(OpcodeEntry.of(WRITE_SAME_10, "WRITE SAME(10)", 10, new SbcWriteSame(false), WRITE_IO, CONFLICT,
                "41 08" + LBA10));
        // SBC-4 5.32: only on a thin LU; the whole LU is held shared (ranges arrive with the data)
        add(OpcodeEntry.of(UNMAP, "UNMAP", 10, new SbcUnmap(), WRITE_IO | NEEDS_UNMAP, CONFLICT,
                "42 00 00000000 00 FFFF 00"));
        add(sanitize());
        add(OpcodeEntry.of(MODE_SELECT_10, "MODE SELECT(10)", 10, new SpcModeSelect(true), ALUA_STANDBY | OFF_LOOP, CONFLICT,
                "55 10 00 00 00 00 00 FFFF 00"));
        add(OpcodeEntry.of(RESERVE_10, "RESERVE(10)", 10, new SpcReserveRelease(true, true), 0, ALLOWED,
                "56 00 00 00 00 00 00 00 00 00"));
        add(OpcodeEntry.of(RELEASE_10, "RELEASE(10)", 10, new SpcReserveRelease(false, true), 0, EXEMPT,
                "57 00 00 00 00 00 00 00 00 00"));
        add(OpcodeEntry.of(MODE_SENSE_10, "MODE SENSE(10)", 10, new SpcModeSense(true), ALUA_STANDBY, CONFLICT,
                "5A 18 FF FF 00 00 00 FFFF 00"));
        add(persistentReserveIn());
        add(persistentReserveOut());
        add(extendedCopy());
        add(receiveCopyResults());
        add(OpcodeEntry.of(READ_16, "READ(16)", 16, new SbcReadWrite(READ, 16), READ_IO, MEDIUM_READ, "88 18" + LBA16));
        add(OpcodeEntry.of(COMPARE_AND_WRITE, "COMPARE AND WRITE", 16, new SbcCompareAndWrite(), RMW_IO, CONFLICT,
                "89 18 FFFFFFFFFFFFFFFF 000000 FF 00 00"));
        add(OpcodeEntry.of(WRITE_16, "WRITE(16)", 16, new SbcReadWrite(WRITE, 16), WRITE_IO, CONFLICT, "8A 18" + LBA16));
        add(OpcodeEntry.of(ORWRITE_16, "ORWRITE(16)", 16, new SbcOrWrite(), RMW_IO, CONFLICT, "8B 18" + LBA16));
        add(OpcodeEntry.of(WRITE_AND_VERIFY_16, "WRITE AND VERIFY(16)", 16, new SbcReadWrite(WRITE_AND_VERIFY, 16),
                WRITE_IO, CONFLICT, "8E 16" + LBA16));
        add(OpcodeEntry.of(VERIFY_16, "VERIFY(16)", 16, new SbcReadWrite(VERIFY, 16), READ_IO, MEDIUM_READ, "8F 16" + LBA16));
        add(OpcodeEntry.of(PRE_FETCH_16, "PRE-FETCH(16)", 16, new SbcPreFetch(true), NEEDS_MEDIUM, MEDIUM_READ, "90 02" + LBA16));
        add(OpcodeEntry.of(SYNCHRONIZE_CACHE_16, "SYNCHRONIZE CACHE(16)", 16, new SbcSynchronizeCache(true),
                MEDIUM_IO | NEEDS_MEDIUM, CONFLICT, "91 02" + LBA16));
        // SBC-4 5.49: as WRITE SAME(10), plus NDOB
        add(OpcodeEntry.of(WRITE_SAME_16, "WRITE SAME(16)", 16, new SbcWriteSame(true), WRITE_IO, CONFLICT,
                "93 09" + LBA16));
        // SBC-4 5.46: atomic, so the range is held EXCLUSIVE; ATOMIC BOUNDARY only accepted as zero
        add(OpcodeEntry.of(WRITE_ATOMIC_16, "WRITE ATOMIC(16)", 16, new SbcWriteAtomic(), RMW_IO, CONFLICT,
                "9C 18 FFFFFFFFFFFFFFFF 0000 FFFF 00 00"));
        add(serviceActionIn16());
        add(OpcodeEntry.of(REPORT_LUNS, "REPORT LUNS", 12, new SpcReportLuns(), noLun, EXEMPT,
                "A0 00 FF 000000 FFFFFFFF 00 00"));
        add(maintenanceIn());
        add(maintenanceOut());
        add(OpcodeEntry.of(READ_12, "READ(12)", 12, new SbcReadWrite(READ, 12), READ_IO, MEDIUM_READ, "A8 18" + LBA12));
        add(OpcodeEntry.of(WRITE_12, "WRITE(12)", 12, new SbcReadWrite(WRITE, 12), WRITE_IO, CONFLICT, "AA 18" + LBA12));
        add(OpcodeEntry.of(WRITE_AND_VERIFY_12, "WRITE AND VERIFY(12)", 12, new SbcReadWrite(WRITE_AND_VERIFY, 12),
                WRITE_IO, CONFLICT, "AE 16" + LBA12));
        add(OpcodeEntry.of(VERIFY_12, "VERIFY(12)", 12, new SbcReadWrite(VERIFY, 12), READ_IO, MEDIUM_READ, "AF 16" + LBA12));
        // SBC-4 5.14: no defects; ADDRESS DESCRIPTOR INDEX is accepted (any index of an empty list)
        add(OpcodeEntry.of(READ_DEFECT_DATA_12, "READ DEFECT DATA(12)", 12, new SbcReadDefectData(true), 0,
                MEDIUM_READ, "B7 1F FFFFFFFF FFFFFFFF 00 00"));
    }

    /**
     * EXTENDED COPY (SPC-4 6.4, 83h), service action LID1 only: conflicts like a WRITE on the copy
     * manager LU (the copy targets' reservations are checked by the handler); its I/O runs on the
     * I/O executors chunk by chunk, holding the copy targets' ranges itself.
     */
    private static OpcodeEntry extendedCopy() {
        OpcodeEntry[] sa = new OpcodeEntry[32];
        sa[0] = OpcodeEntry.ofServiceAction(EXTENDED_COPY, 0, "EXTENDED COPY(LID1)", 16, new SpcExtendedCopy(),
                0, CONFLICT, "83 00 0000000000000000 FFFFFFFF 00 00");
        return new OpcodeEntry(EXTENDED_COPY, -1, "EXTENDED COPY", 16, null, 0, null, null, sa);
    }

    /** RECEIVE COPY RESULTS (SPC-4 6.18, 84h): COPY STATUS and OPERATING PARAMETERS. */
    private static OpcodeEntry receiveCopyResults() {
        OpcodeEntry[] sa = new OpcodeEntry[32];
        sa[SpcReceiveCopyResults.COPY_STATUS] = OpcodeEntry.ofServiceAction(RECEIVE_COPY_RESULTS,
                SpcReceiveCopyResults.COPY_STATUS, "RECEIVE COPY RESULTS COPY STATUS", 16,
                new SpcReceiveCopyResults(SpcReceiveCopyResults.COPY_STATUS), 0, ALLOWED,
                "84 00 FF 00000000000000 FFFFFFFF 00 00");
        sa[SpcReceiveCopyResults.OPERATING_PARAMETERS] = OpcodeEntry.ofServiceAction(RECEIVE_COPY_RESULTS,
                SpcReceiveCopyResults.OPERATING_PARAMETERS, "RECEIVE COPY RESULTS OPERATING PARAMETERS", 16,
                new SpcReceiveCopyResults(SpcReceiveCopyResults.OPERATING_PARAMETERS), 0, ALLOWED,
                "84 03 00 00000000000000 FFFFFFFF 00 00");
        return new OpcodeEntry(RECEIVE_COPY_RESULTS, -1, "RECEIVE COPY RESULTS", 16, null, 0, null, null, sa);
    }

    private static OpcodeEntry serviceActionIn16() {
        OpcodeEntry[] sa = new OpcodeEntry[32];
        sa[SA_READ_CAPACITY_16] = OpcodeEntry.ofServiceAction(SERVICE_ACTION_IN_16, SA_READ_CAPACITY_16,
                "READ CAPACITY(16)", 16, new SbcReadCapacity(true), NEEDS_MEDIUM | ALUA_STANDBY, ALLOWED,
                "9E 10 0000000000000000 FFFFFFFF 00 00"); // in standby too: see READ CAPACITY(10)
        // SBC-4 5.7: the store's mapped/deallocated runs (MEDIUM_IO: a file store may seek)
        sa[SA_GET_LBA_STATUS] = OpcodeEntry.ofServiceAction(SERVICE_ACTION_IN_16, SA_GET_LBA_STATUS,
                "GET LBA STATUS", 16, new SbcGetLbaStatus(), MEDIUM_IO | NEEDS_MEDIUM, MEDIUM_READ,
                "9E 12 FFFFFFFFFFFFFFFF FFFFFFFF 00 00");
        return new OpcodeEntry(SERVICE_ACTION_IN_16, -1, "SERVICE ACTION IN(16)", 16, null, 0, null, null, sa);
    }

    /**
     * SANITIZE (SBC-4 5.30, 48h): a write of the whole medium (CONFLICT, DATA PROTECT on a read-only
     * LU), off the event loop. BLOCK ERASE exists only on a thin LU (libiscsi's Sanitize.BlockErase
     * requires LBPME = 1 with it); CRYPTOGRAPHIC ERASE only on a LU whose store encrypts
     * ({@code encrypt: true}), the only place it means anything.
     */
    private static OpcodeEntry sanitize() {
        OpcodeEntry[] sa = new OpcodeEntry[32];
        int erase = MEDIUM_IO | WRITES_MEDIUM | RANGE_EXCLUSIVE | OFF_LOOP;
        sa[SA_SANITIZE_OVERWRITE] = OpcodeEntry.ofServiceAction(SANITIZE, SA_SANITIZE_OVERWRITE,
                "SANITIZE OVERWRITE", 10, new SbcSanitize(SA_SANITIZE_OVERWRITE), erase, CONFLICT,
                "48 A1 00 00 00 00 00 FFFF 00");
        sa[SA_SANITIZE_BLOCK_ERASE] = OpcodeEntry.ofServiceAction(SANITIZE, SA_SANITIZE_BLOCK_ERASE,
                "SANITIZE BLOCK ERASE", 10, new SbcSanitize(SA_SANITIZE_BLOCK_ERASE), erase | NEEDS_UNMAP, CONFLICT,
                "48 A2 00 00 00 00 00 FFFF 00");
        sa[SA_SANITIZE_CRYPTOGRAPHIC_ERASE] = OpcodeEntry.ofServiceAction(SANITIZE, SA_SANITIZE_CRYPTOGRAPHIC_ERASE,
                "SANITIZE CRYPTOGRAPHIC ERASE", 10, new SbcSanitize(SA_SANITIZE_CRYPTOGRAPHIC_ERASE),
                erase | NEEDS_CRYPTO_ERASE, CONFLICT, "48 A3 00 00 00 00 00 FFFF 00");
        sa[SA_SANITIZE_EXIT_FAILURE_MODE] = OpcodeEntry.ofServiceAction(SANITIZE, SA_SANITIZE_EXIT_FAILURE_MODE,
                "SANITIZE EXIT FAILURE MODE", 10, new SbcSanitize(SA_SANITIZE_EXIT_FAILURE_MODE), 0, CONFLICT,
                "48 9F 00 00 00 00 00 FFFF 00");
        return new OpcodeEntry(SANITIZE, -1, "SANITIZE", 10, null, 0, null, null, sa);
    }

    /** PERSISTENT RESERVE IN (SPC-4 6.14, 5Eh): never conflicts (SPC-4 table 72, SPC-2 5.5.1). */
    private static OpcodeEntry persistentReserveIn() {
        OpcodeEntry[] sa = new OpcodeEntry[32];
        String[] names = {"READ KEYS", "READ RESERVATION", "REPORT CAPABILITIES", "READ FULL STATUS"};
        for (int i = 0; i < names.length; i++) {
            sa[i] = OpcodeEntry.ofServiceAction(PERSISTENT_RESERVE_IN, i, "PERSISTENT RESERVE IN " + names[i], 10,
                    new SpcPersistentReserveIn(i), ALUA_STANDBY, EXEMPT, String.format("5E %02X 00 00 00 00 00 FFFF 00", i));
        }
        return new OpcodeEntry(PERSISTENT_RESERVE_IN, -1, "PERSISTENT RESERVE IN", 10, null, 0, null, null, sa);
    }

    /**
     * PERSISTENT RESERVE OUT (SPC-4 6.15, 5Fh): allowed through persistent reservations (each
     * service action checks the key itself), conflicts with another nexus's SPC-2 reservation;
     * off the event loop because APTPL state is written with fsync.
     */
    private static OpcodeEntry persistentReserveOut() {
        OpcodeEntry[] sa = new OpcodeEntry[32];
        String[] names = {"REGISTER", "RESERVE", "RELEASE", "CLEAR", "PREEMPT", "PREEMPT AND ABORT",
                "REGISTER AND IGNORE EXISTING KEY", "REGISTER AND MOVE"};
        for (int i = 0; i < names.length; i++) {
            boolean scopeType = i == SA_RESERVE || i == SA_RELEASE || i == SA_PREEMPT || i == SA_PREEMPT_AND_ABORT
                    || i == SA_REGISTER_AND_MOVE;
            sa[i] = OpcodeEntry.ofServiceAction(PERSISTENT_RESERVE_OUT, i, "PERSISTENT RESERVE OUT " + names[i], 10,
                    new SpcPersistentReserveOut(i), OFF_LOOP | ALUA_STANDBY, ALLOWED,
                    String.format("5F %02X %s 00 00 FFFFFFFF 00", i, scopeType ? "FF" : "00"));
        }
        return new OpcodeEntry(PERSISTENT_RESERVE_OUT, -1, "PERSISTENT RESERVE OUT", 10, null, 0, null, null, sa);
    }

    /**
     * MAINTENANCE IN (SPC-4 6.x, A3h): the service actions jtarget answers. The ALUA standby list
     * (SPC-4 5.15.2.4.4) lets a device server answer more than it names: the two REPORT SUPPORTED
     * commands change nothing and run in standby too.
     */
    private static OpcodeEntry maintenanceIn() {
        OpcodeEntry[] sa = new OpcodeEntry[32];
        // SPC-4 6.27; reservations: allowed (SPC-4 table 72), ALUA: every state (5.15.2.4.6)
        sa[SA_REPORT_TARGET_PORT_GROUPS] = OpcodeEntry.ofServiceAction(MAINTENANCE_IN,
                SA_REPORT_TARGET_PORT_GROUPS, "REPORT TARGET PORT GROUPS", 12, new SpcReportTargetPortGroups(),
                ALUA_ANY_STATE, ALLOWED, "A3 EA 00 00 00 00 FFFFFFFF 00 00");
        sa[SA_REPORT_SUPPORTED_OPERATION_CODES] = OpcodeEntry.ofServiceAction(MAINTENANCE_IN,
                SA_REPORT_SUPPORTED_OPERATION_CODES, "REPORT SUPPORTED OPERATION CODES", 12,
                new SpcReportSupportedOpcodes(), ALUA_STANDBY, CONFLICT, "A3 0C 87 FF FFFF FFFFFFFF 00 00");
        sa[SA_REPORT_SUPPORTED_TASK_MANAGEMENT_FUNCTIONS] = OpcodeEntry.ofServiceAction(MAINTENANCE_IN,
                SA_REPORT_SUPPORTED_TASK_MANAGEMENT_FUNCTIONS, "REPORT SUPPORTED TASK MANAGEMENT FUNCTIONS", 12,
                new SpcReportSupportedTmfs(), ALUA_STANDBY, CONFLICT, "A3 0D 80 000000 FFFFFFFF 00 00");
        return new OpcodeEntry(MAINTENANCE_IN, -1, "MAINTENANCE IN", 12, null, 0, null, null, sa);
    }

    /** MAINTENANCE OUT (A4h): SET TARGET PORT GROUPS (SPC-4 6.31), in standby and unavailable too. */
    private static OpcodeEntry maintenanceOut() {
        OpcodeEntry[] sa = new OpcodeEntry[32];
        sa[SA_SET_TARGET_PORT_GROUPS] = OpcodeEntry.ofServiceAction(MAINTENANCE_OUT, SA_SET_TARGET_PORT_GROUPS,
                "SET TARGET PORT GROUPS", 12, new SpcSetTargetPortGroups(), ALUA_UNAVAILABLE | NEEDS_EXPLICIT_ALUA, CONFLICT,
                "A4 0A 00 00 00 00 FFFFFFFF 00 00");
        return new OpcodeEntry(MAINTENANCE_OUT, -1, "MAINTENANCE OUT", 12, null, 0, null, null, sa);
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

    /**
     * The top-level row of {@code opcode}: a command, or a holder whose {@link OpcodeEntry#serviceActions}
     * lists the supported service actions; null if the opcode is not supported.
     */
    public OpcodeEntry row(int opcode) {
        return entries[opcode & 0xFF];
    }
}
