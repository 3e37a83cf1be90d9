package org.jtarget.rdma.tcp;

import io.netty.buffer.ByteBuf;
import org.jtarget.rdma.AccessFlag;
import org.jtarget.rdma.InboundPayload;
import org.jtarget.rdma.MemoryRegion;
import org.jtarget.rdma.WorkCompletionStatus;
import org.jtarget.rdma.WorkRequestOpcode;

import java.util.concurrent.TimeUnit;

/**
 * The responder side of a connection (the RDMAP operations the peer asks for), on the event loop:
 * executes requests strictly in MSN order (a SEND consumes a receive, or waits for one as for RNR;
 * an RDMA WRITE is placed into its region; a READ REQUEST is answered from its region), hands
 * accesses to store endpoints to {@link StoreAccess}, acknowledges executed requests once per read
 * burst and refuses a failed one with a NAK that ends the connection.
 */
final class Responder {

    /** The RNR back-off per retry the responder applies on the requester's behalf. */
    private static final long RNR_TIMER_MICROS = 1000;
    /** Acknowledge at least every this many placed bytes (see {@link #acknowledge}). */
    private static final int ACK_EVERY_BYTES = 256 * 1024;

    private final TcpConnection connection;
    private final FrameOutput output;
    private final TaggedPlacement placement;
    private final StoreAccess store;
    private final Runnable retryHeld = this::retryHeld;
    private final InboundPayload heldCopy = this::copyHeld;
    private int peerRnrRetry = 7;
    private int expectedMsn;
    // executed, not yet acknowledged
    private boolean ackPending;
    private int ackMsn;
    private int unackedBytes;
    /** A SEND (payload) or WRITE with immediate (no payload) waiting for a receive. */
    private ByteBuf heldPayload;
    private int heldMsn;
    private int heldFlags;
    private int heldImm;
    private int heldInv;
    private int heldLength;
    private volatile boolean holding;
    private long holdGeneration;
    /** The RDMA WRITE being placed. */
    private int writeMsn;
    private int writeFlags;
    private int writeImm;
    private int writeLength;
    private boolean writeToStore;

    Responder(TcpConnection connection, FrameOutput output, TaggedPlacement placement) {
        this.connection = connection;
        this.output = output;
        this.placement = placement;
        this.store = new StoreAccess(connection, this, output, placement);
    }

    /** How often the requester lets a SEND wait for a receive (its rnr_retry; 7 = forever). */
    void peerRnrRetry(int retry) {
        peerRnrRetry = retry;
    }

    /** Whether request {@code msn} may be executed: the connection is up and it is the next one. */
    private boolean inOrder(int msn) {
        if (!connection.dataFrameAllowed()) {
            return false;
        }
        if (msn != expectedMsn) {
            connection.malformed("MSN " + msn + ", expected " + expectedMsn);
            return false;
        }
        expectedMsn++;
        return true;
    }

    /** Whether no further request can be taken now (a SEND waits for a receive, a store access runs). */
    boolean blocked() {
        return holding || store.busy();
    }

    // ---- SEND and WRITE with immediate: receives ---------------------------------------------------

    /** An inbound SEND; true if it keeps {@code payload} (waiting for a receive). */
    boolean send(int flags, int msn, ByteBuf header, ByteBuf payload) {
        if (!inOrder(msn)) {
            return false;
        }
        heldMsn = msn;
        heldFlags = flags;
        heldImm = header.readInt();
        heldInv = header.readInt();
        heldLength = payload.readableBytes();
        heldPayload = payload;
        if (deliverHeld()) {
            heldPayload = null;
            return false;
        }
        return true; // RNR: keep the payload until a receive is posted
    }

    /** Tries to deliver the held SEND (or WRITE immediate); true when it is done (delivered or failed). */
    private boolean deliverHeld() {
        WorkRequestOpcode op = (heldFlags & TcpRdmaFrame.FLAG_WITH_INV) != 0 ? WorkRequestOpcode.SEND_WITH_INV
                : heldPayload == null ? WorkRequestOpcode.RDMA_WRITE_WITH_IMM
                : (heldFlags & TcpRdmaFrame.FLAG_WITH_IMM) != 0 ? WorkRequestOpcode.SEND_WITH_IMM : WorkRequestOpcode.SEND;
        InboundPayload p = heldPayload == null ? null : heldCopy;
        WorkCompletionStatus st = connection.qp().receive(p, heldLength, op, heldImm, heldInv,
                (heldFlags & TcpRdmaFrame.FLAG_SOLICITED) != 0);
        if (st == WorkCompletionStatus.SUCCESS) {
            acknowledge(heldMsn, heldLength);
            return true;
        }
        if (st == WorkCompletionStatus.RNR_RETRY_EXC_ERR && peerRnrRetry != 0) {
            hold();
            return false;
        }
        respondError(heldMsn, st);
        return true;
    }

    private void copyHeld(long payloadOffset, MemoryRegion dst, long dstOffset, int length) {
        Placement.copy(heldPayload, heldPayload.readerIndex() + (int) payloadOffset, length, dst, dstOffset);
    }

    private void hold() {
        holding = true;
        long generation = ++holdGeneration;
        if (peerRnrRetry != 7) {
            // IBA 9.7.5.2.8: the requester gives up after rnr_retry RNR NAKs of min_rnr_timer each
            connection.eventLoop().schedule(() -> rnrTimeout(generation), peerRnrRetry * RNR_TIMER_MICROS,
                    TimeUnit.MICROSECONDS);
        }
    }

    private void rnrTimeout(long generation) {
        if (holding && generation == holdGeneration) {
            holding = false;
            int msn = heldMsn;
            releaseHeld();
            respondError(msn, WorkCompletionStatus.RNR_RETRY_EXC_ERR);
            flushResponses();
        }
    }

    /** The queue pair got a receive (any thread). */
    void receivePosted() {
        if (holding) {
            connection.eventLoop().execute(retryHeld);
        }
    }

    private void retryHeld() {
        if (!holding || !connection.established()) {
            return;
        }
        holding = false;
        if (deliverHeld()) {
            releaseHeld();
            resumeDecoding();
        }
    }

    private void releaseHeld() {
        holding = false;
        if (heldPayload != null) {
            heldPayload.release();
            heldPayload = null;
        }
    }

    // ---- RDMA WRITE and READ REQUEST ---------------------------------------------------------------

    /** An RDMA WRITE starts: true to place its payload (into its region or a store's buffer). */
    boolean beginWrite(int flags, int msn, ByteBuf header, int payloadLength) {
        if (!inOrder(msn)) {
            return false;
        }
        long address = header.readLong();
        int rkey = header.readInt();
        writeImm = header.readInt();
        MemoryRegion mr = connection.qp().remote(rkey, address, payloadLength, AccessFlag.REMOTE_WRITE);
        if (mr == null) {
            respondError(msn, WorkCompletionStatus.REM_ACCESS_ERR);
            return false;
        }
        if (mr.remoteAccessHandler() != null) {
            writeToStore = store.beginWrite(mr, msn, flags, address, payloadLength);
            if (!writeToStore) {
                return false;
            }
        } else {
            placement.intoRegion(mr, mr.offsetOf(address, payloadLength));
        }
        writeMsn = msn;
        writeFlags = flags;
        writeLength = payloadLength;
        return true;
    }

    /** The WRITE's payload is placed: acknowledged, delivered as an immediate, or written to the store. */
    void endWrite() {
        if (writeToStore) {
            writeToStore = false;
            store.startWrite(writeMsn, writeLength);
            return;
        }
        placement.releaseRegion();
        if ((writeFlags & TcpRdmaFrame.FLAG_WITH_IMM) != 0) {
            heldMsn = writeMsn;
            heldFlags = writeFlags;
            heldImm = writeImm;
            heldInv = 0;
            heldLength = writeLength;
            heldPayload = null;
            deliverHeld();
        } else {
            acknowledge(writeMsn, writeLength);
        }
    }

    /** A READ REQUEST: answered from the region, or by the store endpoint behind it. */
    void readRequest(int msn, ByteBuf header) {
        if (!inOrder(msn)) {
            return;
        }
        long address = header.readLong();
        int rkey = header.readInt();
        int length = header.readInt();
        if (length < 0 || length > connection.maxMessageSize()) {
            connection.malformed("READ length " + length);
            return;
        }
        MemoryRegion mr = connection.qp().remote(rkey, address, length, AccessFlag.REMOTE_READ);
        if (mr == null) {
            respondError(msn, WorkCompletionStatus.REM_ACCESS_ERR);
            return;
        }
        if (mr.remoteAccessHandler() != null) {
            store.read(msn, mr, mr.offsetOf(address, length), length);
            return;
        }
        ByteBuf frame = output.header(TcpRdmaFrame.READ_RESPONSE, 0, msn, length);
        if (length > 0) {
            frame = output.withPayload(frame, Placement.view(mr, mr.offsetOf(address, length), length));
        }
        output.respond(frame, mr);
        unackedBytes += length;
        if (unackedBytes >= ACK_EVERY_BYTES) {
            flushResponses();
        }
    }

    // ---- ACK and NAK ---------------------------------------------------------------------------------

    /**
     * Records an executed request. ACKs are coalesced per socket read burst, but not beyond
     * {@link #ACK_EVERY_BYTES}: a requester whose send queue is full waits for them.
     */
    void acknowledge(int msn, int length) {
        ackPending = true;
        ackMsn = msn;
        unackedBytes += length;
        if (unackedBytes >= ACK_EVERY_BYTES) {
            flushResponses();
        }
    }

    /** Sends the pending ACK and flushes the responses written so far. */
    void flushResponses() {
        if (ackPending) {
            ackPending = false;
            unackedBytes = 0;
            output.respond(output.header(TcpRdmaFrame.ACK, 0, ackMsn, 0));
        }
        output.flush();
    }

    /** The responder refused request {@code msn}: NAK it and terminate the connection. */
    void respondError(int msn, WorkCompletionStatus status) {
        connection.beginTerminating(); // before the queue pair's ERROR asks for a close
        flushResponses();
        connection.qp().responderFailed();
        connection.terminateAfter(output.header(TcpRdmaFrame.NAK, 0, msn, 0).writeInt(status.ordinal()));
    }

    /** Takes requests again after one had to wait (for a receive or a store access). */
    void resumeDecoding() {
        flushResponses();
        connection.resumeDecoding();
        flushResponses();
    }

    /** The connection is gone: what was held or being placed is let go. */
    void release() {
        releaseHeld();
        placement.release();
        writeToStore = false;
        store.release();
    }
}
