package org.jtarget.rdma.iwarp;

import io.netty.buffer.ByteBuf;

import java.nio.charset.StandardCharsets;

/**
 * MPA (RFC 5044) connection setup and framing, with RFC 6581's enhanced connection establishment.
 *
 * <p>Request and reply frames (RFC 5044 7.1), big-endian:
 * <pre>
 *  16 bytes  key: "MPA ID Req Frame" or "MPA ID Rep Frame"
 *  1 byte    flags: M 0x80 markers, C 0x40 CRC, R 0x20 reject (reply only),
 *            0x10 enhanced connection establishment (RFC 6581; Linux siw sends and requires it)
 *  1 byte    revision (1, or 2 for RFC 6581)
 *  2 bytes   private data length (at most 512)
 *  private data; in revision 2 with the 0x10 flag it starts with the IRD/ORD word:
 *            u16 IRD (0x8000 peer-to-peer, 0x4000 zero-length SEND as RTR, low 14 bits IRD),
 *            u16 ORD (0x8000 zero-length RDMA WRITE as RTR, 0x4000 zero-length RDMA READ as RTR,
 *            low 14 bits ORD)
 * </pre>
 * FPDUs after the reply (RFC 5044 4): u16 ULPDU length, the ULPDU (DDP segment), zero padding to a
 * multiple of 4 bytes counted from the length field, and a 4-byte CRC32C of all that (zero when
 * CRC is not negotiated). Markers are never used: a request for them is rejected.
 */
final class Mpa {

    static final byte[] REQUEST_KEY = "MPA ID Req Frame".getBytes(StandardCharsets.US_ASCII);
    static final byte[] REPLY_KEY = "MPA ID Rep Frame".getBytes(StandardCharsets.US_ASCII);
    static final int KEY_LENGTH = 16;
    /** Key, flags, revision, private data length. */
    static final int FRAME_HEADER = 20;
    static final int MAX_PRIVATE_DATA = 512;

    static final int FLAG_MARKERS = 0x80;
    static final int FLAG_CRC = 0x40;
    static final int FLAG_REJECT = 0x20;
    static final int FLAG_ENHANCED = 0x10;
    static final int REVISION_1 = 1;
    static final int REVISION_2 = 2;

    /** The IRD/ORD word that starts revision 2 private data (RFC 6581 9.1.1). */
    static final int IRD_ORD_LENGTH = 4;
    static final int IRD_PEER_TO_PEER = 0x8000;
    static final int IRD_RTR_SEND = 0x4000;
    static final int ORD_RTR_WRITE = 0x8000;
    static final int ORD_RTR_READ = 0x4000;
    static final int IRD_ORD_MASK = 0x3fff;

    /** The ULPDU length field before every FPDU. */
    static final int LENGTH_FIELD = 2;
    static final int CRC_LENGTH = 4;
    /** The largest ULPDU the 16-bit length field can name. */
    static final int MAX_ULPDU = 0xffff;

    private Mpa() {
    }

    /** Writes a request or reply frame (header and private data) to {@code out}. */
    static void writeFrame(ByteBuf out, byte[] key, int flags, int revision, byte[] privateData) {
        out.writeBytes(key).writeByte(flags).writeByte(revision).writeShort(privateData.length).writeBytes(privateData);
    }

    /** Whether the 16 bytes at {@code index} of {@code buf} are {@code key}. */
    static boolean hasKey(ByteBuf buf, int index, byte[] key) {
        for (int i = 0; i < KEY_LENGTH; i++) {
            if (buf.getByte(index + i) != key[i]) {
                return false;
            }
        }
        return true;
    }

    /** The IRD/ORD word followed by {@code data}. */
    static byte[] withIrdOrd(int ird, int ord, byte[] data) {
        byte[] out = new byte[IRD_ORD_LENGTH + data.length];
        out[0] = (byte) (ird >>> 8);
        out[1] = (byte) ird;
        out[2] = (byte) (ord >>> 8);
        out[3] = (byte) ord;
        System.arraycopy(data, 0, out, IRD_ORD_LENGTH, data.length);
        return out;
    }

    /** Pad bytes after a ULPDU of {@code ulpduLength} so that length field, ULPDU and pad end on 4 bytes. */
    static int padding(int ulpduLength) {
        return -(LENGTH_FIELD + ulpduLength) & 3;
    }
}
