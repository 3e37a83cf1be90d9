package org.jtarget.fabric.srp.iu;

import io.netty.buffer.ByteBuf;
import org.jtarget.fabric.rdma.Decoded;

/**
 * The asynchronous event exchange (SRP r16a, SRP_AER_REQ and SRP_AER_RSP; Linux {@code struct
 * srp_aer_req}, {@code struct srp_aer_rsp}): the target reports a unit attention or other event
 * of a logical unit as sense data, with credits, and the initiator acknowledges. SRP_AER_REQ is
 * 36 bytes and the sense data:
 *
 * <pre>
 *   bytes 0-15   as the short IUs of {@link SrpIu}, bytes 4-7 REQUEST LIMIT DELTA
 *   bytes 20-27  LUN                 bytes 28-31  SENSE DATA LIST LENGTH
 *   bytes 36-    sense data
 * </pre>
 *
 * SRP_AER_RSP is the 16-byte short IU with the request's tag.
 */
public final class SrpAsyncEvent {

    private static final int LUN_OFFSET = 20;
    private static final int SENSE_LENGTH_OFFSET = 28;

    private SrpAsyncEvent() {
    }

    /**
     * Writes an SRP_AER_REQ carrying the first {@code senseLength} bytes of {@code sense} at the
     * writer index.
     *
     * @param lunField the 8-byte SAM LUN field of the logical unit the event is about
     */
    public static void encodeRequest(ByteBuf out, int solNot, int requestLimitDelta, long tag, long lunField,
                                     byte[] sense, int senseLength) {
        SrpIu.encodeShort(out, SrpIu.AER_REQ, solNot, requestLimitDelta, tag);
        out.writeInt(0);
        out.writeLong(lunField);
        out.writeInt(senseLength);
        out.writeInt(0);
        out.writeBytes(sense, 0, senseLength);
    }

    /** A decoded SRP_AER_REQ (for an initiator); {@code sense} is a copy. */
    public record Request(int solNot, int requestLimitDelta, long tag, long lunField, byte[] sense) {

        public static Decoded<Request> decode(ByteBuf in, int index, int length) {
            String bad = SrpIu.check(in, index, length, SrpIu.AER_REQ, SrpIu.AER_REQ_MIN_LENGTH);
            if (bad != null) {
                return Decoded.malformed(bad);
            }
            int senseLength = in.getInt(index + SENSE_LENGTH_OFFSET);
            byte[] sense = SrpIu.list(in, index, length, SrpIu.AER_REQ_MIN_LENGTH, senseLength);
            if (sense == null) {
                return Decoded.malformed("SRP_AER_REQ of " + length + " bytes with "
                        + Integer.toUnsignedString(senseLength) + " bytes of sense data");
            }
            return Decoded.ok(new Request(in.getUnsignedByte(index + SrpIu.SOL_NOT_OFFSET),
                    in.getInt(index + SrpIu.WORD_OFFSET), in.getLong(index + SrpIu.TAG_OFFSET),
                    in.getLong(index + LUN_OFFSET), sense));
        }
    }

    /** SRP_AER_RSP, initiator to target: the event of {@code tag} arrived. */
    public record Response(long tag) {

        public static Decoded<Response> decode(ByteBuf in, int index, int length) {
            return SrpIu.decodeShort(in, index, length, SrpIu.AER_RSP, (solNot, word, tag) -> new Response(tag));
        }

        /** Writes the 16 bytes at the writer index. */
        public void encode(ByteBuf out) {
            SrpIu.encodeShort(out, SrpIu.AER_RSP, 0, 0, tag);
        }
    }
}
