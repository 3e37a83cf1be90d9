package org.jtarget.rdma.tcp;

import io.netty.buffer.ByteBuf;
import org.jtarget.rdma.SendFlags;
import org.jtarget.rdma.SendQueueEntry;
import org.jtarget.rdma.WorkCompletionStatus;
import org.jtarget.rdma.WorkRequestOpcode;

/**
 * The requester side of a connection (the RDMAP operations it starts): turns send-queue entries
 * into SEND, RDMA WRITE and READ REQUEST frames, and takes the responder's answers: an ACK
 * completes every request up to it, a NAK fails one and ends the connection, a READ RESPONSE is
 * placed into its READ's scatter list.
 */
final class Requester {

    private final TcpConnection connection;
    private final FrameOutput output;
    private final TaggedPlacement placement;
    /** The READ RESPONSE being placed (event loop). */
    private int responseMsn;
    private int responseLength;

    Requester(TcpConnection connection, FrameOutput output, TaggedPlacement placement) {
        this.connection = connection;
        this.output = output;
        this.placement = placement;
    }

    /** Sends request {@code msn} (any thread; the output keeps the execution order). */
    void send(SendQueueEntry e, int msn) {
        int length = (int) e.totalLength();
        ByteBuf h;
        switch (e.opcode()) {
            case SEND, SEND_WITH_IMM, SEND_WITH_INV -> {
                int flags = ((e.sendFlags() & SendFlags.SOLICITED) != 0 ? TcpRdmaFrame.FLAG_SOLICITED : 0)
                        | (e.opcode() == WorkRequestOpcode.SEND_WITH_IMM ? TcpRdmaFrame.FLAG_WITH_IMM : 0)
                        | (e.opcode() == WorkRequestOpcode.SEND_WITH_INV ? TcpRdmaFrame.FLAG_WITH_INV : 0);
                h = output.header(TcpRdmaFrame.SEND, flags, msn, length);
                h.writeInt(e.immData()).writeInt(e.invalidateRkey());
            }
            case RDMA_WRITE, RDMA_WRITE_WITH_IMM -> {
                int flags = e.opcode() == WorkRequestOpcode.RDMA_WRITE_WITH_IMM ? TcpRdmaFrame.FLAG_WITH_IMM : 0;
                h = output.header(TcpRdmaFrame.RDMA_WRITE, flags, msn, length);
                h.writeLong(e.remoteAddress()).writeInt(e.rkey()).writeInt(e.immData());
            }
            default -> {
                h = output.header(TcpRdmaFrame.READ_REQUEST, 0, msn, 0);
                h.writeLong(e.remoteAddress()).writeInt(e.rkey()).writeInt(length);
                output.request(h);
                return;
            }
        }
        output.request(output.withPayload(h, e));
    }

    /** ACK: every request up to {@code msn} was executed. */
    void ack(int msn) {
        if (!connection.dataFrameAllowed() || !connection.qp().sent(msn)) {
            connection.malformed("ACK for MSN " + msn + " never sent");
            return;
        }
        connection.qp().acknowledged(msn);
    }

    /** NAK: request {@code msn} failed with {@code status}; the connection ends. */
    void nak(int msn, int status) {
        WorkCompletionStatus[] all = WorkCompletionStatus.values();
        if (!connection.dataFrameAllowed() || !connection.qp().sent(msn) || status <= 0 || status >= all.length) {
            connection.malformed("bad NAK");
            return;
        }
        connection.qp().nak(msn, all[status]);
        connection.close();
    }

    /** A READ RESPONSE for {@code msn} starts: true to place it into the READ's elements. */
    boolean beginReadResponse(int msn, int payloadLength) {
        if (!connection.dataFrameAllowed()) {
            return false;
        }
        SendQueueEntry e = connection.qp().readEntry(msn);
        if (e == null || e.totalLength() != payloadLength) {
            connection.malformed("unexpected READ RESPONSE for MSN " + msn);
            return false;
        }
        placement.intoEntry(e);
        responseMsn = msn;
        responseLength = payloadLength;
        return true;
    }

    /** The READ RESPONSE is placed: the READ completes. */
    void endReadResponse() {
        connection.qp().readCompleted(responseMsn, placement.takeEntry(), responseLength);
    }
}
