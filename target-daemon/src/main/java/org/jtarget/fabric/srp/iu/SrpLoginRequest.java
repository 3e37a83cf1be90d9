package org.jtarget.fabric.srp.iu;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.jtarget.fabric.rdma.Decoded;

/**
 * SRP_LOGIN_REQ (SRP r16a; SRP-2 for immediate data), which arrives in the private data of
 * the connection manager's connect request, in one of two layouts (Linux
 * {@code include/scsi/srp.h}):
 *
 * <pre>
 *   InfiniBand CM form, 64 bytes        rdma_cm form, 56 bytes (Linux ib_srp over rdma_cm)
 *   byte 0       opcode 0x00            bytes 0-7    tag
 *   bytes 8-15   tag                    bytes 8-9    REQUIRED BUFFER FORMATS
 *   bytes 16-19  REQUESTED MAX I_T IU   byte 10      flags
 *   bytes 24-25  REQUIRED BUFFER FMTS   byte 11      opcode 0x00
 *   byte 26      flags                  bytes 12-15  REQUESTED MAX I_T IU
 *   bytes 28-29  IMM DATA OFFSET        bytes 16-31  initiator port identifier
 *   bytes 32-47  initiator port id      bytes 32-47  target port identifier
 *   bytes 48-63  target port id         bytes 48-49  IMM DATA OFFSET
 * </pre>
 *
 * The rdma_cm form exists because rdma_cm's own header takes 36 of the 92 bytes of InfiniBand
 * private data, and iWARP's MPA carries only what rdma_cm was given. Other bytes are reserved.
 *
 * @param form                         the layout it came in (and {@link #encode} writes)
 * @param tag                          opaque, echoed in the answer
 * @param maxInitiatorToTargetIuLength the longest IU the initiator wants to send (unsigned)
 * @param bufferFormats                {@link SrpIu#BUFFER_FORMAT_DIRECT} | {@link SrpIu#BUFFER_FORMAT_INDIRECT}
 *                                     the initiator's SRP_CMDs will use
 * @param flags                        MULTI-CHANNEL ACTION (bits 1..0) | {@link #IMMEDIATE_DATA_REQUESTED}
 * @param immediateDataOffset          SRP-2: where in an SRP_CMD the immediate data will start
 */
public record SrpLoginRequest(Form form, long tag, int maxInitiatorToTargetIuLength, int bufferFormats, int flags,
                              int immediateDataOffset, SrpPortId initiatorPortId, SrpPortId targetPortId) {

    /** MULTI-CHANNEL ACTION (flags bits 1..0, SRP r16a): what becomes of the nexus's other channels. */
    public static final int MULTI_CHANNEL_ACTION_MASK = 0x03;
    /** Terminate the other RDMA channels of this I_T nexus. */
    public static final int SINGLE_CHANNEL = 0;
    /** Keep them: this channel is one more of the nexus. */
    public static final int MULTIPLE_INDEPENDENT_CHANNELS = 1;
    /** SRP-2: the initiator wants to send write data inside its SRP_CMDs. */
    public static final int IMMEDIATE_DATA_REQUESTED = 0x80;

    /** The two layouts, as the byte offset of each field. */
    public enum Form {
        /** SRP r16a, in the InfiniBand CM REQ. */
        IB_CM(SrpIu.LOGIN_REQ_LENGTH, 0, 8, 16, 24, 26, 28, 32, 48),
        /** Linux's {@code struct srp_login_req_rdma}, in rdma_cm's connect request. */
        RDMA_CM(SrpIu.LOGIN_REQ_RDMA_CM_LENGTH, 11, 0, 12, 8, 10, 48, 16, 32);

        private final int length;
        private final int opcode;
        private final int tag;
        private final int iuLength;
        private final int bufferFormats;
        private final int flags;
        private final int immediateDataOffset;
        private final int initiatorPortId;
        private final int targetPortId;

        Form(int length, int opcode, int tag, int iuLength, int bufferFormats, int flags, int immediateDataOffset,
             int initiatorPortId, int targetPortId) {
            this.length = length;
            this.opcode = opcode;
            this.tag = tag;
            this.iuLength = iuLength;
            this.bufferFormats = bufferFormats;
            this.flags = flags;
            this.immediateDataOffset = immediateDataOffset;
            this.initiatorPortId = initiatorPortId;
            this.targetPortId = targetPortId;
        }

        /** Bytes of this form. */
        public int length() {
            return length;
        }
    }

    /**
     * Decodes the private data of a connect request: exactly 56 bytes are the rdma_cm form, 64 or
     * more the InfiniBand CM form (whose REQ private data is 92 bytes); any other length, or an
     * opcode byte that is not SRP_LOGIN_REQ, is malformed.
     */
    public static Decoded<SrpLoginRequest> decode(byte[] privateData) {
        int length = privateData == null ? 0 : privateData.length;
        Form form = length == SrpIu.LOGIN_REQ_RDMA_CM_LENGTH ? Form.RDMA_CM
                : length >= SrpIu.LOGIN_REQ_LENGTH ? Form.IB_CM : null;
        if (form == null) {
            return Decoded.malformed("SRP_LOGIN_REQ of " + length + " bytes, expected "
                    + SrpIu.LOGIN_REQ_RDMA_CM_LENGTH + " (rdma_cm) or at least " + SrpIu.LOGIN_REQ_LENGTH);
        }
        ByteBuf in = SrpIu.wrap(privateData);
        int opcode = SrpIu.opcode(in, form.opcode);
        if (opcode != SrpIu.LOGIN_REQ) {
            return Decoded.malformed(SrpIu.name(opcode) + " in a connect request, expected SRP_LOGIN_REQ");
        }
        return Decoded.ok(new SrpLoginRequest(form, in.getLong(form.tag), in.getInt(form.iuLength),
                in.getUnsignedShort(form.bufferFormats), in.getUnsignedByte(form.flags),
                in.getUnsignedShort(form.immediateDataOffset), SrpPortId.read(in, form.initiatorPortId),
                SrpPortId.read(in, form.targetPortId)));
    }

    /** The private data of a connect request carrying this login, in {@link #form()}. */
    public byte[] encode() {
        ByteBuf out = Unpooled.wrappedBuffer(new byte[form.length]);
        out.setByte(form.opcode, SrpIu.LOGIN_REQ);
        out.setLong(form.tag, tag);
        out.setInt(form.iuLength, maxInitiatorToTargetIuLength);
        out.setShort(form.bufferFormats, bufferFormats);
        out.setByte(form.flags, flags);
        out.setShort(form.immediateDataOffset, immediateDataOffset);
        initiatorPortId.write(out, form.initiatorPortId);
        targetPortId.write(out, form.targetPortId);
        return out.array();
    }

    /** {@link #SINGLE_CHANNEL}, {@link #MULTIPLE_INDEPENDENT_CHANNELS} or a reserved value. */
    public int multiChannelAction() {
        return flags & MULTI_CHANNEL_ACTION_MASK;
    }

    public boolean immediateDataRequested() {
        return (flags & IMMEDIATE_DATA_REQUESTED) != 0;
    }
}
