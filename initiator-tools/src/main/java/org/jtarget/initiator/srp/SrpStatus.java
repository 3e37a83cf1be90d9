package org.jtarget.initiator.srp;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Arrays;
import org.jtarget.initiator.raw.ScsiResult;

/**
 * What the last SRP_RSP said about one command (SRP r16a, SRP_RSP), decoded in place into this
 * reusable object so that taking a response allocates nothing:
 *
 * <pre>
 *   byte 0       opcode 0xC1            bytes 4-7    REQUEST LIMIT DELTA (signed)
 *   bytes 8-15   tag of the SRP_CMD     byte 18      flags: RSPVALID 0x01, SNSVALID 0x02,
 *                                                    DOOVER 0x04, DOUNDER 0x08, DIOVER 0x10, DIUNDER 0x20
 *   byte 19      SCSI status            bytes 20-23  DATA-OUT RESIDUAL COUNT
 *   bytes 24-27  DATA-IN RESIDUAL COUNT bytes 28-31  SENSE DATA LIST LENGTH
 *   bytes 32-35  RESPONSE DATA LIST LENGTH          bytes 36-  response data (RSP_CODE in its byte 3), sense data
 * </pre>
 *
 * Decoded here from r16a's layout, not with the daemon's codec, so that a wrong constant on either
 * side fails a test instead of cancelling out.
 */
public final class SrpStatus {

    static final int OPCODE = 0xC1;
    static final int MIN_LENGTH = 36;
    /** SPC-4 4.5.1: the longest sense data. */
    public static final int MAX_SENSE_LENGTH = 252;

    private static final int REQUEST_LIMIT_DELTA_OFFSET = 4;
    private static final int TAG_OFFSET = 8;
    private static final int FLAGS_OFFSET = 18;
    private static final int STATUS_OFFSET = 19;
    private static final int DATA_OUT_RESIDUAL_OFFSET = 20;
    private static final int DATA_IN_RESIDUAL_OFFSET = 24;
    private static final int SENSE_LENGTH_OFFSET = 28;
    private static final int RESPONSE_LENGTH_OFFSET = 32;
    private static final int RSP_CODE_INDEX = 3;
    private static final int RSPVALID = 0x01;
    private static final int SNSVALID = 0x02;
    private static final int DOOVER = 0x04;
    private static final int DOUNDER = 0x08;
    private static final int DIOVER = 0x10;
    private static final int DIUNDER = 0x20;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private final byte[] sense = new byte[MAX_SENSE_LENGTH];
    private long tag;
    private int requestLimitDelta;
    private int flags;
    private int status;
    private int dataOutResidual;
    private int dataInResidual;
    private int responseCode;
    private int senseLength;

    /**
     * Reads the SRP_RSP of {@code length} bytes at {@code at}; null, or why it is not a well-formed
     * one (a list that runs past the IU, response data too short for RSP_CODE).
     */
    String decode(MemorySegment memory, long at, int length) {
        if (length < MIN_LENGTH) {
            return "SRP_RSP of " + length + " bytes, shorter than " + MIN_LENGTH;
        }
        requestLimitDelta = memory.get(INT, at + REQUEST_LIMIT_DELTA_OFFSET);
        tag = memory.get(LONG, at + TAG_OFFSET);
        flags = memory.get(ValueLayout.JAVA_BYTE, at + FLAGS_OFFSET) & 0xff;
        status = memory.get(ValueLayout.JAVA_BYTE, at + STATUS_OFFSET) & 0xff;
        dataOutResidual = memory.get(INT, at + DATA_OUT_RESIDUAL_OFFSET);
        dataInResidual = memory.get(INT, at + DATA_IN_RESIDUAL_OFFSET);
        long responseLength = (flags & RSPVALID) != 0 ? memory.get(INT, at + RESPONSE_LENGTH_OFFSET) & 0xffffffffL : 0;
        long senseBytes = (flags & SNSVALID) != 0 ? memory.get(INT, at + SENSE_LENGTH_OFFSET) & 0xffffffffL : 0;
        boolean noCode = (flags & RSPVALID) != 0 && responseLength <= RSP_CODE_INDEX;
        if (noCode || MIN_LENGTH + responseLength + senseBytes > length) {
            return "SRP_RSP of " + length + " bytes with " + responseLength + " bytes of response data and "
                    + senseBytes + " of sense data";
        }
        responseCode = (flags & RSPVALID) != 0
                ? memory.get(ValueLayout.JAVA_BYTE, at + MIN_LENGTH + RSP_CODE_INDEX) & 0xff : -1;
        senseLength = (int) Math.min(senseBytes, MAX_SENSE_LENGTH);
        MemorySegment.copy(memory, ValueLayout.JAVA_BYTE, at + MIN_LENGTH + responseLength, sense, 0, senseLength);
        return null;
    }

    /** The tag of the SRP_CMD answered. */
    public long tag() {
        return tag;
    }

    /** The credits the response gives back (r16a 5.5.2). */
    int requestLimitDelta() {
        return requestLimitDelta;
    }

    /** The SCSI status byte (SAM-5 5.3). */
    public int status() {
        return status;
    }

    /** RSP_CODE when the response carries response data, else -1 (a command's response has none). */
    public int responseCode() {
        return responseCode;
    }

    /** GOOD status and no failed response code. */
    public boolean good() {
        return status == ScsiResult.GOOD && responseCode <= 0;
    }

    /** The data-in residual, signed as {@link ScsiResult#residual()}: positive for DIUNDER, negative for DIOVER. */
    public int dataInResidual() {
        return signed(dataInResidual, DIUNDER, DIOVER);
    }

    /** The data-out residual, signed: positive for DOUNDER, negative for DOOVER. */
    public int dataOutResidual() {
        return signed(dataOutResidual, DOUNDER, DOOVER);
    }

    private int signed(int count, int under, int over) {
        return (flags & under) != 0 ? count : (flags & over) != 0 ? -count : 0;
    }

    /**
     * The outcome as the CLI's commands take it (allocates: the sense is copied), with {@code data}
     * as the data-in; the residual is the data-in one for a read, the data-out one otherwise.
     */
    public ScsiResult result(byte[] data, boolean read) {
        return new ScsiResult(status, Math.max(responseCode, 0), data, Arrays.copyOf(sense, senseLength),
                read ? dataInResidual() : dataOutResidual());
    }
}
