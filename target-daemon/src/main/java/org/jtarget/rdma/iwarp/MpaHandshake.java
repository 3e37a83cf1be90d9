package org.jtarget.rdma.iwarp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import org.jtarget.rdma.cm.ConnectionManager;

import java.util.Set;

/**
 * One connection's MPA request/reply exchange (RFC 5044 7.1) and what it negotiated: the peer's
 * revision and whether it speaks RFC 6581's enhanced establishment, CRC, the peer's IRD and, in
 * peer-to-peer mode (asked for by the peer, or by this side as the initiator), which
 * ready-to-receive message (RTR) opens the FPDU stream. It builds and
 * parses the frames; the connection decides what happens next (events, phase, close). Used on the
 * channel's event loop only.
 */
final class MpaHandshake {

    /** What a received MPA request or reply means. */
    enum Outcome {
        /** Not a valid frame: the TCP connection just closes (RFC 5044 7.1.4). */
        MALFORMED,
        /** A request this side refuses (markers, too much private data): reply with a reject. */
        REFUSE,
        /** A reply with the reject flag. */
        REJECTED,
        /** A request to offer to the listener, or a reply accepting ours. */
        ACCEPTABLE,
        /**
         * A reply to our peer-to-peer request that picks no RTR we offered (or none at all): the
         * responder awaits an RTR we cannot send, so the connection ends with a TERMINATE.
         */
        NO_MATCHING_RTR
    }

    private int peerRevision;
    private boolean peerEnhanced;
    private boolean crc;
    /** Passive side in peer-to-peer mode: the RTR picked from the peer's offer, and the one still awaited. */
    private ReadyToReceive offeredRtr = ReadyToReceive.NONE;
    private ReadyToReceive awaitingRtr = ReadyToReceive.NONE;
    /** Active side: the RTRs our request offered (empty: client-server mode), and the one the reply picked. */
    private Set<ReadyToReceive> requestedRtrs = Set.of();
    private ReadyToReceive pickedRtr = ReadyToReceive.NONE;
    /** Active side: our READ RTR's zero-length response has not arrived yet. */
    private boolean awaitingRtrResponse;
    /** The peer's IRD from its MPA frame: how many READs this side may have outstanding. */
    private int peerIrd = 1;

    /** Whether FPDUs carry a CRC32C (known once the reply is sent or received). */
    boolean crc() {
        return crc;
    }

    int peerIrd() {
        return peerIrd;
    }

    /**
     * The active side's request: revision 2, enhanced, our IRD/ORD before {@code data}; with
     * {@code offeredRtrs} (not empty) it asks for peer-to-peer mode and offers those RTRs.
     */
    ByteBuf request(ByteBufAllocator alloc, boolean crc, Set<ReadyToReceive> offeredRtrs, byte[] data) {
        requestedRtrs = Set.copyOf(offeredRtrs);
        int flags = Mpa.FLAG_ENHANCED | (crc ? Mpa.FLAG_CRC : 0);
        int ird = Responder.IRD;
        int ord = Responder.IRD;
        if (!requestedRtrs.isEmpty()) {
            ird |= Mpa.IRD_PEER_TO_PEER | (requestedRtrs.contains(ReadyToReceive.SEND) ? Mpa.IRD_RTR_SEND : 0);
            ord |= (requestedRtrs.contains(ReadyToReceive.WRITE) ? Mpa.ORD_RTR_WRITE : 0)
                    | (requestedRtrs.contains(ReadyToReceive.READ) ? Mpa.ORD_RTR_READ : 0);
        }
        byte[] pd = Mpa.withIrdOrd(ird, ord, data);
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
            offeredRtr = (ird & Mpa.IRD_PEER_TO_PEER) == 0 ? ReadyToReceive.NONE
                    : (ord & Mpa.ORD_RTR_WRITE) != 0 ? ReadyToReceive.WRITE
                    : (ord & Mpa.ORD_RTR_READ) != 0 ? ReadyToReceive.READ
                    : (ird & Mpa.IRD_RTR_SEND) != 0 ? ReadyToReceive.SEND : ReadyToReceive.WRITE;
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
            int ird = Responder.IRD | (offeredRtr != ReadyToReceive.NONE ? Mpa.IRD_PEER_TO_PEER : 0)
                    | (offeredRtr == ReadyToReceive.SEND ? Mpa.IRD_RTR_SEND : 0);
            int ord = Responder.IRD | (offeredRtr == ReadyToReceive.WRITE ? Mpa.ORD_RTR_WRITE : 0)
                    | (offeredRtr == ReadyToReceive.READ ? Mpa.ORD_RTR_READ : 0);
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
        int ird = privateData.readUnsignedShort();
        int ord = privateData.readUnsignedShort();
        peerIrd = ird & Mpa.IRD_ORD_MASK;
        if ((flags & Mpa.FLAG_REJECT) != 0) {
            return Outcome.REJECTED;
        }
        crc = (flags & Mpa.FLAG_CRC) != 0;
        if (requestedRtrs.isEmpty()) {
            return Outcome.ACCEPTABLE; // a P2P bit we did not ask for changes nothing: we send no RTR
        }
        pickedRtr = pickedRtr(ird, ord);
        return requestedRtrs.contains(pickedRtr) ? Outcome.ACCEPTABLE : Outcome.NO_MATCHING_RTR;
    }

    /**
     * The one RTR a reply's IRD/ORD word picks (RFC 6581: the P2P bit and exactly one RTR bit), or
     * NONE when it picks none or several.
     */
    private static ReadyToReceive pickedRtr(int ird, int ord) {
        if ((ird & Mpa.IRD_PEER_TO_PEER) == 0) {
            return ReadyToReceive.NONE;
        }
        boolean send = (ird & Mpa.IRD_RTR_SEND) != 0;
        boolean write = (ord & Mpa.ORD_RTR_WRITE) != 0;
        boolean read = (ord & Mpa.ORD_RTR_READ) != 0;
        if ((send ? 1 : 0) + (write ? 1 : 0) + (read ? 1 : 0) != 1) {
            return ReadyToReceive.NONE;
        }
        return send ? ReadyToReceive.SEND : write ? ReadyToReceive.WRITE : ReadyToReceive.READ;
    }

    /**
     * The RTR this side (the initiator) sends as its first FPDU, as the reply picked; NONE in
     * client-server mode. A READ RTR's response is awaited from now on.
     */
    ReadyToReceive rtrToSend() {
        awaitingRtrResponse = pickedRtr == ReadyToReceive.READ;
        return pickedRtr;
    }

    /** Whether our READ RTR's zero-length response is still to come (the first READ response is its). */
    boolean awaitingRtrResponse() {
        return awaitingRtrResponse;
    }

    /** Our READ RTR's response arrived (and was consumed): later READ responses are the requests'. */
    void rtrResponseReceived() {
        awaitingRtrResponse = false;
    }

    /** The RTR the connection opened with (either side), NONE in client-server mode. */
    ReadyToReceive negotiatedRtr() {
        return pickedRtr != ReadyToReceive.NONE ? pickedRtr : offeredRtr;
    }

    /** Whether the first FPDU must still be the RTR negotiated. */
    boolean awaitingRtr() {
        return awaitingRtr != ReadyToReceive.NONE;
    }

    /** Whether an untagged first FPDU is the RTR awaited: a SEND on queue 0 or a READ request. */
    boolean untaggedIsRtr(int opcode, int queue) {
        return awaitingRtr == ReadyToReceive.SEND && Iwarp.isSend(opcode) && queue == Iwarp.QUEUE_SEND
                || awaitingRtr == ReadyToReceive.READ && opcode == Iwarp.READ_REQUEST
                        && queue == Iwarp.QUEUE_READ_REQUEST;
    }

    /** Whether a tagged first FPDU is the RTR awaited: an RDMA WRITE. */
    boolean taggedIsRtr(int opcode) {
        return awaitingRtr == ReadyToReceive.WRITE && opcode == Iwarp.RDMA_WRITE;
    }

    /** The RTR arrived: FPDUs flow normally from now on. */
    void rtrReceived() {
        awaitingRtr = ReadyToReceive.NONE;
    }

    /** The readable bytes of {@code b}: private data handed to the connection manager's events. */
    static byte[] bytes(ByteBuf b) {
        byte[] d = new byte[b.readableBytes()];
        b.getBytes(b.readerIndex(), d);
        return d;
    }
}
