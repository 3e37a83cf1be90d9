package org.jtarget.rdma.iwarp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import org.jtarget.rdma.cm.ConnectionManager;

/**
 * One connection's MPA request/reply exchange (RFC 5044 7.1) and what it negotiated: the peer's
 * revision and whether it speaks RFC 6581's enhanced establishment, CRC, the peer's IRD and, in
 * peer-to-peer mode, which ready-to-receive message (RTR) opens the FPDU stream. It builds and
 * parses the frames; the connection decides what happens next (events, phase, close). Used on the
 * channel's event loop only.
 */
final class MpaHandshake {

    /** What the first FPDU must be when the peer asked for peer-to-peer mode (RFC 6581 4). */
    enum Rtr { NONE, SEND, WRITE, READ }

    /** What a received MPA request or reply means. */
    enum Outcome {
        /** Not a valid frame: the TCP connection just closes (RFC 5044 7.1.4). */
        MALFORMED,
        /** A request this side refuses (markers, too much private data): reply with a reject. */
        REFUSE,
        /** A reply with the reject flag. */
        REJECTED,
        /** A request to offer to the listener, or a reply accepting ours. */
        ACCEPTABLE
    }

    private int peerRevision;
    private boolean peerEnhanced;
    private boolean crc;
    /** Peer-to-peer mode: the RTR the peer offered, and the one still awaited as the first FPDU. */
    private Rtr offeredRtr = Rtr.NONE;
    private Rtr awaitingRtr = Rtr.NONE;
    /** The peer's IRD from its MPA frame: how many READs this side may have outstanding. */
    private int peerIrd = 1;

    /** Whether FPDUs carry a CRC32C (known once the reply is sent or received). */
    boolean crc() {
        return crc;
    }

    int peerIrd() {
        return peerIrd;
    }

    /** The active side's request: revision 2, enhanced, our IRD/ORD before {@code data}. */
    static ByteBuf request(ByteBufAllocator alloc, boolean crc, byte[] data) {
        int flags = Mpa.FLAG_ENHANCED | (crc ? Mpa.FLAG_CRC : 0);
        byte[] pd = Mpa.withIrdOrd(Responder.IRD, Responder.IRD, data);
        ByteBuf f = alloc.heapBuffer(Mpa.FRAME_HEADER + pd.length);
        Mpa.writeFrame(f, Mpa.REQUEST_KEY, flags, Mpa.REVISION_2, pd);
        return f;
    }

    /**
     * Reads the peer's request; {@code privateData} is left at the listener's part. CRC is on when
     * the peer or {@code wantCrc} asks for it.
     */
    Outcome readRequest(ByteBuf header, ByteBuf privateData, boolean wantCrc) {
        int flags = header.getUnsignedByte(Mpa.KEY_LENGTH);
        int revision = header.getUnsignedByte(Mpa.KEY_LENGTH + 1);
        if (!Mpa.hasKey(header, 0, Mpa.REQUEST_KEY) || revision != Mpa.REVISION_1 && revision != Mpa.REVISION_2) {
            return Outcome.MALFORMED;
        }
        peerRevision = revision;
        peerEnhanced = revision == Mpa.REVISION_2 && (flags & Mpa.FLAG_ENHANCED) != 0;
        if ((flags & Mpa.FLAG_MARKERS) != 0) {
            return Outcome.REFUSE;
        }
        if (peerEnhanced) {
            if (privateData.readableBytes() < Mpa.IRD_ORD_LENGTH) {
                return Outcome.MALFORMED;
            }
            int ird = privateData.readUnsignedShort();
            int ord = privateData.readUnsignedShort();
            peerIrd = ird & Mpa.IRD_ORD_MASK;
            offeredRtr = (ird & Mpa.IRD_PEER_TO_PEER) == 0 ? Rtr.NONE
                    : (ord & Mpa.ORD_RTR_WRITE) != 0 ? Rtr.WRITE
                    : (ord & Mpa.ORD_RTR_READ) != 0 ? Rtr.READ
                    : (ird & Mpa.IRD_RTR_SEND) != 0 ? Rtr.SEND : Rtr.WRITE;
        }
        if (privateData.readableBytes() > ConnectionManager.MAX_PRIVATE_DATA) {
            return Outcome.REFUSE;
        }
        crc = (flags & Mpa.FLAG_CRC) != 0 || wantCrc;
        return Outcome.ACCEPTABLE;
    }

    /**
     * The reply accepting the request, with our IRD/ORD and the RTR the peer offered; from now on
     * that RTR is awaited as the first FPDU.
     */
    ByteBuf reply(ByteBufAllocator alloc, byte[] data) {
        int flags = (crc ? Mpa.FLAG_CRC : 0) | (peerEnhanced ? Mpa.FLAG_ENHANCED : 0);
        byte[] pd = data;
        if (peerEnhanced) {
            int ird = Responder.IRD | (offeredRtr != Rtr.NONE ? Mpa.IRD_PEER_TO_PEER : 0)
                    | (offeredRtr == Rtr.SEND ? Mpa.IRD_RTR_SEND : 0);
            int ord = Responder.IRD | (offeredRtr == Rtr.WRITE ? Mpa.ORD_RTR_WRITE : 0)
                    | (offeredRtr == Rtr.READ ? Mpa.ORD_RTR_READ : 0);
            pd = Mpa.withIrdOrd(ird, ord, data);
        }
        ByteBuf f = alloc.heapBuffer(Mpa.FRAME_HEADER + pd.length);
        Mpa.writeFrame(f, Mpa.REPLY_KEY, flags, peerRevision, pd);
        awaitingRtr = offeredRtr;
        return f;
    }

    /** A reply with the reject flag carrying {@code data} (RFC 5044 7.1.5). */
    ByteBuf reject(ByteBufAllocator alloc, byte[] data) {
        byte[] pd = peerEnhanced ? Mpa.withIrdOrd(0, 0, data) : data;
        ByteBuf f = alloc.heapBuffer(Mpa.FRAME_HEADER + pd.length);
        int revision = peerRevision == 0 ? Mpa.REVISION_2 : peerRevision;
        Mpa.writeFrame(f, Mpa.REPLY_KEY, Mpa.FLAG_REJECT | (peerEnhanced ? Mpa.FLAG_ENHANCED : 0), revision, pd);
        return f;
    }

    /** Reads the peer's reply to our request; {@code privateData} is left at the listener's part. */
    Outcome readReply(ByteBuf header, ByteBuf privateData) {
        int flags = header.getUnsignedByte(Mpa.KEY_LENGTH);
        int revision = header.getUnsignedByte(Mpa.KEY_LENGTH + 1);
        boolean enhanced = revision == Mpa.REVISION_2 && (flags & Mpa.FLAG_ENHANCED) != 0;
        if (!Mpa.hasKey(header, 0, Mpa.REPLY_KEY) || !enhanced || (flags & Mpa.FLAG_MARKERS) != 0
                || privateData.readableBytes() < Mpa.IRD_ORD_LENGTH) {
            return Outcome.MALFORMED;
        }
        peerIrd = privateData.readUnsignedShort() & Mpa.IRD_ORD_MASK;
        privateData.skipBytes(Mpa.IRD_ORD_LENGTH - 2);
        if ((flags & Mpa.FLAG_REJECT) != 0) {
            return Outcome.REJECTED;
        }
        crc = (flags & Mpa.FLAG_CRC) != 0;
        return Outcome.ACCEPTABLE;
    }

    /** Whether the first FPDU must still be the RTR negotiated. */
    boolean awaitingRtr() {
        return awaitingRtr != Rtr.NONE;
    }

    /** Whether an untagged first FPDU is the RTR awaited: a SEND on queue 0 or a READ request. */
    boolean untaggedIsRtr(int opcode, int queue) {
        return awaitingRtr == Rtr.SEND && Iwarp.isSend(opcode) && queue == Iwarp.QUEUE_SEND
                || awaitingRtr == Rtr.READ && opcode == Iwarp.READ_REQUEST;
    }

    /** Whether a tagged first FPDU is the RTR awaited: an RDMA WRITE. */
    boolean taggedIsRtr(int opcode) {
        return awaitingRtr == Rtr.WRITE && opcode == Iwarp.RDMA_WRITE;
    }

    /** The RTR arrived: FPDUs flow normally from now on. */
    void rtrReceived() {
        awaitingRtr = Rtr.NONE;
    }

    /** The readable bytes of {@code b}: private data handed to the connection manager's events. */
    static byte[] bytes(ByteBuf b) {
        byte[] d = new byte[b.readableBytes()];
        b.getBytes(b.readerIndex(), d);
        return d;
    }
}
