package org.jtarget.rdma.iwarp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import org.jtarget.rdma.AccessFlag;
import org.jtarget.rdma.InboundPayload;
import org.jtarget.rdma.MemoryRegion;
import org.jtarget.rdma.WorkCompletionStatus;
import org.jtarget.rdma.WorkRequestOpcode;

/**
 * The responder side of a connection (the RDMAP operations the peer asks for), on the event loop:
 * executes messages in arrival order. A SEND consumes the oldest receive (none posted: DDP "no
 * buffer" TERMINATE, iWARP has no RNR); an RDMA WRITE segment is placed into its region; a READ
 * request is answered from its region, its response cut into segments. Accesses to store endpoints
 * go to {@link StoreAccess}, which holds later messages back until each access is done, so a READ
 * is answered only after every earlier WRITE reached the store. Any failure sends a TERMINATE with
 * the layer, error type and code of RFC 5040 7.2 and ends the connection.
 */
final class Responder {

    /** READ requests this side takes at once (its IRD in the MPA exchange). */
    static final int IRD = 64;

    private final TcpConnection connection;
    private final FrameOutput output;
    private final TaggedPlacement placement;
    private final StoreAccess store;
    private final ByteBufAllocator alloc;
    private final InboundPayload sendCopy = this::copySend;
    /** Next MSN expected on untagged queues 0 (SEND) and 1 (READ request). */
    private int sendMsn = 1;
    private int readMsn = 1;
    /** A SEND of several segments being gathered (null between messages). */
    private ByteBuf sendMessage;
    private ByteBuf sendPayload;
    /** The RDMA WRITE segment being placed. */
    private boolean writeToStore;
    private int writeLength;
    /** READ responses written but not yet handed to TCP (the IRD counts them). */
    private int readsInProgress;
    private final Runnable readSent = () -> readsInProgress--;

    Responder(TcpConnection connection, FrameOutput output, TaggedPlacement placement, ByteBufAllocator alloc) {
        this.connection = connection;
        this.output = output;
        this.placement = placement;
        this.alloc = alloc;
        this.store = new StoreAccess(connection, this, placement);
    }

    /** Whether no further segment can be taken now (a store access runs). */
    boolean blocked() {
        return store.busy();
    }

    // ---- SEND ----------------------------------------------------------------------------------------

    /** A segment of a SEND message (untagged queue 0); consumes {@code payload}. */
    void send(ByteBuf header, ByteBuf payload) {
        int msn = header.getInt(Iwarp.MSN_OFFSET);
        int mo = header.getInt(Iwarp.MO_OFFSET);
        boolean last = (header.getUnsignedByte(0) & Iwarp.DDP_LAST) != 0;
        int gathered = sendMessage == null ? 0 : sendMessage.readableBytes();
        if (msn != sendMsn) {
            payload.release();
            terminate(TerminateCode.DDP_MSN_RANGE, "SEND MSN " + msn + ", expected " + sendMsn);
            return;
        }
        if (mo != gathered) {
            payload.release();
            terminate(TerminateCode.DDP_INVALID_MO, "SEND offset " + mo + ", expected " + gathered);
            return;
        }
        if (gathered + (long) payload.readableBytes() > connection.maxMessageSize()) {
            payload.release();
            terminate(TerminateCode.DDP_TOO_LONG, "SEND longer than the largest message");
            return;
        }
        if (!last) {
            if (sendMessage == null) {
                sendMessage = alloc.directBuffer(payload.readableBytes() * 2);
            }
            sendMessage.writeBytes(payload);
            payload.release();
            return;
        }
        ByteBuf whole = payload;
        if (sendMessage != null) {
            sendMessage.writeBytes(payload);
            payload.release();
            whole = sendMessage;
            sendMessage = null;
        }
        sendMsn++;
        deliver(header, whole);
    }

    private void deliver(ByteBuf header, ByteBuf message) {
        int opcode = header.getUnsignedByte(1) & Iwarp.OPCODE_MASK;
        boolean invalidate = opcode == Iwarp.SEND_INVALIDATE || opcode == Iwarp.SEND_SOLICITED_INVALIDATE;
        boolean solicited = opcode == Iwarp.SEND_SOLICITED || opcode == Iwarp.SEND_SOLICITED_INVALIDATE;
        int length = message.readableBytes();
        sendPayload = message;
        WorkCompletionStatus st;
        try {
            st = connection.qp().receive(sendCopy, length,
                    invalidate ? WorkRequestOpcode.SEND_WITH_INV : WorkRequestOpcode.SEND, 0,
                    invalidate ? header.getInt(Iwarp.INVALIDATE_STAG_OFFSET) : 0, solicited);
        } finally {
            sendPayload = null;
            message.release();
        }
        switch (st) {
            case SUCCESS -> { }
            case RNR_RETRY_EXC_ERR -> terminate(TerminateCode.DDP_NO_BUFFER, "SEND without a receive posted");
            case REM_INV_REQ_ERR -> terminate(TerminateCode.DDP_TOO_LONG, "SEND longer than its receive");
            case REM_OP_ERR -> terminate(invalidate ? TerminateCode.RDMAP_INVALID_STAG
                    : TerminateCode.RDMAP_CATASTROPHIC_LOCAL, "receive failed");
            default -> terminate(TerminateCode.RDMAP_CATASTROPHIC_LOCAL, "queue pair not ready");
        }
    }

    private void copySend(long payloadOffset, MemoryRegion dst, long dstOffset, int length) {
        Placement.copy(sendPayload, sendPayload.readerIndex() + (int) payloadOffset, length, dst, dstOffset);
    }

    // ---- RDMA WRITE and READ request -----------------------------------------------------------------

    /** An RDMA WRITE segment starts: true to place its payload (into its region or a store's buffer). */
    boolean beginWrite(ByteBuf header, int payloadLength) {
        int stag = header.getInt(Iwarp.STAG_OFFSET);
        long to = header.getLong(Iwarp.TO_OFFSET);
        MemoryRegion mr = connection.qp().remote(stag, to, payloadLength, AccessFlag.REMOTE_WRITE);
        if (mr == null) {
            terminate(connection.qp().knowsStag(stag) ? TerminateCode.DDP_BASE_BOUNDS : TerminateCode.DDP_INVALID_STAG,
                    "WRITE to STag " + Integer.toHexString(stag));
            return false;
        }
        if (mr.remoteAccessHandler() != null) {
            writeToStore = store.beginWrite(mr, to, payloadLength);
        } else {
            placement.intoRegion(mr, mr.offsetOf(to, payloadLength));
        }
        writeLength = payloadLength;
        return true;
    }

    /** The WRITE segment is placed (or gathered for the store, which now writes it). */
    void endWrite() {
        if (writeToStore) {
            writeToStore = false;
            store.startWrite(writeLength);
            return;
        }
        placement.releaseRegion();
    }

    /**
     * Whether {@code msn} is the next one expected on untagged queue {@code queue} (0 or 1); if so,
     * it is taken. For the peer's RTR (RFC 6581), a message that reaches no receive and no region.
     */
    boolean takeMsn(int queue, int msn) {
        return queue == Iwarp.QUEUE_SEND ? msn == sendMsn++ : msn == readMsn++;
    }

    /** A READ request (untagged queue 1): answered from the region, or by the store endpoint behind it. */
    void readRequest(ByteBuf header, ByteBuf payload) {
        int msn = header.getInt(Iwarp.MSN_OFFSET);
        try {
            if (msn != readMsn || header.getInt(Iwarp.MO_OFFSET) != 0
                    || (header.getUnsignedByte(0) & Iwarp.DDP_LAST) == 0) {
                terminate(TerminateCode.DDP_MSN_RANGE, "READ request MSN " + msn + ", expected " + readMsn);
                return;
            }
            if (payload.readableBytes() != Iwarp.READ_REQUEST_PAYLOAD) {
                terminate(TerminateCode.DDP_TOO_LONG, "READ request of " + payload.readableBytes() + " bytes");
                return;
            }
            readMsn++;
            if (readsInProgress >= IRD) {
                terminate(TerminateCode.MPA_INSUFFICIENT_IRD, "more than " + IRD + " READs outstanding");
                return;
            }
            int i = payload.readerIndex();
            read(payload.getInt(i), payload.getLong(i + 4), payload.getInt(i + 12), payload.getInt(i + 16),
                    payload.getLong(i + 20));
        } finally {
            payload.release();
        }
    }

    private void read(int sinkStag, long sinkTo, int length, int sourceStag, long sourceTo) {
        if (length < 0 || length > connection.maxMessageSize()) {
            terminate(TerminateCode.RDMAP_BASE_BOUNDS, "READ length " + length);
            return;
        }
        MemoryRegion mr = connection.qp().remote(sourceStag, sourceTo, length, AccessFlag.REMOTE_READ);
        if (mr == null) {
            terminate(connection.qp().knowsStag(sourceStag) ? TerminateCode.RDMAP_BASE_BOUNDS
                    : TerminateCode.RDMAP_INVALID_STAG, "READ from STag " + Integer.toHexString(sourceStag));
            return;
        }
        readsInProgress++;
        if (mr.remoteAccessHandler() != null) {
            store.read(mr, mr.offsetOf(sourceTo, length), length, sinkStag, sinkTo);
            return;
        }
        respondRead(sinkStag, sinkTo, Placement.view(mr, mr.offsetOf(sourceTo, length), length), mr);
    }

    /**
     * Sends {@code data} (taken) as the READ response to sink {@code sinkStag}/{@code sinkTo}, cut
     * into segments; {@code mr} (the region {@code data} is a view of, or null) is released once
     * TCP has the last one.
     */
    void respondRead(int sinkStag, long sinkTo, ByteBuf data, MemoryRegion mr) {
        int length = data.readableBytes();
        int done = 0;
        do {
            int n = Math.min(FrameOutput.MAX_SEGMENT_PAYLOAD, length - done);
            boolean last = done + n == length;
            ByteBuf part = n == 0 ? null : data.retainedSlice(data.readerIndex() + done, n);
            if (last) {
                output.respondTagged(Iwarp.READ_RESPONSE, true, sinkStag, sinkTo + done, part, mr, readSent);
            } else {
                output.respondTagged(Iwarp.READ_RESPONSE, false, sinkStag, sinkTo + done, part);
            }
            done += n;
        } while (done < length);
        data.release();
    }

    // ---- TERMINATE -----------------------------------------------------------------------------------

    /** Flushes the responses written so far. */
    void flushResponses() {
        output.flush();
    }

    /** This side refuses the stream: TERMINATE (queue 2) with {@code code}, then the connection ends. */
    void terminate(TerminateCode code, String why) {
        connection.terminate(code, why);
    }

    /** Takes segments again after a store access. */
    void resumeDecoding() {
        flushResponses();
        connection.resumeDecoding();
        flushResponses();
    }

    /** The connection is gone: what was gathered or being placed is let go. */
    void release() {
        if (sendMessage != null) {
            sendMessage.release();
            sendMessage = null;
        }
        placement.release();
        writeToStore = false;
        store.release();
    }
}
