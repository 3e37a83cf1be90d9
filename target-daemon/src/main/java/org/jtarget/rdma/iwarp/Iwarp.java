package org.jtarget.rdma.iwarp;

/**
 * DDP (RFC 5041) and RDMAP (RFC 5040) header fields: the ULPDU an MPA FPDU carries starts with one
 * of these, big-endian.
 *
 * <pre>
 *  byte 0: DDP control   T 0x80 tagged, L 0x40 last segment of the message, DV 0x01 (version 1)
 *  byte 1: RDMAP control RV 0x40 (version 1), opcode in the low 4 bits
 *  tagged   (14 bytes): control, u32 STag, u64 tagged offset                  (RFC 5041 4.2)
 *  untagged (18 bytes): control, u32 reserved for RDMAP (SEND with invalidate:
 *                       the STag to invalidate), u32 queue number, u32 MSN,
 *                       u32 message offset                                    (RFC 5041 4.3)
 *  READ request payload (queue 1, 28 bytes): u32 sink STag, u64 sink TO,
 *                       u32 size, u32 source STag, u64 source TO              (RFC 5040 4.4)
 *  TERMINATE payload (queue 2): u32 control (layer 4 bits, error type 4 bits,
 *                       error code 8 bits, M D R header flags), [u16 DDP segment
 *                       length, u16 reserved, the terminated DDP/RDMAP header] (RFC 5040 4.8)
 * </pre>
 */
final class Iwarp {

    static final int DDP_TAGGED = 0x80;
    static final int DDP_LAST = 0x40;
    static final int DDP_VERSION = 0x01;
    static final int DDP_VERSION_MASK = 0x03;
    static final int RDMAP_VERSION = 0x40;
    static final int RDMAP_VERSION_MASK = 0xc0;
    static final int OPCODE_MASK = 0x0f;

    static final int TAGGED_HEADER = 14;
    static final int UNTAGGED_HEADER = 18;
    static final int STAG_OFFSET = 2;
    static final int TO_OFFSET = 6;
    static final int INVALIDATE_STAG_OFFSET = 2;
    static final int QN_OFFSET = 6;
    static final int MSN_OFFSET = 10;
    static final int MO_OFFSET = 14;

    static final int RDMA_WRITE = 0x0;
    static final int READ_REQUEST = 0x1;
    static final int READ_RESPONSE = 0x2;
    static final int SEND = 0x3;
    static final int SEND_INVALIDATE = 0x4;
    static final int SEND_SOLICITED = 0x5;
    static final int SEND_SOLICITED_INVALIDATE = 0x6;
    static final int TERMINATE = 0x7;

    static final int QUEUE_SEND = 0;
    static final int QUEUE_READ_REQUEST = 1;
    static final int QUEUE_TERMINATE = 2;

    static final int READ_REQUEST_PAYLOAD = 28;
    static final int TERMINATE_CONTROL = 4;

    private Iwarp() {
    }

    /** The two control bytes of a segment. */
    static int control(boolean tagged, boolean last, int opcode) {
        int ddp = (tagged ? DDP_TAGGED : 0) | (last ? DDP_LAST : 0) | DDP_VERSION;
        return ddp << 8 | RDMAP_VERSION | opcode;
    }

    static boolean tagged(int opcode) {
        return opcode == RDMA_WRITE || opcode == READ_RESPONSE;
    }

    static boolean isSend(int opcode) {
        return opcode >= SEND && opcode <= SEND_SOLICITED_INVALIDATE;
    }

    /** The untagged queue a message of {@code opcode} travels on, or -1 for a tagged one. */
    static int queueOf(int opcode) {
        return switch (opcode) {
            case READ_REQUEST -> QUEUE_READ_REQUEST;
            case TERMINATE -> QUEUE_TERMINATE;
            case RDMA_WRITE, READ_RESPONSE -> -1;
            default -> QUEUE_SEND;
        };
    }
}
