package org.jtarget.rdma.iwarp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * Peer-to-peer mode's ready-to-receive message on one connection (RFC 6581): as the initiator, the
 * zero-length RTR the MPA reply picked goes out as the first FPDU; as the responder, the first FPDU
 * must be the RTR negotiated, and only then is the connection up. A READ RTR is answered with a
 * zero-length READ response, and our own READ RTR's zero-length response is consumed here (it
 * completes no work request). What MPA negotiated is {@link MpaHandshake}'s. Event loop only.
 */
final class RtrExchange {

    /** The STag of the RTR this side sends (it names no region). */
    private static final int RTR_STAG = 1;

    private final TcpConnection connection;
    private final MpaHandshake mpa;
    private final FrameOutput output;
    private final ByteBufAllocator alloc;
    private final Requester requester;
    private final Responder responder;

    RtrExchange(TcpConnection connection, MpaHandshake mpa, FrameOutput output, ByteBufAllocator alloc,
                Requester requester, Responder responder) {
        this.connection = connection;
        this.mpa = mpa;
        this.output = output;
        this.alloc = alloc;
        this.requester = requester;
        this.responder = responder;
    }

    /**
     * As the initiator: sends the RTR the reply picked, if any. A WRITE's STag and a READ's STags
     * name no region (the responder checks none of a zero-length operation); 1, not 0, as some
     * adapters treat STag 0 specially.
     */
    void send() {
        switch (mpa.rtrToSend()) {
            case WRITE -> {
                output.respondTagged(Iwarp.RDMA_WRITE, true, RTR_STAG, 0, null);
                output.flush();
            }
            case READ -> {
                ByteBuf request = alloc.directBuffer(Iwarp.READ_REQUEST_PAYLOAD);
                request.writeInt(RTR_STAG).writeLong(0).writeInt(0).writeInt(RTR_STAG).writeLong(0);
                output.sendUntagged(Iwarp.READ_REQUEST, true, 0, Iwarp.QUEUE_READ_REQUEST,
                        requester.takeMsn(Iwarp.QUEUE_READ_REQUEST), 0, request);
            }
            case SEND -> output.sendUntagged(Iwarp.SEND, true, 0, Iwarp.QUEUE_SEND,
                    requester.takeMsn(Iwarp.QUEUE_SEND), 0, null);
            case NONE -> { }
        }
    }

    /**
     * As the responder, the first FPDU as an untagged message: the SEND or READ RTR negotiated,
     * zero-length, taking its queue's first MSN; a READ RTR is answered with a zero-length response.
     * Consumes {@code payload}.
     */
    void untagged(ByteBuf header, ByteBuf payload, int opcode, int queue) {
        boolean read = opcode == Iwarp.READ_REQUEST;
        int length = read ? readLength(payload) : payload.readableBytes();
        boolean inSequence = mpa.untaggedIsRtr(opcode, queue) && header.getInt(Iwarp.MO_OFFSET) == 0
                && responder.takeMsn(queue, header.getInt(Iwarp.MSN_OFFSET));
        if (inSequence && read && length == 0) {
            int i = payload.readerIndex();
            output.respondTagged(Iwarp.READ_RESPONSE, true, payload.getInt(i), payload.getLong(i + 4), null);
        }
        payload.release();
        received(inSequence, length);
    }

    /**
     * A tagged segment while an RTR is due: as the responder the WRITE RTR, as the initiator the
     * zero-length response to our READ RTR. Its payload is never placed.
     */
    void tagged(ByteBuf header, int opcode, int payloadLength) {
        if (mpa.awaitingRtr()) {
            received(mpa.taggedIsRtr(opcode), payloadLength);
        } else if (payloadLength != 0 || (header.getUnsignedByte(0) & Iwarp.DDP_LAST) == 0) {
            connection.terminate(TerminateCode.DDP_BASE_BOUNDS, "the response to the READ RTR is not zero-length");
        } else {
            mpa.rtrResponseReceived();
        }
    }

    /** Whether a tagged segment with {@code opcode} belongs to the RTR exchange. */
    boolean claimsTagged(int opcode) {
        return mpa.awaitingRtr() || opcode == Iwarp.READ_RESPONSE && mpa.awaitingRtrResponse();
    }

    /** The size a READ request asks for, or -1 if it is no READ request (RFC 5040 4.4). */
    private static int readLength(ByteBuf payload) {
        return payload.readableBytes() == Iwarp.READ_REQUEST_PAYLOAD ? payload.getInt(payload.readerIndex() + 12) : -1;
    }

    /** The first FPDU in peer-to-peer mode: the RTR negotiated, zero-length; then the connection is up. */
    private void received(boolean matches, int length) {
        if (!matches || length != 0) {
            connection.terminate(TerminateCode.MPA_NO_MATCHING_RTR, "first FPDU is not the RTR negotiated");
            return;
        }
        mpa.rtrReceived();
        connection.rtrReceived();
    }
}
