package org.jtarget.rdma;

/**
 * A reliable-connected queue pair, after libibverbs {@code ibv_qp} (type IBV_QPT_RC). This class holds
 * everything the verbs define independently of the wire: the state machine (ibv_modify_qp(3)), the
 * send and receive rings, key and access checks, in-order completion, FENCE, barriers, and flushing
 * in ERROR. A provider subclass only moves bytes: it {@link #execute}s send entries and calls back
 * {@link #completeSend}, and as responder calls {@link #deliverReceive}, {@link #deliverWrite} and
 * {@link #acquireRemote}.
 *
 * <p>Ordering rules (IBA 9.5, 10.8.3): send entries start in post order and their completions are
 * reported in post order (RC), even when a provider finishes them out of order (an RDMA READ
 * response arrives after later WRITEs have been placed). A FENCE entry does not start until every
 * prior RDMA READ has completed; a barrier ({@link #postBarrier}) does not start until every prior
 * entry has completed, and nothing after it starts before it. Accesses to handler-backed regions (store
 * endpoints) complete asynchronously and may finish in any order; the provider marks them
 * {@link #deferCompletion deferred}, and a FENCE waits for them as for READs. An entry that fails moves the queue
 * pair to ERROR, after which every outstanding and newly posted request completes WR_FLUSH_ERR.
 *
 * <p>Thread-safety: any thread may post; one private lock guards the rings; entries are executed by
 * one thread at a time, in order; completion events fire with no lock held.
 */
public abstract class QueuePair {

    private final Object lock = new Object();
    private final RdmaDevice device;
    private final ProtectionDomain pd;
    private final QueuePairInitAttributes init;
    private final int qpNum;
    private final SendQueueEntry[] sq;
    private final ReceiveQueueEntry[] rq;
    private long sqHead;
    private long sqNext;
    private long sqTail;
    private long rqHead;
    private long rqTail;
    private int outstandingReads;
    private int outstandingDeferred;
    private boolean draining;
    private boolean stalled;
    private QueuePairState state = QueuePairState.RESET;
    private int accessMask;
    private int rnrRetry = 7;
    private int minRnrTimerMicros = 10;

    protected QueuePair(ProtectionDomain pd, QueuePairInitAttributes init, int qpNum) {
        this.device = pd.device();
        this.pd = pd;
        this.init = init;
        this.qpNum = qpNum;
        this.sq = new SendQueueEntry[init.maxSendWr()];
        for (int i = 0; i < sq.length; i++) {
            sq[i] = new SendQueueEntry(init.maxSendSge());
        }
        this.rq = new ReceiveQueueEntry[init.maxRecvWr()];
        for (int i = 0; i < rq.length; i++) {
            rq[i] = new ReceiveQueueEntry(init.maxRecvSge());
        }
    }

    public int qpNum() {
        return qpNum;
    }

    public ProtectionDomain protectionDomain() {
        return pd;
    }

    public RdmaDevice device() {
        return device;
    }

    public QueuePairInitAttributes initAttributes() {
        return init;
    }

    public QueuePairState state() {
        synchronized (lock) {
            return state;
        }
    }

    /** RNR retries set at RTS (7 = forever). */
    protected int rnrRetry() {
        return rnrRetry;
    }

    /** The RNR back-off set at RTR, in microseconds. */
    protected int minRnrTimerMicros() {
        return minRnrTimerMicros;
    }

    // ---- state machine -------------------------------------------------------------------------

    /**
     * ibv_modify_qp(3): moves to {@code attr.state} if the IBA 10.3.1 state diagram allows it.
     *
     * @throws RdmaException EINVAL for a transition the diagram does not have, or attributes the
     *                       provider refuses (e.g. an unknown peer at RTR)
     */
    public final void modify(QueuePairAttributes attr) throws RdmaException {
        QueuePairState next = attr.state;
        synchronized (lock) {
            if (!state.canMoveTo(next)) {
                throw new RdmaException(Errno.EINVAL, "QP " + qpNum + ": no transition " + state + " -> " + next);
            }
            onModify(state, attr);
            switch (next) {
                case RESET -> reset();
                case INIT -> accessMask = AccessFlag.mask(attr.accessFlags);
                case RTR -> minRnrTimerMicros = attr.minRnrTimerMicros;
                case RTS -> rnrRetry = attr.rnrRetry;
                case ERROR -> { }
            }
            if (next == QueuePairState.ERROR) {
                enterError();
            } else {
                state = next;
            }
        }
        drain();
        fireEvents();
    }

    /** Provider hook, under the lock, before a transition is committed; may refuse it. */
    protected void onModify(QueuePairState from, QueuePairAttributes attr) throws RdmaException {
    }

    /** Provider hook, under the lock, when the queue pair enters ERROR (e.g. tear the connection down). */
    protected void onError() {
    }

    /** Provider hook, without the lock, after a receive was posted (e.g. retry an RNR'd SEND). */
    protected void onReceivePosted() {
    }

    /** Provider hook when destroyed. */
    protected void onDestroy() {
    }

    /** Moves to ERROR from the provider's side (peer gone, malformed stream). */
    protected final void fail() {
        synchronized (lock) {
            if (state != QueuePairState.ERROR) {
                enterError();
            }
        }
        fireEvents();
    }

    private void enterError() {
        state = QueuePairState.ERROR;
        for (long s = sqHead; s < sqTail; s++) {
            SendQueueEntry e = sq[index(s)];
            if (!e.done) {
                e.done = true;
                e.status = WorkCompletionStatus.WR_FLUSH_ERR;
            }
        }
        outstandingReads = 0;
        outstandingDeferred = 0;
        stalled = false;
        retire();
        while (rqHead < rqTail) {
            ReceiveQueueEntry r = rq[index(rqHead, rq.length)];
            completeReceive(r, WorkCompletionStatus.WR_FLUSH_ERR, WorkCompletionOpcode.RECV, 0, 0, 0, 0, false);
        }
        onError();
    }

    private void reset() {
        for (long s = sqHead; s < sqTail; s++) {
            sq[index(s)].releaseRegions();
        }
        for (long s = rqHead; s < rqTail; s++) {
            rq[index(s, rq.length)].releaseRegions();
        }
        sqHead = sqNext = sqTail = 0;
        rqHead = rqTail = 0;
        outstandingReads = 0;
        outstandingDeferred = 0;
        stalled = false;
        accessMask = 0;
    }

    /** ibv_destroy_qp(3): no completions are generated; held regions are released. */
    public final void destroy() {
        synchronized (lock) {
            reset();
            state = QueuePairState.ERROR;
        }
        device.forget(this);
        onDestroy();
    }

    // ---- posting -------------------------------------------------------------------------------

    /**
     * ibv_post_send(3) for one request; the request is copied and may be reused at once.
     *
     * @return {@link Errno#OK}; EINVAL if the queue pair is not in RTS (or ERROR, where the request
     *         completes WR_FLUSH_ERR), the request has too many elements or a bad opcode; ENOMEM if
     *         the send queue is full
     */
    public final int postSend(WorkRequest wr) {
        if (wr.numSge < 0 || wr.numSge > init.maxSendSge() || wr.opcode == null) {
            return Errno.EINVAL;
        }
        synchronized (lock) {
            int rc = sendQueueRoom();
            if (rc != Errno.OK) {
                return rc;
            }
            SendQueueEntry e = sq[index(sqTail)];
            e.fill(sqTail, wr, pd, wr.opcode == WorkRequestOpcode.RDMA_READ, device.attributes().maxMsgSize());
            queued(e);
        }
        return afterPost();
    }

    /**
     * A barrier (jtarget extension, for the ordering points iSER and SRP need): it completes, with a
     * BARRIER completion, once every prior send entry has completed, and nothing posted after it starts
     * before that. A real verbs provider gets the same effect from this class, which holds the
     * later entries back in software.
     *
     * @return as {@link #postSend}
     */
    public final int postBarrier(long wrId) {
        synchronized (lock) {
            int rc = sendQueueRoom();
            if (rc != Errno.OK) {
                return rc;
            }
            SendQueueEntry e = sq[index(sqTail)];
            e.fillBarrier(sqTail, wrId);
            queued(e);
        }
        return afterPost();
    }

    /** Under the lock: OK if a send entry may be added now; EINVAL outside RTS/ERROR, ENOMEM if full. */
    private int sendQueueRoom() {
        if (state != QueuePairState.RTS && state != QueuePairState.ERROR) {
            return Errno.EINVAL;
        }
        return sqTail - sqHead == sq.length ? Errno.ENOMEM : Errno.OK;
    }

    /** Under the lock: the filled entry joins the queue; in ERROR it completes WR_FLUSH_ERR at once. */
    private void queued(SendQueueEntry e) {
        sqTail++;
        if (state == QueuePairState.ERROR) {
            e.done = true;
            e.status = WorkCompletionStatus.WR_FLUSH_ERR;
            retire();
        }
    }

    /** Outside the lock, after a post: run what became runnable and deliver completion events. */
    private int afterPost() {
        drain();
        fireEvents();
        return Errno.OK;
    }

    /**
     * ibv_post_recv(3) for one request.
     *
     * @return {@link Errno#OK}; EINVAL in RESET or with too many elements; ENOMEM if full
     */
    public final int postRecv(WorkRequest wr) {
        synchronized (lock) {
            if (state == QueuePairState.RESET) {
                return Errno.EINVAL;
            }
            if (wr.numSge < 0 || wr.numSge > init.maxRecvSge()) {
                return Errno.EINVAL;
            }
            if (rqTail - rqHead == rq.length) {
                return Errno.ENOMEM;
            }
            ReceiveQueueEntry r = rq[index(rqTail, rq.length)];
            r.fill(wr, pd);
            rqTail++;
            if (state == QueuePairState.ERROR) {
                completeReceive(r, WorkCompletionStatus.WR_FLUSH_ERR, WorkCompletionOpcode.RECV, 0, 0, 0, 0, false);
            }
        }
        fireEvents();
        onReceivePosted();
        return Errno.OK;
    }

    /** Send entries posted and not yet reported complete. */
    public int outstandingSends() {
        synchronized (lock) {
            return (int) (sqTail - sqHead);
        }
    }

    // ---- requester side: executing and completing ------------------------------------------------

    /**
     * Provider: start moving an entry's data. Called in post order by one thread at a time, with no
     * lock held. The provider later (or at once) calls {@link #completeSend}.
     */
    protected abstract void execute(SendQueueEntry e);

    /** Starts every entry that may start now (order, FENCE, barriers, RNR stall). */
    protected final void drain() {
        while (true) {
            SendQueueEntry e;
            synchronized (lock) {
                if (draining || stalled || sqNext >= sqTail || state == QueuePairState.ERROR) {
                    return;
                }
                e = sq[index(sqNext)];
                if (e.barrier) {
                    if (sqHead != sqNext) {
                        return; // IBA has no barrier; ours waits for every prior completion
                    }
                    sqNext++;
                    finish(e, WorkCompletionStatus.SUCCESS, 0);
                    continue;
                }
                if ((e.sendFlags & SendFlags.FENCE) != 0 && (outstandingReads > 0 || outstandingDeferred > 0)) {
                    // IBA 10.8.3.3: a fenced request waits for prior RDMA READs; here also for prior
                    // store-endpoint accesses, which may complete out of order.
                    return;
                }
                sqNext++;
                if (e.localStatus != WorkCompletionStatus.SUCCESS) {
                    finish(e, e.localStatus, 0);
                    continue;
                }
                if (e.opcode == WorkRequestOpcode.RDMA_READ) {
                    outstandingReads++;
                }
                draining = true;
            }
            try {
                execute(e);
            } finally {
                synchronized (lock) {
                    draining = false;
                }
            }
        }
    }

    /**
     * Provider: the entry numbered {@code seq} finished. Late calls for entries already flushed are
     * ignored. A failure moves the queue pair to ERROR.
     */
    protected final void completeSend(long seq, WorkCompletionStatus status, int byteLen) {
        synchronized (lock) {
            if (seq < sqHead || seq >= sqNext) {
                return;
            }
            SendQueueEntry e = sq[index(seq)];
            if (e.seq != seq || e.done) {
                return;
            }
            finish(e, status, byteLen);
        }
        drain();
        fireEvents();
    }

    /**
     * Provider: the transport gave up (connection lost): the oldest started entry completes with
     * {@code status} (RETRY_EXC_ERR in IBA 10.7.3.1 terms) and everything else is flushed; with
     * nothing started the queue pair just moves to ERROR.
     */
    protected final void failOldest(WorkCompletionStatus status) {
        long seq = -1;
        synchronized (lock) {
            for (long s = sqHead; s < sqNext; s++) {
                if (!sq[index(s)].done) {
                    seq = s;
                    break;
                }
            }
        }
        if (seq >= 0) {
            completeSend(seq, status, 0);
        }
        fail();
    }

    /** Provider: hold back later entries (RNR back-off: RC retransmits from the refused message). */
    protected final void stall() {
        synchronized (lock) {
            stalled = true;
        }
    }

    /** Provider: let later entries start again. */
    protected final void unstall() {
        synchronized (lock) {
            stalled = false;
        }
        drain();
    }

    /**
     * Provider: the started entry {@code seq} completes asynchronously, in any order (an access to a
     * handler-backed region); later FENCEd entries wait for it. Call before handing the access off.
     */
    protected final void deferCompletion(long seq) {
        synchronized (lock) {
            if (seq < sqHead || seq >= sqNext) {
                return;
            }
            SendQueueEntry e = sq[index(seq)];
            if (e.seq == seq && !e.done && !e.deferred) {
                e.deferred = true;
                outstandingDeferred++;
            }
        }
    }

    private void finish(SendQueueEntry e, WorkCompletionStatus status, int byteLen) {
        if (e.deferred && outstandingDeferred > 0) {
            outstandingDeferred--;
        }
        e.deferred = false;
        e.done = true;
        e.status = status;
        e.byteLen = byteLen;
        if (e.opcode == WorkRequestOpcode.RDMA_READ && outstandingReads > 0) {
            outstandingReads--;
        }
        if (status != WorkCompletionStatus.SUCCESS && state != QueuePairState.ERROR) {
            enterError();
        }
        retire();
    }

    /** Reports done entries from the head, in post order (RC completes in order, IBA 10.8.3). */
    private void retire() {
        while (sqHead < sqTail) {
            SendQueueEntry e = sq[index(sqHead)];
            if (!e.done) {
                break;
            }
            if ((e.sendFlags & SendFlags.SIGNALED) != 0 || e.status != WorkCompletionStatus.SUCCESS) {
                WorkCompletionOpcode op = e.barrier ? WorkCompletionOpcode.BARRIER : WorkCompletionOpcode.of(e.opcode);
                init.sendCq().add(e.wrId, e.status, op, e.byteLen, qpNum, 0, 0, 0, false);
            }
            e.releaseRegions();
            sqHead++;
        }
        if (sqNext < sqHead) {
            sqNext = sqHead;
        }
    }

    // ---- responder side --------------------------------------------------------------------------

    /**
     * Provider, responder: an inbound SEND (or the receive-consuming part of RDMA_WRITE_WITH_IMM,
     * with {@code payload} null). Scatters the payload into the oldest receive and completes it.
     *
     * @return what the requester sees: SUCCESS; RNR_RETRY_EXC_ERR when no receive is posted (an RNR
     *         NAK: the requester retries); REM_INV_REQ_ERR when the receive is too small
     *         (the receive completes LOC_LEN_ERR); REM_OP_ERR for a bad receive or invalidation;
     *         RETRY_EXC_ERR when this queue pair is not ready to receive (nothing acknowledges)
     */
    protected final WorkCompletionStatus deliverReceive(InboundPayload payload, int length, WorkRequestOpcode op,
                                                        int immData, int invalidateRkey, boolean solicited) {
        WorkCompletionStatus result;
        synchronized (lock) {
            result = deliverReceiveLocked(payload, length, op, immData, invalidateRkey, solicited);
        }
        fireEvents();
        return result;
    }

    private WorkCompletionStatus deliverReceiveLocked(InboundPayload payload, int length, WorkRequestOpcode op,
                                                      int immData, int invalidateRkey, boolean solicited) {
        if (state != QueuePairState.RTR && state != QueuePairState.RTS) {
            return WorkCompletionStatus.RETRY_EXC_ERR;
        }
        if (rqHead == rqTail) {
            return WorkCompletionStatus.RNR_RETRY_EXC_ERR;
        }
        ReceiveQueueEntry r = rq[index(rqHead, rq.length)];
        WorkCompletionOpcode wcOp = payload == null ? WorkCompletionOpcode.RECV_RDMA_WITH_IMM : WorkCompletionOpcode.RECV;
        if (r.localStatus != WorkCompletionStatus.SUCCESS) {
            completeReceive(r, r.localStatus, wcOp, 0, 0, 0, 0, false);
            enterError();
            return WorkCompletionStatus.REM_OP_ERR;
        }
        if (payload != null && length > r.totalLength) {
            // IBA 9.9.3: a message longer than the receive is a local length error at the responder
            // and an invalid request NAK for the requester.
            completeReceive(r, WorkCompletionStatus.LOC_LEN_ERR, wcOp, 0, 0, 0, 0, false);
            enterError();
            return WorkCompletionStatus.REM_INV_REQ_ERR;
        }
        int flags = 0;
        if (op == WorkRequestOpcode.SEND_WITH_INV) {
            MemoryRegion target = device.lookupRegion(invalidateRkey, true);
            if (target == null || target.protectionDomain() != pd) {
                completeReceive(r, WorkCompletionStatus.LOC_PROT_ERR, wcOp, 0, 0, 0, 0, false);
                enterError();
                return WorkCompletionStatus.REM_OP_ERR;
            }
            target.invalidate();
            flags = WorkCompletion.WITH_INV;
        }
        if (op == WorkRequestOpcode.SEND_WITH_IMM || op == WorkRequestOpcode.RDMA_WRITE_WITH_IMM) {
            flags |= WorkCompletion.WITH_IMM;
        }
        if (payload != null) {
            r.scatter(payload, length);
        }
        completeReceive(r, WorkCompletionStatus.SUCCESS, wcOp, length, flags, immData, invalidateRkey, solicited);
        return WorkCompletionStatus.SUCCESS;
    }

    private void completeReceive(ReceiveQueueEntry r, WorkCompletionStatus status, WorkCompletionOpcode op, int byteLen,
                                 int flags, int immData, int invRkey, boolean solicited) {
        init.recvCq().add(r.wrId, status, op, byteLen, qpNum, flags, immData, invRkey, solicited);
        r.releaseRegions();
        rqHead++;
    }

    /** Whether a receive is posted (a WRITE_WITH_IMM checks before it places data). */
    protected final boolean hasReceive() {
        synchronized (lock) {
            return rqHead < rqTail;
        }
    }

    /**
     * Provider, responder: checks a peer's access to {@code [address, address+length)} under
     * {@code rkey} (IBA 10.6.3.2: the rkey must be valid, of this queue pair's PD, not
     * invalidated, the range inside the region, and both region and queue pair must grant
     * {@code needed}). On success the region is held: copy, then {@link MemoryRegion#release()}.
     * On a violation this queue pair moves to ERROR and null is returned: the requester completes
     * REM_ACCESS_ERR.
     */
    protected final MemoryRegion acquireRemote(int rkey, long address, long length, AccessFlag needed) {
        return acquireRemote(rkey, address, length, needed, false);
    }

    /**
     * As {@link #acquireRemote(int, long, long, AccessFlag)}, for a provider that serves handler-backed
     * regions: such a region is accepted when its handler {@link RemoteAccessHandler#permits permits}
     * the access (otherwise it is refused like any violation). The caller checks
     * {@link MemoryRegion#remoteAccessHandler()} and hands the access over instead of copying.
     */
    protected final MemoryRegion acquireRemoteAccess(int rkey, long address, long length, AccessFlag needed) {
        return acquireRemote(rkey, address, length, needed, true);
    }

    private MemoryRegion acquireRemote(int rkey, long address, long length, AccessFlag needed, boolean handlers) {
        MemoryRegion mr = device.lookupRegion(rkey, true);
        RemoteAccessHandler handler = mr == null ? null : mr.remoteAccessHandler();
        boolean permitted = handler == null || handlers && mr.offsetOf(address, length) >= 0
                && handler.permits(this, mr.offsetOf(address, length), length, needed == AccessFlag.REMOTE_WRITE);
        boolean ok;
        synchronized (lock) {
            ok = permitted && (state == QueuePairState.RTR || state == QueuePairState.RTS)
                    && (accessMask & needed.bit()) != 0
                    && mr != null && mr.protectionDomain() == pd && mr.allows(needed) && !mr.isInvalidated()
                    && mr.offsetOf(address, length) >= 0 && mr.acquire();
            if (!ok && state != QueuePairState.ERROR) {
                enterError();
            }
        }
        if (!ok) {
            fireEvents();
            return null;
        }
        return mr;
    }

    /**
     * Provider, responder: an inbound RDMA WRITE (with immediate: consumes a receive after placing).
     *
     * @return SUCCESS, REM_ACCESS_ERR, or as {@link #deliverReceive} for the immediate
     */
    protected final WorkCompletionStatus deliverWrite(InboundPayload payload, long address, int rkey, int length,
                                                      boolean withImm, int immData) {
        if (withImm && !hasReceive()) {
            return state() == QueuePairState.ERROR ? WorkCompletionStatus.RETRY_EXC_ERR
                    : WorkCompletionStatus.RNR_RETRY_EXC_ERR;
        }
        MemoryRegion mr = acquireRemote(rkey, address, length, AccessFlag.REMOTE_WRITE);
        if (mr == null) {
            return WorkCompletionStatus.REM_ACCESS_ERR;
        }
        try {
            payload.copyTo(0, mr, mr.offsetOf(address, length), length);
        } finally {
            mr.release();
        }
        if (withImm) {
            return deliverReceive(null, length, WorkRequestOpcode.RDMA_WRITE_WITH_IMM, immData, 0, false);
        }
        return WorkCompletionStatus.SUCCESS;
    }

    private void fireEvents() {
        init.sendCq().fireEvent();
        if (init.recvCq() != init.sendCq()) {
            init.recvCq().fireEvent();
        }
    }

    private int index(long seq) {
        return (int) (seq % sq.length);
    }

    private static int index(long seq, int length) {
        return (int) (seq % length);
    }
}
