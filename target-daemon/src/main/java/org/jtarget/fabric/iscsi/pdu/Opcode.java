package org.jtarget.fabric.iscsi.pdu;

/** iSCSI opcodes (RFC 7143 11.2.1.2). Initiator opcodes are 0x00-0x1f, target opcodes 0x20-0x3f. */
public final class Opcode {
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

    private Opcode() {
    }
}
