package org.jtarget.rdma.iwarp;

import org.jtarget.rdma.AccessFlag;
import org.jtarget.rdma.Errno;
import org.jtarget.rdma.InboundPayload;
import org.jtarget.rdma.MemoryRegion;
import org.jtarget.rdma.ProtectionDomain;
import org.jtarget.rdma.QueuePair;
import org.jtarget.rdma.QueuePairAttributes;
import org.jtarget.rdma.QueuePairInitAttributes;
import org.jtarget.rdma.QueuePairState;
import org.jtarget.rdma.RdmaException;
import org.jtarget.rdma.SendQueueEntry;
import org.jtarget.rdma.WorkCompletionStatus;
import org.jtarget.rdma.WorkRequestOpcode;

/**
 * A queue pair of the iWARP provider: bound to one {@link TcpConnection} by the connection manager.
 * As requester it numbers its requests and completes them once TCP has them (SEND, WRITE), on the
 * READ response's last segment (READ) or on the peer's TERMINATE; as responder the connection calls
 * the checked placement methods of {@link QueuePair}. Any error ends the connection with a TERMINATE.
 * Immediate data does not exist in iWARP (RFC 5040): such requests fail with LOC_QP_OP_ERR.
 */
final class TcpQueuePair extends QueuePair {

    private final SendQueueEntry[] byMsn;
    private final long[] seqByMsn;
    private volatile TcpConnection connection;
    /** Next MSN to send; written by the executing thread. */
    private volatile int nextMsn;
    /** Next MSN not yet acknowledged; event loop only. */
    private int ackedMsn;
    /** Guards the ORD accounting: READs outstanding, the limit, a READ waiting for room. */
    private final Object ord = new Object();
    private int readsOutstanding;
    private int ordLimit = 1;
    private SendQueueEntry parkedRead;

    TcpQueuePair(TcpDevice device, ProtectionDomain pd, QueuePairInitAttributes init, int qpNum) {
        super(pd, init, qpNum);
        byMsn = new SendQueueEntry[init.maxSendWr()];
        seqByMsn = new long[init.maxSendWr()];
    }

    void bind(TcpConnection c) {
        connection = c;
    }

    @Override
    protected void onModify(QueuePairState from, QueuePairAttributes attr) throws RdmaException {
        if (attr.state == QueuePairState.RTR && connection == null) {
            throw new RdmaException(Errno.EINVAL, "tcp queue pairs are connected by TcpConnectionManager");
        }
    }

    @Override
    protected void execute(SendQueueEntry e) {
        TcpConnection c = connection;
        if (c == null || !c.isActive()) {
            completeSend(e.seq(), WorkCompletionStatus.RETRY_EXC_ERR, 0);
            return;
        }
        if (e.opcode() == WorkRequestOpcode.SEND_WITH_IMM || e.opcode() == WorkRequestOpcode.RDMA_WRITE_WITH_IMM) {
            // RFC 5040 has no immediate data (RFC 7306's extension is not implemented)
            completeSend(e.seq(), WorkCompletionStatus.LOC_QP_OP_ERR, 0);
            return;
        }
        if (e.opcode() == WorkRequestOpcode.RDMA_READ) {
            synchronized (ord) {
                if (readsOutstanding >= ordLimit) {
                    // the peer takes only its IRD of READs at once (RFC 6581): this one waits for a
                    // response, and the entries behind it wait with it, so the order is kept
                    parkedRead = e;
                    stall();
                    return;
                }
                readsOutstanding++;
            }
        }
        start(c, e);
    }

    private void start(TcpConnection c, SendQueueEntry e) {
        int msn = nextMsn;
        int slot = Math.floorMod(msn, byMsn.length);
        byMsn[slot] = e;
        seqByMsn[slot] = e.seq();
        nextMsn = msn + 1;
        c.sendRequest(e, msn);
    }

    /** The peer's IRD, the most READs this side has outstanding (its ORD), from the MPA exchange. */
    void ordLimit(int peerIrd) {
        synchronized (ord) {
            ordLimit = Math.max(1, peerIrd);
        }
    }

    /** A READ's response arrived: a READ held back by the ORD limit may start now. */
    private void readFinished() {
        SendQueueEntry next;
        synchronized (ord) {
            readsOutstanding--;
            next = parkedRead;
            if (next == null) {
                return;
            }
            parkedRead = null;
            readsOutstanding++;
        }
        TcpConnection c = connection;
        if (c != null && c.isActive()) {
            start(c, next);
        }
        unstall();
    }

    @Override
    protected void onError() {
        TcpConnection c = connection;
        if (c != null) {
            c.closeLater();
        }
    }

    @Override
    protected void onDestroy() {
        onError();
    }

    // ---- requester, on the event loop ------------------------------------------------------------

    /**
     * TCP has every FPDU of the requests up to {@code number}: SENDs and WRITEs among them complete
     * (iWARP has no acknowledgements); READs wait for their response.
     */
    void acknowledged(int number) {
        while (number - ackedMsn >= 0) {
            int slot = Math.floorMod(ackedMsn, byMsn.length);
            SendQueueEntry e = byMsn[slot];
            if (e != null && e.seq() == seqByMsn[slot] && e.opcode() != WorkRequestOpcode.RDMA_READ) {
                completeSend(seqByMsn[slot], WorkCompletionStatus.SUCCESS, (int) e.totalLength());
            }
            ackedMsn++;
        }
    }

    /** The READ entry of request {@code number}, or null if it is not an outstanding READ. */
    SendQueueEntry readEntry(int number) {
        int slot = Math.floorMod(number, byMsn.length);
        SendQueueEntry e = byMsn[slot];
        if (e == null || e.seq() != seqByMsn[slot] || e.opcode() != WorkRequestOpcode.RDMA_READ) {
            return null;
        }
        return e;
    }

    void readCompleted(int number, SendQueueEntry e, int length) {
        completeSend(seqByMsn[Math.floorMod(number, byMsn.length)], WorkCompletionStatus.SUCCESS, length);
        readFinished();
    }

    /** The peer sent a TERMINATE: the oldest unfinished request fails with {@code status}, the rest flush. */
    void terminated(WorkCompletionStatus status) {
        failOldest(status);
    }

    /** The connection is gone: the oldest outstanding request times out, the rest flush. */
    void connectionLost() {
        failOldest(WorkCompletionStatus.RETRY_EXC_ERR);
    }

    // ---- responder, on the event loop ------------------------------------------------------------

    WorkCompletionStatus receive(InboundPayload payload, int length, WorkRequestOpcode op, int imm, int inv,
                                 boolean solicited) {
        return deliverReceive(payload, length, op, imm, inv, solicited);
    }

    /** Whether {@code stag} names a region at all (an access that failed was then out of bounds or not allowed). */
    boolean knowsStag(int stag) {
        return device().lookupRegion(stag, true) != null;
    }

    /** A checked remote access; handler-backed regions (store endpoints) included. */
    MemoryRegion remote(int rkey, long address, long length, AccessFlag needed) {
        return acquireRemoteAccess(rkey, address, length, needed);
    }

    void responderFailed() {
        fail();
    }
}
