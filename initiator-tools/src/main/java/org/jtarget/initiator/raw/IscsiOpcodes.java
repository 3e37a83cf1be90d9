package org.jtarget.initiator.raw;

/**
 * iSCSI opcodes as the raw client reads RFC 7143 11.2.1.2: initiator opcodes 0x00-0x1f, target
 * opcodes 0x20-0x3f. Kept apart from the daemon's table on purpose (see {@link RawPdu}).
 */
public final class IscsiOpcodes {
    public static final int NOP_OUT = 0x00;
    public static final int SCSI_COMMAND = 0x01;
    public static final int TASK_MGMT_REQUEST = 0x02;
    public static final int LOGIN_REQUEST = 0x03;
    public static final int TEXT_REQUEST = 0x04;
    public static final int SCSI_DATA_OUT = 0x05;
    public static final int LOGOUT_REQUEST = 0x06;
    public static final int SNACK_REQUEST = 0x10;

    public static final int NOP_IN = 0x20;
    public static final int SCSI_RESPONSE = 0x21;
    public static final int TASK_MGMT_RESPONSE = 0x22;
    public static final int LOGIN_RESPONSE = 0x23;
    public static final int TEXT_RESPONSE = 0x24;
    public static final int SCSI_DATA_IN = 0x25;
    public static final int LOGOUT_RESPONSE = 0x26;
    public static final int R2T = 0x31;
    public static final int ASYNC_MESSAGE = 0x32;
    public static final int REJECT = 0x3f;

    /** An initiator opcode that RFC 7143 does not define (0x07-0x0f are unassigned), for negative tests. */
    public static final int UNASSIGNED_INITIATOR_OPCODE = 0x0f;

    private IscsiOpcodes() {
    }

    /** A readable name for logs and assertion messages. */
    public static String name(int opcode) {
        return switch (opcode) {
            case NOP_OUT -> "NOP-Out";
            case SCSI_COMMAND -> "SCSI Command";
            case TASK_MGMT_REQUEST -> "Task Management Request";
            case LOGIN_REQUEST -> "Login Request";
            case TEXT_REQUEST -> "Text Request";
            case SCSI_DATA_OUT -> "SCSI Data-Out";
            case LOGOUT_REQUEST -> "Logout Request";
            case SNACK_REQUEST -> "SNACK Request";
            case NOP_IN -> "NOP-In";
            case SCSI_RESPONSE -> "SCSI Response";
            case TASK_MGMT_RESPONSE -> "Task Management Response";
            case LOGIN_RESPONSE -> "Login Response";
            case TEXT_RESPONSE -> "Text Response";
            case SCSI_DATA_IN -> "SCSI Data-In";
            case LOGOUT_RESPONSE -> "Logout Response";
            case R2T -> "R2T";
            case ASYNC_MESSAGE -> "Asynchronous Message";
            case REJECT -> "Reject";
            default -> String.format("opcode 0x%02x", opcode);
        };
    }
}
