package org.jtarget.rdma.iwarp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import org.jtarget.rdma.SendFlags;
import org.jtarget.rdma.SendQueueEntry;
import org.jtarget.rdma.WorkRequestOpcode;

/**
 * The requester side of a connection (the RDMAP operations it starts): turns send-queue entries
 * into SEND (untagged queue 0), RDMA WRITE (tagged) and READ request (untagged queue 1) messages,
 * each cut into DDP segments of at most {@link FrameOutput#MAX_SEGMENT_PAYLOAD}, and places READ
 * responses into their READ's scatter list. SENDs and WRITEs complete once TCP has them (iWARP has
 * no acknowledgements); a READ when its response's last segment is placed (RFC 5040: responses
 * come back in request order).
 */
final class Requester {

    private final TcpConnection connection;
    private final FrameOutput output;
    private final TaggedPlacement placement;
    private final ByteBufAllocator alloc;
    /** Next MSN of untagged queues 0 and 1 (DDP MSNs start at 1). */
    private int sendMsn = 1;
    private int readMsn = 1;
    /** Request numbers of the READs awaiting their response, oldest first (event loop reads). */
    private final int[] outstandingReads;
    private final long[] readSinkTo;
    private volatile int readsIssued;
    private int readsCompleted;
    /** The READ response segment being placed (event loop). */
    private int responseRequest;
    private long responseOffset;
    private long responseLength;

    Requester(TcpConnection connection, FrameOutput output, TaggedPlacement placement, ByteBufAllocator alloc,
              int maxReads) {
        this.connection = connection;
        this.output = output;
        this.placement = placement;
        this.alloc = alloc;
        this.outstandingReads = new int[maxReads];
        this.readSinkTo = new long[maxReads];
    }

    /** Sends request {@code number} (any thread; the output keeps the execution order). */
    void send(SendQueueEntry e, int number) {
        long length = e.totalLength();
        switch (e.opcode()) {
            case SEND, SEND_WITH_INV -> sendMessage(e, length);
            case RDMA_WRITE -> writeMessage(e, length);
            default -> readRequest(e, number, (int) length);
        }
        output.requestQueued(number);
    }

    private void sendMessage(SendQueueEntry e, long length) {
        boolean solicited = (e.sendFlags() & SendFlags.SOLICITED) != 0;
        boolean invalidate = e.opcode() == WorkRequestOpcode.SEND_WITH_INV;
        int opcode = solicited ? (invalidate ? Iwarp.SEND_SOLICITED_INVALIDATE : Iwarp.SEND_SOLICITED)
                : invalidate ? Iwarp.SEND_INVALIDATE : Iwarp.SEND;
        int msn = sendMsn++;
        long offset = 0;
        do {
            int n = (int) Math.min(FrameOutput.MAX_SEGMENT_PAYLOAD, length - offset);
            boolean last = offset + n == length;
            output.requestUntagged(opcode, last, invalidate ? e.invalidateRkey() : 0, Iwarp.QUEUE_SEND, msn,
                    (int) offset, output.payload(e, offset, n));
            offset += n;
        } while (offset < length);
    }

    private void writeMessage(SendQueueEntry e, long length) {
        long offset = 0;
        do {
            int n = (int) Math.min(FrameOutput.MAX_SEGMENT_PAYLOAD, length - offset);
            boolean last = offset + n == length;
            output.requestTagged(Iwarp.RDMA_WRITE, last, e.rkey(), e.remoteAddress() + offset,
                    output.payload(e, offset, n));
            offset += n;
        } while (offset < length);
    }

    /**
     * A READ request names a sink: the first element's lkey and address (the responder sends its
     * response there; this side places responses in request order across all the READ's elements).
     */
    private void readRequest(SendQueueEntry e, int number, int length) {
        int sinkStag = e.numSge() > 0 ? e.region(0).lkey() : 0;
        long sinkTo = e.numSge() > 0 ? e.region(0).address() + e.offset(0) : 0;
        int slot = Math.floorMod(readsIssued, outstandingReads.length);
        outstandingReads[slot] = number;
        readSinkTo[slot] = sinkTo;
        readsIssued++;
        ByteBuf p = output.smallPayload();
        p.writeInt(sinkStag).writeLong(sinkTo).writeInt(length).writeInt(e.rkey()).writeLong(e.remoteAddress());
        output.requestUntagged(Iwarp.READ_REQUEST, true, 0, Iwarp.QUEUE_READ_REQUEST, readMsn++, 0, p);
    }

    /**
     * Takes the next MSN of untagged queue {@code queue} (0 or 1) for a message that is no
     * request: the RTR this side sends first in peer-to-peer mode (RFC 6581).
     */
    int takeMsn(int queue) {
        return queue == Iwarp.QUEUE_SEND ? sendMsn++ : readMsn++;
    }

    /** A READ response segment starts: true to place it into the oldest READ's elements. */
    boolean beginReadResponse(ByteBuf header, int payloadLength) {
        if (!connection.dataFrameAllowed()) {
            return false;
        }
        if (readsCompleted == readsIssued) {
            connection.malformed(TerminateCode.RDMAP_UNEXPECTED_OPCODE, "READ response without a READ");
            return false;
        }
        int slot = Math.floorMod(readsCompleted, outstandingReads.length);
        responseRequest = outstandingReads[slot];
        SendQueueEntry e = connection.qp().readEntry(responseRequest);
        long offset = header.getLong(Iwarp.TO_OFFSET) - readSinkTo[slot];
        if (e == null || offset < 0 || offset + payloadLength > e.totalLength()) {
            connection.malformed(TerminateCode.DDP_BASE_BOUNDS, "READ response outside its READ");
            return false;
        }
        placement.intoEntry(e, offset);
        responseOffset = offset;
        responseLength = e.totalLength();
        last = (header.getUnsignedByte(0) & Iwarp.DDP_LAST) != 0;
        segmentLength = payloadLength;
        return true;
    }

    private boolean last;
    private int segmentLength;

    /** A READ response segment is placed: on the last one the READ completes. */
    void endReadResponse() {
        SendQueueEntry e = placement.takeEntry();
        if (!last) {
            return;
        }
        if (responseOffset + segmentLength != responseLength) {
            connection.malformed(TerminateCode.DDP_BASE_BOUNDS, "READ response shorter than its READ");
            return;
        }
        readsCompleted++;
        connection.qp().readCompleted(responseRequest, e, (int) responseLength);
    }
}
