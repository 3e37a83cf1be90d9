package org.jtarget.fabric.srp.iu;

import io.netty.buffer.ByteBuf;
import org.jtarget.fabric.rdma.Decoded;

/**
 * The credit exchange (SRP r16a, SRP_CRED_REQ and SRP_CRED_RSP; Linux {@code struct
 * srp_cred_req}, {@code struct srp_cred_rsp}), 16 bytes each in the short IU layout of
 * {@link SrpIu}: the target grants the initiator more IUs outside of a response, and the
 * initiator acknowledges so that the target may reuse the receive it had reserved for the answer.
 */
public final class SrpCredit {

    private SrpCredit() {
    }

    /**
     * SRP_CRED_REQ, target to initiator.
     *
     * @param solNot            SOLICITED NOTIFICATION (see {@link SrpLogout.TargetLogout})
     * @param requestLimitDelta how many more IUs the initiator may send (signed)
     */
    public record Request(int solNot, int requestLimitDelta, long tag) {

        public static Decoded<Request> decode(ByteBuf in, int index, int length) {
            return SrpIu.decodeShort(in, index, length, SrpIu.CRED_REQ, Request::new);
        }

        /** Writes the 16 bytes at the writer index. */
        public void encode(ByteBuf out) {
            SrpIu.encodeShort(out, SrpIu.CRED_REQ, solNot, requestLimitDelta, tag);
        }
    }

    /** SRP_CRED_RSP, initiator to target: the request of {@code tag} arrived. */
    public record Response(long tag) {

        public static Decoded<Response> decode(ByteBuf in, int index, int length) {
            return SrpIu.decodeShort(in, index, length, SrpIu.CRED_RSP, (solNot, word, tag) -> new Response(tag));
        }

        /** Writes the 16 bytes at the writer index. */
        public void encode(ByteBuf out) {
            SrpIu.encodeShort(out, SrpIu.CRED_RSP, 0, 0, tag);
        }
    }
}
