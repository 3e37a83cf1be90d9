package org.jtarget.scsi.sense;

import static org.jtarget.scsi.sense.SenseKey.*;

/**
 * Every SCSI error the core reports: ONE table of sense key / additional sense code / qualifier
 * (SPC-4 4.5.6 and Annex D, T10 asc-num list). This is the only place those numbers appear.
 */
public enum SenseReason {
    NO_SENSE(SenseKey.NO_SENSE, 0x00, 0x00),

    // ---- NOT READY ----
    /** 04/00 LOGICAL UNIT NOT READY, CAUSE NOT REPORTABLE (backing device gone). */
    NOT_READY_CAUSE_NOT_REPORTABLE(NOT_READY, 0x04, 0x00),
    /** 3A/00 MEDIUM NOT PRESENT (removable LU after eject). */
    MEDIUM_NOT_PRESENT(NOT_READY, 0x3A, 0x00),

    // ---- MEDIUM ERROR ----
    /** 0C/00 WRITE ERROR. */
    WRITE_ERROR(MEDIUM_ERROR, 0x0C, 0x00),
    /** 11/00 UNRECOVERED READ ERROR. */
    UNRECOVERED_READ_ERROR(MEDIUM_ERROR, 0x11, 0x00),

    // ---- HARDWARE ERROR ----
    /** 44/00 INTERNAL TARGET FAILURE (a bug in a handler). */
    INTERNAL_TARGET_FAILURE(HARDWARE_ERROR, 0x44, 0x00),

    // ---- ILLEGAL REQUEST ----
    /** 1A/00 PARAMETER LIST LENGTH ERROR. */
    PARAMETER_LIST_LENGTH_ERROR(ILLEGAL_REQUEST, 0x1A, 0x00),
    /** 20/00 INVALID COMMAND OPERATION CODE. */
    INVALID_COMMAND_OPERATION_CODE(ILLEGAL_REQUEST, 0x20, 0x00),
    /** 21/00 LOGICAL BLOCK ADDRESS OUT OF RANGE. */
    LBA_OUT_OF_RANGE(ILLEGAL_REQUEST, 0x21, 0x00),
    /** 24/00 INVALID FIELD IN CDB. */
    INVALID_FIELD_IN_CDB(ILLEGAL_REQUEST, 0x24, 0x00),
    /** 25/00 LOGICAL UNIT NOT SUPPORTED. */
    LOGICAL_UNIT_NOT_SUPPORTED(ILLEGAL_REQUEST, 0x25, 0x00),
    /** 26/00 INVALID FIELD IN PARAMETER LIST. */
    INVALID_FIELD_IN_PARAMETER_LIST(ILLEGAL_REQUEST, 0x26, 0x00),
    /** 39/00 SAVING PARAMETERS NOT SUPPORTED. */
    SAVING_PARAMETERS_NOT_SUPPORTED(ILLEGAL_REQUEST, 0x39, 0x00),

    // ---- UNIT ATTENTION ----
    /** 29/00 POWER ON, RESET, OR BUS DEVICE RESET OCCURRED (new I_T nexus). */
    POWER_ON_RESET(UNIT_ATTENTION, 0x29, 0x00),
    /** 29/03 BUS DEVICE RESET FUNCTION OCCURRED (LOGICAL UNIT RESET, TARGET RESET). */
    BUS_DEVICE_RESET_FUNCTION_OCCURRED(UNIT_ATTENTION, 0x29, 0x03),
    /** 29/07 I_T NEXUS LOSS OCCURRED. */
    I_T_NEXUS_LOSS_OCCURRED(UNIT_ATTENTION, 0x29, 0x07),
    /** 2A/01 MODE PARAMETERS CHANGED (another nexus ran MODE SELECT). */
    MODE_PARAMETERS_CHANGED(UNIT_ATTENTION, 0x2A, 0x01),
    /** 2F/00 COMMANDS CLEARED BY ANOTHER INITIATOR (CLEAR TASK SET, TAS=0). */
    COMMANDS_CLEARED_BY_ANOTHER_INITIATOR(UNIT_ATTENTION, 0x2F, 0x00),
    /** 3F/03 INQUIRY DATA HAS CHANGED. */
    INQUIRY_DATA_CHANGED(UNIT_ATTENTION, 0x3F, 0x03),
    /** 3F/0E REPORTED LUNS DATA HAS CHANGED. */
    REPORTED_LUNS_DATA_CHANGED(UNIT_ATTENTION, 0x3F, 0x0E),

    // ---- DATA PROTECT ----
    /** 27/00 WRITE PROTECTED. */
    WRITE_PROTECTED(DATA_PROTECT, 0x27, 0x00),
    /** 27/07 SPACE ALLOCATION FAILED WRITE PROTECT (thin store out of space). */
    SPACE_ALLOCATION_FAILED_WRITE_PROTECT(DATA_PROTECT, 0x27, 0x07),

    // ---- ABORTED COMMAND ----
    /** 47/05 PROTOCOL SERVICE CRC ERROR (RFC 7143 7.8, 11.4.7.2: Data-Out lost to a data digest error). */
    PROTOCOL_SERVICE_CRC_ERROR(ABORTED_COMMAND, 0x47, 0x05),

    // ---- MISCOMPARE ----
    /** 1D/00 MISCOMPARE DURING VERIFY OPERATION. */
    MISCOMPARE_DURING_VERIFY(MISCOMPARE, 0x1D, 0x00);

    private final int senseKey;
    private final int asc;
    private final int ascq;

    SenseReason(int senseKey, int asc, int ascq) {
        this.senseKey = senseKey;
        this.asc = asc;
        this.ascq = ascq;
    }

    public int senseKey() { return senseKey; }
    public int asc() { return asc; }
    public int ascq() { return ascq; }
}
