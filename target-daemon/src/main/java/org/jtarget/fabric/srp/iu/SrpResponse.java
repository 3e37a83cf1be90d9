package org.jtarget.fabric.srp.iu;

import io.netty.buffer.ByteBuf;
import org.jtarget.fabric.rdma.Decoded;

/**
 * SRP_RSP (SRP r16a; Linux {@code struct srp_rsp}): the end of an SRP_CMD or SRP_TSK_MGMT, with
 * credits. 36 bytes, then the response data, then the sense data:
 *
 * <pre>
 *   bytes 0-15   as the short IUs of {@link SrpIu}, bytes 4-7 REQUEST LIMIT DELTA
 *   byte 18      flags (RSPVALID, SNSVALID, DOOVER, DOUNDER, DIOVER, DIUNDER)
 *   byte 19      SCSI status
 *   bytes 20-23  DATA-OUT RESIDUAL COUNT     bytes 24-27  DATA-IN RESIDUAL COUNT
 *   bytes 28-31  SENSE DATA LIST LENGTH      bytes 32-35  RESPONSE DATA LIST LENGTH
 *   bytes 36-    response data (4 bytes, byte 3 RSP_CODE), then sense data
 * </pre>
 *
 * A list length counts only when its VALID flag is set; the encoder writes zero otherwise, as
 * Linux's ib_srp reads the sense data after RESPONSE DATA LIST LENGTH bytes whatever the flags.
 *
 * @param responseCode RSP_CODE, or -1 when RSPVALID is clear
 * @param sense        a copy of the sense data, empty when SNSVALID is clear
 */
public record SrpResponse(int solNot, int requestLimitDelta, long tag, int flags, int status, int dataOutResidual,
                          int dataInResidual, int responseCode, byte[] sense) {

    /** Flags (byte 18). */
    public static final int RSPVALID = 0x01;
    public static final int SNSVALID = 0x02;
    public static final int DOOVER = 0x04;
    public static final int DOUNDER = 0x08;
    public static final int DIOVER = 0x10;
    public static final int DIUNDER = 0x20;
    private static final int RESIDUAL_FLAGS = DOOVER | DOUNDER | DIOVER | DIUNDER;

    /** RSP_CODE of the response data (SRP r16a, table of RSP_CODE values). */
    public static final int NO_FAILURE = 0x00;
    public static final int REQUEST_FIELDS_INVALID = 0x02;
    public static final int TASK_MANAGEMENT_NOT_SUPPORTED = 0x04;
    public static final int TASK_MANAGEMENT_FAILED = 0x05;
    /** Bytes of the response data the target sends (RSP_CODE in the last). */
    public static final int RESPONSE_DATA_LENGTH = 4;

    private static final int FLAGS_OFFSET = 18;
    private static final int STATUS_OFFSET = 19;
    private static final int DATA_OUT_RESIDUAL_OFFSET = 20;
    private static final int DATA_IN_RESIDUAL_OFFSET = 24;
    private static final int SENSE_LENGTH_OFFSET = 28;
    private static final int RESPONSE_LENGTH_OFFSET = 32;

    /**
     * Writes the SRP_RSP of a SCSI command at the writer index, with the first
     * {@code senseLength} bytes of {@code sense} (SNSVALID when there are any). Allocates nothing.
     *
     * @param residualFlags {@link #DOOVER}, {@link #DOUNDER}, {@link #DIOVER}, {@link #DIUNDER}
     *                      for the residual counts that are valid (other bits ignored)
     */
    public static void encode(ByteBuf out, int solNot, int requestLimitDelta, long tag, int status,
                              int residualFlags, int dataOutResidual, int dataInResidual, byte[] sense,
                              int senseLength) {
        int flags = (residualFlags & RESIDUAL_FLAGS) | (senseLength > 0 ? SNSVALID : 0);
        encodeFixedPart(out, solNot, requestLimitDelta, tag, flags, status, dataOutResidual, dataInResidual,
                senseLength, 0);
        out.writeBytes(sense, 0, senseLength);
    }

    /**
     * Writes the SRP_RSP of a task management request at the writer index: GOOD status and four
     * bytes of response data holding {@code responseCode}, as Linux's ib_srpt answers every one.
     */
    public static void encodeTaskManagement(ByteBuf out, int solNot, int requestLimitDelta, long tag,
                                            int responseCode) {
        encodeFixedPart(out, solNot, requestLimitDelta, tag, RSPVALID, 0, 0, 0, 0, RESPONSE_DATA_LENGTH);
        out.writeMedium(0);
        out.writeByte(responseCode);
    }

    private static void encodeFixedPart(ByteBuf out, int solNot, int requestLimitDelta, long tag, int flags,
                                        int status, int dataOutResidual, int dataInResidual, int senseLength,
                                        int responseLength) {
        SrpIu.encodeShort(out, SrpIu.RSP, solNot, requestLimitDelta, tag);
        out.writeShort(0);
        out.writeByte(flags);
        out.writeByte(status);
        out.writeInt(dataOutResidual);
        out.writeInt(dataInResidual);
        out.writeInt(senseLength);
        out.writeInt(responseLength);
    }

    /** Decodes the SRP_RSP of {@code length} bytes at {@code index} (for an initiator; allocates). */
    public static Decoded<SrpResponse> decode(ByteBuf in, int index, int length) {
        String bad = SrpIu.check(in, index, length, SrpIu.RSP, SrpIu.RSP_MIN_LENGTH);
        if (bad != null) {
            return Decoded.malformed(bad);
        }
        int flags = in.getUnsignedByte(index + FLAGS_OFFSET);
        int responseLength = (flags & RSPVALID) != 0 ? in.getInt(index + RESPONSE_LENGTH_OFFSET) : 0;
        int senseLength = (flags & SNSVALID) != 0 ? in.getInt(index + SENSE_LENGTH_OFFSET) : 0;
        if (!listsFit(length, flags, responseLength, senseLength)) {
            return Decoded.malformed("SRP_RSP of " + length + " bytes with " + Integer.toUnsignedString(responseLength)
                    + " bytes of response data and " + Integer.toUnsignedString(senseLength) + " of sense data");
        }
        int responseCode = (flags & RSPVALID) != 0
                ? in.getUnsignedByte(index + SrpIu.RSP_MIN_LENGTH + RESPONSE_DATA_LENGTH - 1) : -1;
        byte[] sense = SrpIu.list(in, index, length, SrpIu.RSP_MIN_LENGTH + responseLength, senseLength);
        return Decoded.ok(new SrpResponse(in.getUnsignedByte(index + SrpIu.SOL_NOT_OFFSET),
                in.getInt(index + SrpIu.WORD_OFFSET), in.getLong(index + SrpIu.TAG_OFFSET), flags,
                in.getUnsignedByte(index + STATUS_OFFSET), in.getInt(index + DATA_OUT_RESIDUAL_OFFSET),
                in.getInt(index + DATA_IN_RESIDUAL_OFFSET), responseCode, sense));
    }

    /** Both lists lie in the IU, and response data, if valid, holds RSP_CODE. */
    private static boolean listsFit(int length, int flags, int responseLength, int senseLength) {
        long lists = Integer.toUnsignedLong(responseLength) + Integer.toUnsignedLong(senseLength);
        boolean holdsCode = (flags & RSPVALID) == 0 || Integer.toUnsignedLong(responseLength) >= RESPONSE_DATA_LENGTH;
        return holdsCode && lists <= length - SrpIu.RSP_MIN_LENGTH;
    }
}
