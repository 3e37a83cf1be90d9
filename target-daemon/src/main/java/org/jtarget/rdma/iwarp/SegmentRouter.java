package org.jtarget.rdma.iwarp;

import io.netty.buffer.ByteBuf;

/**
 * Sends each DDP segment of an established connection to the side it is for: SENDs and READ
 * requests (untagged queues 0 and 1) and RDMA WRITEs to the {@link Responder}, READ responses to the
 * {@link Requester}, a TERMINATE (queue 2) to the connection, and in peer-to-peer mode the RTR to the
 * {@link RtrExchange}. A segment that belongs nowhere terminates the stream: an unknown queue number
 * with DDP's "invalid QN" (RFC 5041 7.2), a wrong opcode with RDMAP's "unexpected opcode" (RFC 5040
 * 7.4). Event loop only.
 */
final class SegmentRouter {

    private final TcpConnection connection;
    private final MpaHandshake mpa;
    private final RtrExchange rtr;
    private final Requester requester;
    private final Responder responder;
    /** The tagged segment being placed is a READ response (else an RDMA WRITE). */
    private boolean placingReadResponse;

    SegmentRouter(TcpConnection connection, MpaHandshake mpa, RtrExchange rtr, Requester requester,
                  Responder responder) {
        this.connection = connection;
        this.mpa = mpa;
        this.rtr = rtr;
        this.requester = requester;
        this.responder = responder;
    }

    /** An untagged segment; consumes {@code payload}. */
    void untagged(ByteBuf header, ByteBuf payload) {
        int queue = header.getInt(Iwarp.QN_OFFSET);
        int opcode = header.getUnsignedByte(1) & Iwarp.OPCODE_MASK;
        if (mpa.awaitingRtr()) {
            rtr.untagged(header, payload, opcode, queue);
        } else if (queue == Iwarp.QUEUE_SEND && Iwarp.isSend(opcode)) {
            responder.send(header, payload);
        } else if (queue == Iwarp.QUEUE_READ_REQUEST && opcode == Iwarp.READ_REQUEST) {
            responder.readRequest(header, payload);
        } else if (queue == Iwarp.QUEUE_TERMINATE && opcode == Iwarp.TERMINATE) {
            connection.peerTerminated(payload);
        } else {
            payload.release();
            connection.terminate(queue > Iwarp.QUEUE_TERMINATE ? TerminateCode.DDP_INVALID_QN
                    : TerminateCode.RDMAP_UNEXPECTED_OPCODE, "opcode " + opcode + " on queue " + queue);
        }
    }

    /** A tagged segment starts; true to have its payload placed ({@link FrameSink#beginTagged}). */
    boolean beginTagged(ByteBuf header, int payloadLength) {
        int opcode = header.getUnsignedByte(1) & Iwarp.OPCODE_MASK;
        if (rtr.claimsTagged(opcode)) {
            rtr.tagged(header, opcode, payloadLength);
            return false;
        }
        if (opcode == Iwarp.RDMA_WRITE) {
            placingReadResponse = false;
            return responder.beginWrite(header, payloadLength);
        }
        if (opcode == Iwarp.READ_RESPONSE) {
            placingReadResponse = true;
            return requester.beginReadResponse(header, payloadLength);
        }
        connection.terminate(TerminateCode.RDMAP_UNEXPECTED_OPCODE, "tagged opcode " + opcode);
        return false;
    }

    /** The tagged segment begun last is placed whole. */
    void endTagged() {
        if (placingReadResponse) {
            requester.endReadResponse();
        } else {
            responder.endWrite();
        }
    }
}
