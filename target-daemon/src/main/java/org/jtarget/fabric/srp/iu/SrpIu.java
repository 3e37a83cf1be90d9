package org.jtarget.fabric.srp.iu;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.jtarget.fabric.rdma.Decoded;

import java.util.function.Function;

/**
 * What all SRP information units share: the opcode in byte 0 (SRP r16a, table of information
 * unit types; Linux {@code include/scsi/srp.h}; byte 11 of the rdma_cm form of SRP_LOGIN_REQ),
 * their lengths, the buffer format bits of the login exchange, and the 16-byte layout of the
 * short IUs. Every field of every IU is big-endian.
 *
 * <p>The short IUs (SRP_I_LOGOUT, SRP_T_LOGOUT, SRP_CRED_REQ, SRP_CRED_RSP, SRP_AER_RSP) are one
 * layout with parts reserved in some of them, and the longer IUs except SRP_LOGIN_REQ and SRP_CMD
 * start with it:
 * <pre>
 *   byte 0      opcode          byte 1   SOLICITED NOTIFICATION (target-sent requests)
 *   bytes 2-3   reserved        bytes 4-7 REASON (T_LOGOUT, LOGIN_REJ) or REQUEST LIMIT DELTA
 *                                         (CRED_REQ, LOGIN_RSP, RSP, AER_REQ)
 *   bytes 8-15  tag
 * </pre>
 */
public final class SrpIu {

    /** Initiator to target (SRP r16a). */
    public static final int LOGIN_REQ = 0x00;
    public static final int TSK_MGMT = 0x01;
    public static final int CMD = 0x02;
    public static final int I_LOGOUT = 0x03;
    public static final int CRED_RSP = 0x41;
    public static final int AER_RSP = 0x42;

    /** Target to initiator (SRP r16a). */
    public static final int LOGIN_RSP = 0xC0;
    public static final int RSP = 0xC1;
    public static final int LOGIN_REJ = 0xC2;
    public static final int T_LOGOUT = 0x80;
    public static final int CRED_REQ = 0x81;
    public static final int AER_REQ = 0x82;

    /** SRP_LOGIN_REQ as the InfiniBand CM carries it (SRP r16a). */
    public static final int LOGIN_REQ_LENGTH = 64;
    /** SRP_LOGIN_REQ as Linux's ib_srp sends it through rdma_cm ({@code struct srp_login_req_rdma}). */
    public static final int LOGIN_REQ_RDMA_CM_LENGTH = 56;
    public static final int LOGIN_RSP_LENGTH = 52;
    public static final int LOGIN_REJ_LENGTH = 32;
    /** SRP_CMD without additional CDB bytes and descriptors. */
    public static final int CMD_MIN_LENGTH = 48;
    public static final int TSK_MGMT_LENGTH = 48;
    /** SRP_RSP without response and sense data. */
    public static final int RSP_MIN_LENGTH = 36;
    /** SRP_AER_REQ without sense data. */
    public static final int AER_REQ_MIN_LENGTH = 36;
    /** SRP_I_LOGOUT, SRP_T_LOGOUT, SRP_CRED_REQ, SRP_CRED_RSP and SRP_AER_RSP. */
    public static final int SHORT_IU_LENGTH = 16;

    /**
     * REQUIRED / SUPPORTED BUFFER FORMATS of the login exchange (SRP r16a, SRP_LOGIN_REQ and
     * SRP_LOGIN_RSP): the initiator asks for, and the target answers with, the data buffer
     * descriptor formats of SRP_CMD.
     */
    public static final int BUFFER_FORMAT_DIRECT = 0x0002;
    public static final int BUFFER_FORMAT_INDIRECT = 0x0004;

    static final int SOL_NOT_OFFSET = 1;
    static final int WORD_OFFSET = 4;
    static final int TAG_OFFSET = 8;

    private SrpIu() {
    }

    /** The opcode of the IU at {@code index} (the caller has checked that one byte is there). */
    public static int opcode(ByteBuf in, int index) {
        return in.getUnsignedByte(index);
    }

    /**
     * The length below which an IU of {@code opcode} cannot be well formed (for SRP_LOGIN_REQ the
     * shorter rdma_cm form), or -1 for an opcode SRP does not define.
     */
    public static int minimumLength(int opcode) {
        return switch (opcode) {
            case LOGIN_REQ -> LOGIN_REQ_RDMA_CM_LENGTH;
            case LOGIN_RSP -> LOGIN_RSP_LENGTH;
            case LOGIN_REJ -> LOGIN_REJ_LENGTH;
            case CMD -> CMD_MIN_LENGTH;
            case TSK_MGMT -> TSK_MGMT_LENGTH;
            case RSP -> RSP_MIN_LENGTH;
            case AER_REQ -> AER_REQ_MIN_LENGTH;
            case I_LOGOUT, T_LOGOUT, CRED_REQ, CRED_RSP, AER_RSP -> SHORT_IU_LENGTH;
            default -> -1;
        };
    }

    /** The standard's name of {@code opcode}, for log lines. */
    public static String name(int opcode) {
        return switch (opcode) {
            case LOGIN_REQ -> "SRP_LOGIN_REQ";
            case TSK_MGMT -> "SRP_TSK_MGMT";
            case CMD -> "SRP_CMD";
            case I_LOGOUT -> "SRP_I_LOGOUT";
            case CRED_RSP -> "SRP_CRED_RSP";
            case AER_RSP -> "SRP_AER_RSP";
            case LOGIN_RSP -> "SRP_LOGIN_RSP";
            case RSP -> "SRP_RSP";
            case LOGIN_REJ -> "SRP_LOGIN_REJ";
            case T_LOGOUT -> "SRP_T_LOGOUT";
            case CRED_REQ -> "SRP_CRED_REQ";
            case AER_REQ -> "SRP_AER_REQ";
            default -> "unknown IU 0x" + Integer.toHexString(opcode);
        };
    }

    /**
     * Why the {@code length} bytes at {@code index} are not an IU of {@code opcode} at least
     * {@code minLength} long, or null if they may be one. Bytes the buffer does not hold count as
     * malformed too, so that no decoder reads past its writer index.
     */
    static String check(ByteBuf in, int index, int length, int opcode, int minLength) {
        if (length < minLength) {
            return name(opcode) + " of " + length + " bytes, expected at least " + minLength;
        }
        if (index < 0 || in.writerIndex() - index < length) {
            return name(opcode) + " of " + length + " bytes at " + index + " is beyond the buffer's "
                    + in.writerIndex() + " bytes";
        }
        int actual = opcode(in, index);
        return actual == opcode ? null : name(actual) + " where " + name(opcode) + " was expected";
    }

    /**
     * A copy of the {@code listLength} bytes (unsigned) at {@code offset} of the IU at
     * {@code index}, or null if they run past the IU's {@code length} bytes (which the caller has
     * checked are in the buffer).
     */
    static byte[] list(ByteBuf in, int index, int length, int offset, int listLength) {
        if (Integer.toUnsignedLong(listLength) > length - offset) {
            return null;
        }
        byte[] bytes = new byte[listLength];
        in.getBytes(index + offset, bytes);
        return bytes;
    }

    /** The private data of a connection manager event as a buffer (null is empty). */
    static ByteBuf wrap(byte[] privateData) {
        return privateData == null ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(privateData);
    }

    /**
     * Decodes the IU of {@code opcode} at the start of a connection manager event's private data,
     * with {@code reader} once the bytes are known to hold one. Bytes past the IU are the
     * transport's padding and ignored.
     */
    static <T> Decoded<T> decodePrivateData(byte[] privateData, int opcode, int minLength,
                                            Function<ByteBuf, T> reader) {
        ByteBuf in = wrap(privateData);
        String bad = check(in, 0, in.writerIndex(), opcode, minLength);
        return bad != null ? Decoded.malformed(bad) : Decoded.ok(reader.apply(in));
    }

    /**
     * A buffer over new private data of {@code length} zero bytes with {@code opcode} in byte 0,
     * for an encoder to set its fields in and return the {@link ByteBuf#array() array} of.
     */
    static ByteBuf newPrivateData(int length, int opcode) {
        ByteBuf out = Unpooled.wrappedBuffer(new byte[length]);
        out.setByte(0, opcode);
        return out;
    }

    /** Builds a short IU's value from its three fields (see the class comment). */
    @FunctionalInterface
    interface ShortIuReader<T> {
        T read(int solNot, int word, long tag);
    }

    /** Decodes one of the 16-byte short IUs of {@code opcode}. */
    static <T> Decoded<T> decodeShort(ByteBuf in, int index, int length, int opcode, ShortIuReader<T> reader) {
        String bad = check(in, index, length, opcode, SHORT_IU_LENGTH);
        if (bad != null) {
            return Decoded.malformed(bad);
        }
        return Decoded.ok(reader.read(in.getUnsignedByte(index + SOL_NOT_OFFSET), in.getInt(index + WORD_OFFSET),
                in.getLong(index + TAG_OFFSET)));
    }

    /** Writes one of the 16-byte short IUs at the writer index; reserved parts get zero. */
    static void encodeShort(ByteBuf out, int opcode, int solNot, int word, long tag) {
        out.writeByte(opcode);
        out.writeByte(solNot);
        out.writeShort(0);
        out.writeInt(word);
        out.writeLong(tag);
    }
}
