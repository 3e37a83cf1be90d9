package org.jtarget.fabric.iscsi.spi;

import io.netty.buffer.ByteBufAllocator;
import io.netty.util.concurrent.EventExecutor;
import org.jtarget.fabric.iscsi.login.NegotiatedParameters;
import org.jtarget.fabric.iscsi.pdu.IscsiPdu;

import java.net.SocketAddress;

/**
 * What the iSCSI protocol engine of one connection (login, negotiation, session, CmdSN window,
 * tasks, task management, NOP, logout) needs from the transport under it, and nothing more: iSCSI
 * over TCP (RFC 7143) moves data in R2T / Data-Out / Data-In PDUs, iSER (RFC 7145) moves it with
 * RDMA READ and WRITE, and both carry the same engine. The transport calls the engine back
 * through {@link IscsiEngine}.
 *
 * <p>Threading: the engine calls {@link #send}, {@link #requestDataOut} and {@link #sendDataIn}
 * from its session's loop, which may not be {@link #executor()}: the transport hands work over
 * to its own thread as needed. Every call on the I/O path is allocation-free.
 *
 * <p>Buffer ownership: a PDU given to a {@code send} method is consumed (the transport releases
 * it once written or when the connection is gone); a task's data is borrowed (the engine releases
 * it when the task ends, after the transport's calls return).
 */
public interface IscsiTransport {

    /** The allocator for PDUs and payloads of this connection. */
    ByteBufAllocator alloc();

    /**
     * The allocator for the SCSI data buffers of this connection's commands (Data-In a store
     * reads into): by default {@link #alloc()}; an RDMA transport gives memory it can post from
     * without a copy.
     */
    default ByteBufAllocator dataAlloc() {
        return alloc();
    }

    /** The transport's own event loop; a new session's state is owned by it. */
    EventExecutor executor();

    /** True while the connection is up. */
    boolean isActive();

    /** The local address (the portal the initiator reached), or null if unknown. */
    SocketAddress localAddress();

    /** The initiator's address, for logs. */
    SocketAddress remoteAddress();

    /** Queues a PDU without flushing (consumes it). */
    void send(IscsiPdu pdu);

    /** Queues a PDU and flushes everything queued (consumes it). */
    void sendAndFlush(IscsiPdu pdu);

    /** Flushes what {@link #send} queued. */
    void flush();

    /** Sends a last PDU, then closes the connection once it is written (consumes it). */
    void sendAndClose(IscsiPdu pdu);

    /** Closes the connection; the engine hears {@link IscsiEngine#transportInactive()}. */
    void close();

    /**
     * Back-pressure: stops (false) or resumes (true) delivering received PDUs, e.g. while the
     * initiator does not drain the target's output (DESIGN 4.4).
     */
    void reading(boolean on);

    /** True while output can be queued without exceeding the transport's buffering limit. */
    boolean isWritable();

    /**
     * The login is over: the final Login Response has been sent with the pre-login framing, and
     * from the next PDU on the negotiated framing holds (digests, MaxRecvDataSegmentLength).
     * Called on {@link #executor()}.
     */
    void loginComplete(NegotiatedParameters parameters);

    /**
     * Obtains the solicited Data-Out of a task, {@link TaskTransfer#requested()} up to
     * {@link TaskTransfer#wanted()}, counting each request in {@link TaskTransfer#outstanding()}:
     * TCP sends R2Ts while fewer than MaxOutstandingR2T are outstanding, and the Data-Out PDUs
     * come back through {@link IscsiEngine#received}; a transport that fetches the data itself
     * (iSER: RDMA READ from the initiator's buffer) hands it over with
     * {@link IscsiEngine#dataOutFetched}. Called again as requests complete, until the data is in.
     */
    void requestDataOut(TaskTransfer task);

    /**
     * Sends a task's Data-In: the first min(EDTL, data length) bytes of its command's data
     * (borrowed: the transport retains what it keeps). With {@code statusAllowed} (GOOD or
     * CONDITION MET) a transport may carry the status with the data (TCP: the S bit of the last
     * Data-In, after {@link TaskTransfer#statusSent()}, then a flush).
     *
     * @return true if the status went with the data; false if the engine must send a SCSI
     *         Response (always for iSER, whose RDMA WRITE carries no status)
     */
    boolean sendDataIn(TaskTransfer task, boolean statusAllowed);

    /**
     * The task has ended (its response sent, or aborted): nothing of it will move any more.
     * iSER forgets the initiator's buffers recorded for its Initiator Task Tag, which the
     * initiator may reuse from now on. Session loop.
     */
    default void taskEnded(TaskTransfer task) {
    }

    /**
     * True if this transport moves data by RDMA (iSER, RFC 7145): the login then offers and
     * accepts RFC 7145's keys (RDMAExtensions, InitiatorRecvDataSegmentLength,
     * TargetRecvDataSegmentLength, MaxOutstandingUnexpectedPDUs); over TCP they are unknown keys.
     */
    boolean rdmaExtensions();

    /**
     * The largest data segment one PDU from the target can carry on this transport, whatever the
     * initiator would take: a byte stream has no limit of its own; iSER sends each PDU from one
     * registered send buffer of a fixed size. Text answers longer than this go in parts (C bit).
     */
    default int maxSendDataSegmentLength() {
        return Integer.MAX_VALUE;
    }
}
