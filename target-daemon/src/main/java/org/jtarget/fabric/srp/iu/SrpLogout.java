package org.jtarget.fabric.srp.iu;

import io.netty.buffer.ByteBuf;
import org.jtarget.fabric.rdma.Decoded;

/**
 * The two logouts of an RDMA channel (SRP r16a, SRP_I_LOGOUT and SRP_T_LOGOUT; Linux
 * {@code struct srp_i_logout}, {@code struct srp_t_logout}), 16 bytes each in the short IU
 * layout of {@link SrpIu}. The initiator's says nothing but its tag; the target's carries a
 * reason and asks for no answer: either side then disconnects the channel.
 */
public final class SrpLogout {

    /**
     * REASON codes of SRP_T_LOGOUT (SRP r16a, table of SRP_T_LOGOUT reasons, as illumos' COMSTAR
     * srpt and the Windows OpenFabrics SRP headers list them; code 5 is not assigned there).
     */
    public static final int NO_REASON = 0;
    public static final int INACTIVE_CHANNEL = 1;
    public static final int INVALID_IU_TYPE = 2;
    public static final int UNEXPECTED_RESPONSE = 3;
    public static final int MULTI_CHANNEL_ACTION = 4;
    public static final int UNSUPPORTED_DATA_OUT_FORMAT = 6;
    public static final int UNSUPPORTED_DATA_IN_FORMAT = 7;
    public static final int INVALID_IU_LENGTH = 8;

    private SrpLogout() {
    }

    /** SRP_I_LOGOUT: the initiator ends the channel. */
    public record InitiatorLogout(long tag) {

        public static Decoded<InitiatorLogout> decode(ByteBuf in, int index, int length) {
            return SrpIu.decodeShort(in, index, length, SrpIu.I_LOGOUT,
                    (solNot, word, tag) -> new InitiatorLogout(tag));
        }

        /** Writes the 16 bytes at the writer index. */
        public void encode(ByteBuf out) {
            SrpIu.encodeShort(out, SrpIu.I_LOGOUT, 0, 0, tag);
        }
    }

    /**
     * SRP_T_LOGOUT: the target ends the channel, for {@code reason}.
     *
     * @param solNot SOLICITED NOTIFICATION: 1 asks the initiator's channel adapter to signal the
     *               arrival (as the initiator asked for target logouts at login)
     */
    public record TargetLogout(int solNot, int reason, long tag) {

        public static Decoded<TargetLogout> decode(ByteBuf in, int index, int length) {
            return SrpIu.decodeShort(in, index, length, SrpIu.T_LOGOUT, TargetLogout::new);
        }

        /** Writes the 16 bytes at the writer index. */
        public void encode(ByteBuf out) {
            SrpIu.encodeShort(out, SrpIu.T_LOGOUT, solNot, reason, tag);
        }
    }

    /** A SRP_T_LOGOUT {@code reason} in words, for log lines. */
    public static String describe(int reason) {
        return switch (reason) {
            case NO_REASON -> "no reason specified";
            case INACTIVE_CHANNEL -> "inactive RDMA channel (reclaiming resources)";
            case INVALID_IU_TYPE -> "invalid information unit type received by the target port";
            case UNEXPECTED_RESPONSE -> "response received without a corresponding target port request";
            case MULTI_CHANNEL_ACTION -> "disconnected by the MULTI-CHANNEL ACTION of a new login";
            case UNSUPPORTED_DATA_OUT_FORMAT -> "unsupported format code in a data-out buffer descriptor";
            case UNSUPPORTED_DATA_IN_FORMAT -> "unsupported format code in a data-in buffer descriptor";
            case INVALID_IU_LENGTH -> "invalid length for the information unit type";
            default -> "unknown reason 0x" + Integer.toHexString(reason);
        };
    }
}
