package org.jtarget.fabric.srp.iu;

import io.netty.buffer.ByteBuf;
import org.jtarget.fabric.rdma.Decoded;

/**
 * SRP_LOGIN_RSP (SRP r16a; SRP-2 for immediate data; Linux {@code struct srp_login_rsp}),
 * 52 bytes in the private data of the connection manager's accept:
 *
 * <pre>
 *   byte 0       opcode 0xC0               bytes 4-7    REQUEST LIMIT DELTA
 *   bytes 8-15   tag of the SRP_LOGIN_REQ  bytes 16-19  MAXIMUM INITIATOR TO TARGET IU LENGTH
 *   bytes 20-23  MAXIMUM TARGET TO INITIATOR IU LENGTH
 *   bytes 24-25  SUPPORTED BUFFER FORMATS  byte 26      flags
 * </pre>
 *
 * Other bytes are reserved. The same layout answers both forms of {@link SrpLoginRequest}.
 *
 * @param requestLimitDelta            the initiator's first credits: how many IUs it may send
 * @param tag                          the login request's tag, as it came
 * @param maxInitiatorToTargetIuLength the longest IU the target receives (unsigned)
 * @param maxTargetToInitiatorIuLength the longest IU the target sends (unsigned)
 * @param bufferFormats                {@link SrpIu#BUFFER_FORMAT_DIRECT} | {@link SrpIu#BUFFER_FORMAT_INDIRECT}
 *                                     the target accepts in SRP_CMD
 * @param flags                        MULTI-CHANNEL RESULT (bits 1..0) | {@link #IMMEDIATE_DATA_SUPPORTED}
 */
public record SrpLoginResponse(int requestLimitDelta, long tag, int maxInitiatorToTargetIuLength,
                               int maxTargetToInitiatorIuLength, int bufferFormats, int flags) {

    /** MULTI-CHANNEL RESULT (flags bits 1..0, SRP r16a): what became of the nexus's other channels. */
    public static final int MULTI_CHANNEL_RESULT_MASK = 0x03;
    public static final int NO_EXISTING_CHANNELS = 0;
    public static final int EXISTING_CHANNELS_TERMINATED = 1;
    public static final int EXISTING_CHANNELS_MAINTAINED = 2;
    /** SRP-2: the target takes write data inside SRP_CMD at the requested offset. */
    public static final int IMMEDIATE_DATA_SUPPORTED = 0x80;

    private static final int MAX_IT_IU_LENGTH_OFFSET = 16;
    private static final int MAX_TI_IU_LENGTH_OFFSET = 20;
    private static final int BUFFER_FORMATS_OFFSET = 24;
    private static final int FLAGS_OFFSET = 26;

    /** Decodes the private data of an accept; bytes beyond the 52 (padding) are ignored. */
    public static Decoded<SrpLoginResponse> decode(byte[] privateData) {
        return SrpIu.decodePrivateData(privateData, SrpIu.LOGIN_RSP, SrpIu.LOGIN_RSP_LENGTH,
                in -> new SrpLoginResponse(in.getInt(SrpIu.WORD_OFFSET), in.getLong(SrpIu.TAG_OFFSET),
                        in.getInt(MAX_IT_IU_LENGTH_OFFSET), in.getInt(MAX_TI_IU_LENGTH_OFFSET),
                        in.getUnsignedShort(BUFFER_FORMATS_OFFSET), in.getUnsignedByte(FLAGS_OFFSET)));
    }

    /** The 52 bytes of this response, for the accept's private data. */
    public byte[] encode() {
        ByteBuf out = SrpIu.newPrivateData(SrpIu.LOGIN_RSP_LENGTH, SrpIu.LOGIN_RSP);
        out.setInt(SrpIu.WORD_OFFSET, requestLimitDelta);
        out.setLong(SrpIu.TAG_OFFSET, tag);
        out.setInt(MAX_IT_IU_LENGTH_OFFSET, maxInitiatorToTargetIuLength);
        out.setInt(MAX_TI_IU_LENGTH_OFFSET, maxTargetToInitiatorIuLength);
        out.setShort(BUFFER_FORMATS_OFFSET, bufferFormats);
        out.setByte(FLAGS_OFFSET, flags);
        return out.array();
    }

    /** MULTI-CHANNEL RESULT: one of the three values above. */
    public int multiChannelResult() {
        return flags & MULTI_CHANNEL_RESULT_MASK;
    }

    public boolean immediateDataSupported() {
        return (flags & IMMEDIATE_DATA_SUPPORTED) != 0;
    }
}
