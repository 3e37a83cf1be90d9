package org.jtarget.initiator.raw;

import java.util.List;

/**
 * How a target answered a protocol error (RFC 7143 7.: a Reject PDU, or dropping the connection).
 *
 * @param kind   what happened
 * @param reject the Reject PDU when {@code kind} is {@link Kind#REJECTED}, else {@code null}
 * @param others other PDUs received meanwhile (NOP-In, Async Message...)
 */
public record ProtocolErrorOutcome(Kind kind, RawPdu reject, List<RawPdu> others) {

    /** The three possible ends of the wait. */
    public enum Kind { REJECTED, CLOSED, TIMED_OUT }

    /** The Reject reason code (RFC 7143 11.17.1), or -1. */
    public int rejectReason() {
        return reject == null ? -1 : reject.u8(2);
    }

    @Override
    public String toString() {
        return kind + (reject == null ? "" : " reason=0x" + Integer.toHexString(rejectReason())) + " others=" + others;
    }
}
