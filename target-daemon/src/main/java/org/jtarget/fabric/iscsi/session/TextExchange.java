package org.jtarget.fabric.iscsi.session;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.jtarget.fabric.iscsi.pdu.IscsiPdu;
import org.jtarget.fabric.iscsi.pdu.Opcode;
import org.jtarget.fabric.iscsi.pdu.RejectReason;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Text Request / Text Response exchanges of one connection (RFC 7143 11.10-11.11, 6.1):
 * SendTargets (Appendix C) is answered, every other key gets "NotUnderstood". Long answers are
 * split at the initiator's MaxRecvDataSegmentLength (iSER: InitiatorRecvDataSegmentLength) or
 * at what the transport can send in one PDU, if less: C=1 with a Target Transfer Tag, and the
 * initiator fetches the rest with empty Text Requests echoing that tag. A request the initiator
 * splits (C=1) is collected until its last part. Control path: allocation is fine here.
 */
final class TextExchange {

    static final int CONTINUE_BIT = 0x40;

    private final IscsiConnection connection;
    /** The rest of a long answer, or null. */
    private ByteBuf pendingAnswer;
    private int pendingTtt = IscsiPdu.RESERVED_TAG;
    /** Parts of a request the initiator split with C=1, or null. */
    private ByteBuf pendingRequest;

    TextExchange(IscsiConnection connection) {
        this.connection = connection;
    }

    /** Handles one Text Request (consumes it). */
    void request(IscsiPdu pdu) {
        try {
            int ttt = pdu.targetTransferTag();
            if (ttt != IscsiPdu.RESERVED_TAG && ttt == pendingTtt && pendingAnswer != null) {
                sendChunk(pdu);
                return;
            }
            dropPendingAnswer(); // RFC 7143 11.10.4: a new exchange (TTT 0xffffffff) resets the old one
            if (pendingRequest == null) {
                pendingRequest = connection.alloc().buffer(pdu.data().readableBytes());
            }
            pendingRequest.writeBytes(pdu.data(), pdu.data().readerIndex(), pdu.data().readableBytes());
            if ((pdu.flags() & CONTINUE_BIT) != 0) {
                pendingTtt = connection.nextTargetTransferTag();
                send(pdu, Unpooled.EMPTY_BUFFER, false, pendingTtt); // ask for the rest
                return;
            }
            answer(pdu);
        } finally {
            pdu.release();
        }
    }

    private void answer(IscsiPdu pdu) {
        List<Map.Entry<String, String>> pairs;
        try {
            pairs = connection.textCodec().parse(pendingRequest);
        } finally {
            pendingRequest.release();
            pendingRequest = null;
        }
        if (pairs == null) {
            connection.sendReject(RejectReason.PROTOCOL_ERROR, pdu.bhs());
            return;
        }
        List<Map.Entry<String, String>> out = new ArrayList<>();
        IscsiSession session = connection.session();
        for (Map.Entry<String, String> pair : pairs) {
            if ("SendTargets".equals(pair.getKey())) {
                String sessionTarget = session.discovery() ? null : session.target().name();
                out.addAll(connection.textCodec().sendTargets(pair.getValue(), connection.loginContext(), sessionTarget));
            } else {
                out.add(Map.entry(pair.getKey(), "NotUnderstood"));
            }
        }
        pendingAnswer = connection.textCodec().encode(out, connection.alloc());
        pendingTtt = connection.nextTargetTransferTag();
        sendChunk(pdu);
    }

    /** Sends the next part of the pending answer; the last part has F=1 and TTT 0xffffffff. */
    private void sendChunk(IscsiPdu request) {
        int max = Math.min(connection.parameters().initiatorMaxRecvDataSegmentLength(),
                connection.transport().maxSendDataSegmentLength());
        int len = Math.min(max, pendingAnswer.readableBytes());
        ByteBuf chunk = pendingAnswer.readRetainedSlice(len);
        boolean last = !pendingAnswer.isReadable();
        if (last) {
            pendingAnswer.release();
            pendingAnswer = null;
            pendingTtt = IscsiPdu.RESERVED_TAG;
        }
        send(request, chunk, last, pendingTtt);
    }

    private void send(IscsiPdu request, ByteBuf data, boolean last, int ttt) {
        IscsiPdu out = connection.targetPdu(Opcode.TEXT_RESPONSE, data, true);
        out.flags(last ? IscsiPdu.FINAL_BIT : (data.isReadable() ? CONTINUE_BIT : 0));
        out.lunField(request.lunField());
        out.initiatorTaskTag(request.initiatorTaskTag());
        out.targetTransferTag(last ? IscsiPdu.RESERVED_TAG : ttt);
        connection.transport().sendAndFlush(out);
    }

    private void dropPendingAnswer() {
        if (pendingAnswer != null) {
            pendingAnswer.release();
            pendingAnswer = null;
        }
        pendingTtt = IscsiPdu.RESERVED_TAG;
    }

    /** Releases what is held (connection gone). */
    void release() {
        dropPendingAnswer();
        if (pendingRequest != null) {
            pendingRequest.release();
            pendingRequest = null;
        }
    }
}
