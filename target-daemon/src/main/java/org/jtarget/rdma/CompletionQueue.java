package org.jtarget.rdma;

/**
 * A completion queue, after libibverbs {@code ibv_cq}: a ring of pre-allocated completions that
 * queue pairs append to and the consumer drains with {@link #poll} (ibv_poll_cq(3)). Event-driven
 * consumers arm it with {@link #requestNotify} (ibv_req_notify_cq(3)) and get one
 * {@link CompletionChannel#completionEvent} for the next completion. Thread-safe.
 *
 * <p>Overflow is a fatal error of the queue as in the verbs (IBV_EVENT_CQ_ERR): the completion is
 * lost and every later {@link #poll} returns -1; size the queue for all its queue pairs' depths.
 */
public final class CompletionQueue {

    private final WorkCompletion[] ring;
    private final CompletionChannel channel;
    private int head;
    private int count;
    private boolean overflowed;
    private boolean armed;
    private boolean solicitedOnly;
    private boolean eventPending;

    /**
     * @param cqe     capacity in completions
     * @param channel where events go, or {@code null} for a polled-only queue
     */
    public CompletionQueue(int cqe, CompletionChannel channel) {
        if (cqe < 1) {
            throw new IllegalArgumentException("cqe must be positive: " + cqe);
        }
        ring = new WorkCompletion[cqe];
        for (int i = 0; i < cqe; i++) {
            ring[i] = new WorkCompletion();
        }
        this.channel = channel;
    }

    /** The capacity. */
    public int capacity() {
        return ring.length;
    }

    /**
     * Moves up to {@code max} completions, oldest first, into {@code out[0..]}.
     *
     * @return the number moved (0 if none), or -1 once the queue has overflowed
     */
    public synchronized int poll(WorkCompletion[] out, int max) {
        if (overflowed) {
            return -1;
        }
        int n = Math.min(Math.min(max, out.length), count);
        for (int i = 0; i < n; i++) {
            out[i].copyFrom(ring[head]);
            head = (head + 1) % ring.length;
        }
        count -= n;
        return n;
    }

    /** Number of completions waiting. */
    public synchronized int size() {
        return count;
    }

    /**
     * Arms the queue: the next completion (with {@code solicitedOnly}, the next solicited receive or
     * error completion) produces one event. ibv_req_notify_cq(3).
     */
    public void requestNotify(boolean solicitedOnly) {
        synchronized (this) {
            this.armed = true;
            this.solicitedOnly = solicitedOnly;
        }
    }

    /** Appends a completion; the caller fills the returned slot under this queue's lock. */
    synchronized void add(long wrId, WorkCompletionStatus status, WorkCompletionOpcode opcode, int byteLen,
                          int qpNum, int wcFlags, int immData, int invalidatedRkey, boolean solicited) {
        if (count == ring.length) {
            overflowed = true;
            return;
        }
        WorkCompletion wc = ring[(head + count) % ring.length];
        wc.wrId = wrId;
        wc.status = status;
        wc.opcode = opcode;
        wc.byteLen = byteLen;
        wc.qpNum = qpNum;
        wc.wcFlags = wcFlags;
        wc.immData = immData;
        wc.invalidatedRkey = invalidatedRkey;
        wc.solicited = solicited;
        count++;
        if (armed && (!solicitedOnly || solicited || status != WorkCompletionStatus.SUCCESS)) {
            armed = false;
            eventPending = true;
        }
    }

    /** Delivers a pending event, outside every verbs lock (called by queue pairs after they unlock). */
    void fireEvent() {
        boolean fire;
        synchronized (this) {
            fire = eventPending;
            eventPending = false;
        }
        if (fire && channel != null) {
            channel.completionEvent(this);
        }
    }
}
