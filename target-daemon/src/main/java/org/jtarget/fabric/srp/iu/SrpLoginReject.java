package org.jtarget.fabric.srp.iu;

import io.netty.buffer.ByteBuf;
import org.jtarget.fabric.rdma.Decoded;

/**
 * SRP_LOGIN_REJ (SRP r16a; Linux {@code struct srp_login_rej}), 32 bytes in the private data
 * of the connection manager's reject:
 *
 * <pre>
 *   byte 0       opcode 0xC2               bytes 4-7    REASON
 *   bytes 8-15   tag of the SRP_LOGIN_REQ  bytes 24-25  SUPPORTED BUFFER FORMATS
 * </pre>
 *
 * Other bytes are reserved. The supported formats let an initiator that asked for a format the
 * target lacks see what it could ask for instead.
 *
 * @param reason        one of the {@code UNABLE_*}, {@code INSUFFICIENT_*}, ... codes below
 * @param tag           the login request's tag, as it came
 * @param bufferFormats {@link SrpIu#BUFFER_FORMAT_DIRECT} | {@link SrpIu#BUFFER_FORMAT_INDIRECT}
 */
public record SrpLoginReject(int reason, long tag, int bufferFormats) {

    /** REASON codes (SRP r16a, table of SRP_LOGIN_REJ reasons). */
    public static final int UNABLE_TO_ESTABLISH_CHANNEL = 0x00010000;
    public static final int INSUFFICIENT_CHANNEL_RESOURCES = 0x00010001;
    public static final int IU_LENGTH_TOO_LARGE = 0x00010002;
    public static final int UNABLE_TO_ASSOCIATE_CHANNEL = 0x00010003;
    public static final int BUFFER_FORMAT_NOT_SUPPORTED = 0x00010004;
    public static final int MULTI_CHANNEL_ACTION_NOT_SUPPORTED = 0x00010005;
    public static final int NO_MORE_CHANNELS = 0x00010006;

    private static final int BUFFER_FORMATS_OFFSET = 24;

    /** Decodes the private data of a reject; bytes beyond the 32 (padding) are ignored. */
    public static Decoded<SrpLoginReject> decode(byte[] privateData) {
        return SrpIu.decodePrivateData(privateData, SrpIu.LOGIN_REJ, SrpIu.LOGIN_REJ_LENGTH,
                in -> new SrpLoginReject(in.getInt(SrpIu.WORD_OFFSET), in.getLong(SrpIu.TAG_OFFSET),
                        in.getUnsignedShort(BUFFER_FORMATS_OFFSET)));
    }

    /** The 32 bytes of this reject, for the reject's private data. */
    public byte[] encode() {
        ByteBuf out = SrpIu.newPrivateData(SrpIu.LOGIN_REJ_LENGTH, SrpIu.LOGIN_REJ);
        out.setInt(SrpIu.WORD_OFFSET, reason);
        out.setLong(SrpIu.TAG_OFFSET, tag);
        out.setShort(BUFFER_FORMATS_OFFSET, bufferFormats);
        return out.array();
    }

    /** {@code reason} in words, for log lines. */
    public static String describe(int reason) {
        return switch (reason) {
            case UNABLE_TO_ESTABLISH_CHANNEL -> "unable to establish RDMA channel, no reason specified";
            case INSUFFICIENT_CHANNEL_RESOURCES -> "insufficient RDMA channel resources";
            case IU_LENGTH_TOO_LARGE -> "requested maximum initiator to target IU length too large";
            case UNABLE_TO_ASSOCIATE_CHANNEL -> "unable to associate RDMA channel with I_T nexus";
            case BUFFER_FORMAT_NOT_SUPPORTED -> "requested buffer descriptor format not supported";
            case MULTI_CHANNEL_ACTION_NOT_SUPPORTED -> "MULTI-CHANNEL ACTION not supported";
            case NO_MORE_CHANNELS -> "no more RDMA channels can be associated with the I_T nexus";
            default -> "unknown reason 0x" + Integer.toHexString(reason);
        };
    }
}
