package org.jtarget.rdma.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * The frames of the tcp provider, one TCP connection per queue pair. The roles follow soft-iWARP's
 * layers: framing (MPA: a length before every frame, a magic and version in the connect request),
 * placement (DDP: tagged frames — RDMA WRITE and READ RESPONSE — name where the payload goes and are
 * placed straight from the socket buffers; untagged SENDs consume the oldest receive), and operations
 * (RDMAP: SEND, WRITE, READ REQUEST/RESPONSE, TERMINATE as NAK). Big-endian:
 *
 * <pre>
 *  0               1               2               3
 * +---------------+---------------+---------------+---------------+
 * |             frame length (bytes after this field)             |
 * +---------------+---------------+---------------+---------------+
 * |    opcode     |     flags     |           reserved            |
 * +---------------+---------------+---------------+---------------+
 * |            message sequence number (MSN) of the request         |
 * +---------------+---------------+---------------+---------------+
 * | opcode header (below) ...             | payload ...
 *
 *  CONNECT_REQUEST  magic "JRDM" u32, version u16, rnr_retry u8, 0 u8, private data
 *  CONNECT_ACCEPT   rnr_retry u8, 0 u8 u16, private data
 *  CONNECT_REJECT   private data
 *  DISCONNECT       -
 *  SEND             imm u32, invalidate rkey u32, payload (flags: SOLICITED, WITH_IMM, WITH_INV)
 *  RDMA_WRITE       remote address u64, rkey u32, imm u32, payload (flags: WITH_IMM)
 *  READ_REQUEST     remote address u64, rkey u32, length u32
 *  READ_RESPONSE    payload (the MSN is the request's)
 *  ACK              - (every request up to MSN was executed)
 *  NAK              status u32 (the request MSN failed; every earlier one was executed; the
 *                   connection then closes, like an iWARP TERMINATE)
 * </pre>
 *
 * Requests carry consecutive MSNs from 0; any other value, an unknown opcode, a length that does not
 * fit the opcode or exceeds the largest message is a malformed stream: the connection and its queue
 * pair are torn down, nothing else.
 */
public final class TcpRdmaFrame {

    public static final int LENGTH_FIELD = 4;
    public static final int OPCODE_OFFSET = 0;
    public static final int FLAGS_OFFSET = 1;
    public static final int MSN_OFFSET = 4;
    public static final int COMMON_HEADER = 8;

    public static final int CONNECT_REQUEST = 0x01;
    public static final int CONNECT_ACCEPT = 0x02;
    public static final int CONNECT_REJECT = 0x03;
    public static final int DISCONNECT = 0x04;
    public static final int SEND = 0x10;
    public static final int RDMA_WRITE = 0x11;
    public static final int READ_REQUEST = 0x12;
    public static final int READ_RESPONSE = 0x13;
    public static final int ACK = 0x14;
    public static final int NAK = 0x15;

    public static final int FLAG_SOLICITED = 1;
    public static final int FLAG_WITH_IMM = 2;
    public static final int FLAG_WITH_INV = 4;

    public static final int MAGIC = 0x4A52444D; // "JRDM"
    public static final int VERSION = 1;

    private static final int[] OPCODE_HEADER = new int[256];

    static {
        java.util.Arrays.fill(OPCODE_HEADER, -1);
        OPCODE_HEADER[CONNECT_REQUEST] = 8;
        OPCODE_HEADER[CONNECT_ACCEPT] = 4;
        OPCODE_HEADER[CONNECT_REJECT] = 0;
        OPCODE_HEADER[DISCONNECT] = 0;
        OPCODE_HEADER[SEND] = 8;
        OPCODE_HEADER[RDMA_WRITE] = 16;
        OPCODE_HEADER[READ_REQUEST] = 16;
        OPCODE_HEADER[READ_RESPONSE] = 0;
        OPCODE_HEADER[ACK] = 0;
        OPCODE_HEADER[NAK] = 4;
    }

    private TcpRdmaFrame() {
    }

    /** The length of the opcode header after the common header, or -1 for an unknown opcode. */
    public static int opcodeHeaderLength(int opcode) {
        return OPCODE_HEADER[opcode & 0xff];
    }

    /** Whether frames of this opcode may carry a payload. */
    public static boolean hasPayload(int opcode) {
        return switch (opcode) {
            case CONNECT_REQUEST, CONNECT_ACCEPT, CONNECT_REJECT, SEND, RDMA_WRITE, READ_RESPONSE -> true;
            default -> false;
        };
    }

    /** Allocates a frame header with room for the opcode header; the caller writes that part. */
    public static ByteBuf header(ByteBufAllocator alloc, int opcode, int flags, int msn, int payloadLength) {
        int headerLength = COMMON_HEADER + opcodeHeaderLength(opcode);
        ByteBuf buf = alloc.directBuffer(LENGTH_FIELD + headerLength);
        buf.writeInt(headerLength + payloadLength);
        buf.writeByte(opcode);
        buf.writeByte(flags);
        buf.writeShort(0);
        buf.writeInt(msn);
        return buf;
    }
}
