package org.jtarget.scsi.cdb;

/** Operation codes (SPC-4 / SBC-4 Annex, T10 op-num list), named verbatim. */
public final class Opcodes {
    public static final int TEST_UNIT_READY = 0x00;
    public static final int REQUEST_SENSE = 0x03;
    public static final int READ_6 = 0x08;
    public static final int WRITE_6 = 0x0A;
    public static final int INQUIRY = 0x12;
    public static final int MODE_SELECT_6 = 0x15;
    public static final int MODE_SENSE_6 = 0x1A;
    public static final int RESERVE_6 = 0x16;
    public static final int RELEASE_6 = 0x17;
    public static final int START_STOP_UNIT = 0x1B;
    public static final int PREVENT_ALLOW_MEDIUM_REMOVAL = 0x1E;
    public static final int READ_CAPACITY_10 = 0x25;
    public static final int READ_10 = 0x28;
    public static final int WRITE_10 = 0x2A;
    public static final int WRITE_AND_VERIFY_10 = 0x2E;
    public static final int VERIFY_10 = 0x2F;
    public static final int PRE_FETCH_10 = 0x34;
    public static final int SYNCHRONIZE_CACHE_10 = 0x35;
    public static final int READ_DEFECT_DATA_10 = 0x37;
    public static final int WRITE_SAME_10 = 0x41;
    public static final int UNMAP = 0x42;
    public static final int SANITIZE = 0x48;
    public static final int MODE_SELECT_10 = 0x55;
    public static final int RESERVE_10 = 0x56;
    public static final int RELEASE_10 = 0x57;
    public static final int MODE_SENSE_10 = 0x5A;
    public static final int PERSISTENT_RESERVE_IN = 0x5E;
    public static final int PERSISTENT_RESERVE_OUT = 0x5F;
    /** SPC-4 6.4 (THIRD-PARTY COPY OUT in SPC-4 r37+); service action 00h = EXTENDED COPY(LID1). */
    public static final int EXTENDED_COPY = 0x83;
    /** SPC-4 6.18 (THIRD-PARTY COPY IN). */
    public static final int RECEIVE_COPY_RESULTS = 0x84;
    public static final int READ_16 = 0x88;
    public static final int COMPARE_AND_WRITE = 0x89;
    public static final int WRITE_16 = 0x8A;
    public static final int ORWRITE_16 = 0x8B;
    public static final int WRITE_AND_VERIFY_16 = 0x8E;
    public static final int VERIFY_16 = 0x8F;
    public static final int PRE_FETCH_16 = 0x90;
    public static final int SYNCHRONIZE_CACHE_16 = 0x91;
    public static final int WRITE_SAME_16 = 0x93;
    public static final int WRITE_ATOMIC_16 = 0x9C;
    public static final int SERVICE_ACTION_IN_16 = 0x9E;
    public static final int REPORT_LUNS = 0xA0;
    public static final int MAINTENANCE_IN = 0xA3;
    public static final int MAINTENANCE_OUT = 0xA4;
    public static final int READ_12 = 0xA8;
    public static final int WRITE_12 = 0xAA;
    public static final int WRITE_AND_VERIFY_12 = 0xAE;
    public static final int VERIFY_12 = 0xAF;
    public static final int READ_DEFECT_DATA_12 = 0xB7;

    /** SERVICE ACTION IN(16) service actions (SBC-4 5.x). */
    public static final int SA_READ_CAPACITY_16 = 0x10;
    public static final int SA_GET_LBA_STATUS = 0x12;

    /** SANITIZE service actions (SBC-4 5.30.1). */
    public static final int SA_SANITIZE_OVERWRITE = 0x01;
    public static final int SA_SANITIZE_BLOCK_ERASE = 0x02;
    public static final int SA_SANITIZE_CRYPTOGRAPHIC_ERASE = 0x03;
    public static final int SA_SANITIZE_EXIT_FAILURE_MODE = 0x1F;

    /** MAINTENANCE IN service actions (SPC-4 6.27, 6.35, 6.37). */
    public static final int SA_REPORT_TARGET_PORT_GROUPS = 0x0A;
    public static final int SA_REPORT_SUPPORTED_OPERATION_CODES = 0x0C;
    public static final int SA_REPORT_SUPPORTED_TASK_MANAGEMENT_FUNCTIONS = 0x0D;

    /** MAINTENANCE OUT service actions (SPC-4 6.31). */
    public static final int SA_SET_TARGET_PORT_GROUPS = 0x0A;

    /** PERSISTENT RESERVE IN service actions (SPC-4 6.14.1). */
    public static final int SA_READ_KEYS = 0x00;
    public static final int SA_READ_RESERVATION = 0x01;
    public static final int SA_REPORT_CAPABILITIES = 0x02;
    public static final int SA_READ_FULL_STATUS = 0x03;

    /** PERSISTENT RESERVE OUT service actions (SPC-4 6.15.2). */
    public static final int SA_REGISTER = 0x00;
    public static final int SA_RESERVE = 0x01;
    public static final int SA_RELEASE = 0x02;
    public static final int SA_CLEAR = 0x03;
    public static final int SA_PREEMPT = 0x04;
    public static final int SA_PREEMPT_AND_ABORT = 0x05;
    public static final int SA_REGISTER_AND_IGNORE_EXISTING_KEY = 0x06;
    public static final int SA_REGISTER_AND_MOVE = 0x07;

    private Opcodes() {
    }
}
