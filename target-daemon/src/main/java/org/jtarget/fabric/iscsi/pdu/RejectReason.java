package org.jtarget.fabric.iscsi.pdu;

/** Reject reason codes (RFC 7143 11.17.1). */
public final class RejectReason {
    public static final int DATA_DIGEST_ERROR = 0x02;
    public static final int SNACK_REJECT = 0x03;
    public static final int PROTOCOL_ERROR = 0x04;
    public static final int COMMAND_NOT_SUPPORTED = 0x05;
    public static final int IMMEDIATE_COMMAND_REJECT = 0x06;
    public static final int TASK_IN_PROGRESS = 0x07;
    public static final int INVALID_DATA_ACK = 0x08;
    public static final int INVALID_PDU_FIELD = 0x09;
    public static final int LONG_OPERATION_REJECT = 0x0a;
    public static final int NEGOTIATION_RESET = 0x0b;
    public static final int WAITING_FOR_LOGOUT = 0x0c;

    private RejectReason() {
    }
}
