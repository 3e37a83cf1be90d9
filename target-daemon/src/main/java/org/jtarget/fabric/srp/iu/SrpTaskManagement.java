package org.jtarget.fabric.srp.iu;

import io.netty.buffer.ByteBuf;
import org.jtarget.fabric.rdma.Decoded;
import org.jtarget.scsi.spi.TmfRequest;

/**
 * SRP_TSK_MGMT (SRP r16a; Linux {@code struct srp_tsk_mgmt}), 48 bytes, answered by an
 * {@link SrpResponse#encodeTaskManagement SRP_RSP with response data}:
 *
 * <pre>
 *   byte 0       opcode 0x01             byte 1       SOLICITED NOTIFICATION
 *   bytes 8-15   tag                     bytes 20-27  LUN
 *   byte 30      TASK MANAGEMENT FUNCTIONS
 *   bytes 32-39  TASK TAG: the tag of the SRP_CMD to abort (ABORT TASK)
 * </pre>
 *
 * Other bytes are reserved. A record: task management is a control path.
 *
 * @param solNot       SOLICITED NOTIFICATION for the answer (successful 0x02, unsuccessful 0x04)
 * @param lunField     the 8-byte SAM LUN field, as it came
 * @param functionCode one of the function codes below, or another the target refuses
 */
public record SrpTaskManagement(int solNot, long tag, long lunField, int functionCode, long taskTag) {

    /** TASK MANAGEMENT FUNCTIONS codes (SRP r16a, SRP_TSK_MGMT). */
    public static final int ABORT_TASK = 0x01;
    public static final int ABORT_TASK_SET = 0x02;
    public static final int CLEAR_TASK_SET = 0x04;
    public static final int LOGICAL_UNIT_RESET = 0x08;
    public static final int CLEAR_ACA = 0x40;

    private static final int LUN_OFFSET = 20;
    private static final int FUNCTION_OFFSET = 30;
    private static final int TASK_TAG_OFFSET = 32;

    /** Decodes the SRP_TSK_MGMT of {@code length} bytes at {@code index}. */
    public static Decoded<SrpTaskManagement> decode(ByteBuf in, int index, int length) {
        String bad = SrpIu.check(in, index, length, SrpIu.TSK_MGMT, SrpIu.TSK_MGMT_LENGTH);
        if (bad != null) {
            return Decoded.malformed(bad);
        }
        return Decoded.ok(new SrpTaskManagement(in.getUnsignedByte(index + SrpIu.SOL_NOT_OFFSET),
                in.getLong(index + SrpIu.TAG_OFFSET), in.getLong(index + LUN_OFFSET),
                in.getUnsignedByte(index + FUNCTION_OFFSET), in.getLong(index + TASK_TAG_OFFSET)));
    }

    /** Writes the 48 bytes at the writer index (for an initiator). */
    public void encode(ByteBuf out) {
        SrpIu.encodeShort(out, SrpIu.TSK_MGMT, solNot, 0, tag);
        out.writeInt(0);
        out.writeLong(lunField);
        out.writeShort(0);
        out.writeByte(functionCode);
        out.writeByte(0);
        out.writeLong(taskTag);
        out.writeLong(0);
    }

    /** The core's function for {@link #functionCode}, or null for a code SRP does not define. */
    public TmfRequest.Function function() {
        return switch (functionCode) {
            case ABORT_TASK -> TmfRequest.Function.ABORT_TASK;
            case ABORT_TASK_SET -> TmfRequest.Function.ABORT_TASK_SET;
            case CLEAR_TASK_SET -> TmfRequest.Function.CLEAR_TASK_SET;
            case LOGICAL_UNIT_RESET -> TmfRequest.Function.LOGICAL_UNIT_RESET;
            case CLEAR_ACA -> TmfRequest.Function.CLEAR_ACA;
            default -> null;
        };
    }
}
