package org.jtarget.initiator.srp;

import java.io.IOException;
import org.jtarget.fabric.rdma.Decoded;
import org.jtarget.fabric.srp.iu.SrpLoginReject;

/**
 * The target refused the login: the connect request's reject carried an SRP_LOGIN_REJ (SRP r16a
 * 6.4), whose reason the message gives in words, or nothing an initiator could read.
 */
public final class SrpLoginRefused extends IOException {

    /** No SRP_LOGIN_REJ could be read from the reject. */
    public static final int NO_REASON_GIVEN = -1;

    private final int reason;

    private SrpLoginRefused(String message, int reason) {
        super(message);
        this.reason = reason;
    }

    /** The refusal the reject's private data describes. */
    static SrpLoginRefused of(byte[] rejectData) {
        return switch (SrpLoginReject.decode(rejectData)) {
            case Decoded.Ok<SrpLoginReject> ok -> new SrpLoginRefused(String.format("SRP_LOGIN_REJ 0x%08x: %s",
                    ok.value().reason(), SrpLoginReject.describe(ok.value().reason())), ok.value().reason());
            case Decoded.Malformed<SrpLoginReject> m -> new SrpLoginRefused(
                    "connection rejected without an SRP_LOGIN_REJ (" + m.reason() + ")", NO_REASON_GIVEN);
        };
    }

    /** The SRP_LOGIN_REJ REASON code, or {@link #NO_REASON_GIVEN}. */
    public int reason() {
        return reason;
    }
}
