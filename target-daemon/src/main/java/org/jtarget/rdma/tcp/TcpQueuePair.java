package org.jtarget.rdma.tcp;

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
 * A queue pair of the tcp provider: bound to one {@link TcpConnection} by the connection manager.
 * As requester it numbers its requests (MSN) and completes them on ACK (SEND, WRITE), on the READ
 * RESPONSE (READ) or on NAK; as responder the connection calls the checked placement methods of
 * {@link QueuePair}. Any error tears the connection down (iWARP terminates the stream likewise).
 */
final class TcpQueuePair extends QueuePair {

    private final SendQueueEntry[] byMsn;
    private final long[] seqByMsn;
    private volatile TcpConnection connection;
    /** Next MSN to send; written by the executing thread. */
    private volatile int nextMsn;
    /** Next MSN not yet acknowledged; event loop only. */
    private int ackedMsn;

    TcpQueuePair(TcpDevice device, ProtectionDomain pd, QueuePairInitAttributes init, int qpNum) {
        super(pd, init, qpNum);
        byMsn = new SendQueueEntry[init.maxSendWr()];
        seqByMsn = new long[init.maxSendWr()];
    }

    void bind(TcpConnection c) {
        connection = c;
    }

    int requesterRnrRetry() {
        return rnrRetry();
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
        int msn = nextMsn;
        int slot = Math.floorMod(msn, byMsn.length);
        byMsn[slot] = e;
        seqByMsn[slot] = e.seq();
        nextMsn = msn + 1;
        c.sendRequest(e, msn);
    }

    @Override
    protected void onError() {
        TcpConnection c = connection;
        if (c != null) {
            c.closeLater();
        }
    }

    @Override
    protected void onReceivePosted() {
        TcpConnection c = connection;
        if (c != null) {
            c.receivePosted();
        }
    }

    @Override
    protected void onDestroy() {
        onError();
    }

    // ---- requester, on the event loop ------------------------------------------------------------

    /** Whether {@code msn} names a request that was sent. */
    boolean sent(int msn) {
        return msn - nextMsn < 0 && msn - (nextMsn - byMsn.length) >= 0;
    }

    /** ACK: every request up to {@code msn} was executed; completes all but READs (they wait for data). */
    void acknowledged(int msn) {
        while (msn - ackedMsn >= 0) {
            int slot = Math.floorMod(ackedMsn, byMsn.length);
            SendQueueEntry e = byMsn[slot];
            if (e != null && e.seq() == seqByMsn[slot] && e.opcode() != WorkRequestOpcode.RDMA_READ) {
                completeSend(seqByMsn[slot], WorkCompletionStatus.SUCCESS, (int) e.totalLength());
            }
            ackedMsn++;
        }
    }

    /** The READ entry waiting for the response to {@code msn}, or null if there is none. */
    SendQueueEntry readEntry(int msn) {
        if (!sent(msn)) {
            return null;
        }
        int slot = Math.floorMod(msn, byMsn.length);
        SendQueueEntry e = byMsn[slot];
        if (e == null || e.seq() != seqByMsn[slot] || e.opcode() != WorkRequestOpcode.RDMA_READ) {
            return null;
        }
        return e;
    }

    void readCompleted(int msn, SendQueueEntry e, int length) {
        acknowledged(msn - 1);
        completeSend(seqByMsn[Math.floorMod(msn, byMsn.length)], WorkCompletionStatus.SUCCESS, length);
        if (ackedMsn - msn <= 0) {
            ackedMsn = msn + 1;
        }
    }

    void nak(int msn, WorkCompletionStatus status) {
        acknowledged(msn - 1);
        completeSend(seqByMsn[Math.floorMod(msn, byMsn.length)], status, 0);
        fail();
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

    /** A checked remote access; handler-backed regions (store endpoints) included. */
    MemoryRegion remote(int rkey, long address, long length, AccessFlag needed) {
        return acquireRemoteAccess(rkey, address, length, needed);
    }

    void responderFailed() {
        fail();
    }
}
