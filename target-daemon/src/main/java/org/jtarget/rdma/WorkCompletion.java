package org.jtarget.rdma;

/**
 * One completion, after libibverbs {@code struct ibv_wc}. {@link CompletionQueue#poll} fills
 * caller-owned instances, so polling allocates nothing.
 */
public final class WorkCompletion {
    /** wc_flags bit: {@link #immData} is valid. */
    public static final int WITH_IMM = 1;
    /** wc_flags bit: {@link #invalidatedRkey} was invalidated by the peer's SEND_WITH_INV. */
    public static final int WITH_INV = 2;

    public long wrId;
    public WorkCompletionStatus status;
    public WorkCompletionOpcode opcode;
    /** Bytes received (receives) or moved (RDMA READ). */
    public int byteLen;
    public int immData;
    public int invalidatedRkey;
    public int wcFlags;
    public int qpNum;
    /** Whether the sender asked for a solicited event. */
    public boolean solicited;

    void copyFrom(WorkCompletion o) {
        wrId = o.wrId;
        status = o.status;
        opcode = o.opcode;
        byteLen = o.byteLen;
        immData = o.immData;
        invalidatedRkey = o.invalidatedRkey;
        wcFlags = o.wcFlags;
        qpNum = o.qpNum;
        solicited = o.solicited;
    }

    @Override
    public String toString() {
        return "WorkCompletion[wrId=" + wrId + ", " + status + ", " + opcode + ", byteLen=" + byteLen
                + ", qp=" + qpNum + "]";
    }
}
