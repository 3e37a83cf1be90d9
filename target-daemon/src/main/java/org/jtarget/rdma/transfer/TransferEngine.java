package org.jtarget.rdma.transfer;

import org.jtarget.rdma.Errno;
import org.jtarget.rdma.QueuePair;
import org.jtarget.rdma.ScatterGatherElement;
import org.jtarget.rdma.SendFlags;
import org.jtarget.rdma.WorkCompletion;
import org.jtarget.rdma.WorkCompletionStatus;
import org.jtarget.rdma.WorkRequest;

import java.util.ArrayDeque;

/**
 * Turns {@link RdmaTransfer}s into RDMA WRITE/READ work requests on one queue pair ("coalesce and
 * divide", as iSER's and SRP's targets do): each work request carries at most {@code maxSge}
 * elements and {@code maxMessageSize} bytes; contiguous pieces of the same region merge into one
 * element; pieces larger than what is left of a message are split. Work requests are posted until
 * the send queue is full (ENOMEM); the engine resumes on the next completion it is given. Each
 * transfer's listener is told once, when all its work requests have completed.
 *
 * <p>Routing: every work request the engine posts is signaled and has a wrId with {@link #WR_ID_TAG}
 * set; give the engine each completion of such a wrId ({@link #owns}). Completions of an RC send
 * queue arrive in post order, so the engine matches them against a FIFO of posted transfers.
 *
 * <p>Not thread-safe: use it from the thread that polls the queue pair's send completion queue
 * (a fabric's event loop). Steady state allocates nothing.
 */
public final class TransferEngine {

    /** Marks the wrIds of the engine's work requests. */
    public static final long WR_ID_TAG = 0x7E00_0000_0000_0000L;
    private static final long WR_ID_TAG_MASK = 0xFF00_0000_0000_0000L;

    /** Posts one work request (the queue pair's postSend; tests record). */
    @FunctionalInterface
    public interface Poster {
        int post(WorkRequest wr);
    }

    private final Poster poster;
    private final int maxMessageSize;
    private final int maxSge;
    private final WorkRequest wr;
    private final ArrayDeque<RdmaTransfer> waiting = new ArrayDeque<>();
    private final RdmaTransfer[] inFlight;
    private int inFlightHead;
    private int inFlightCount;
    private long nextWrId;

    /** An engine for {@code qp}, with its device's message size and the queue pair's max_sge and depth. */
    public TransferEngine(QueuePair qp) {
        this(qp::postSend, qp.device().attributes().maxMsgSize(), qp.initAttributes().maxSendSge(),
                qp.initAttributes().maxSendWr());
    }

    /**
     * @param maxMessageSize largest work request in bytes
     * @param maxSge         most elements per work request
     * @param depth          most work requests the poster accepts at once (send queue depth)
     */
    public TransferEngine(Poster poster, int maxMessageSize, int maxSge, int depth) {
        if (maxMessageSize < 1 || maxSge < 1 || depth < 1) {
            throw new IllegalArgumentException("limits must be positive");
        }
        this.poster = poster;
        this.maxMessageSize = maxMessageSize;
        this.maxSge = maxSge;
        this.wr = new WorkRequest(maxSge);
        this.inFlight = new RdmaTransfer[depth];
    }

    /** Whether a completion belongs to this engine. */
    public static boolean owns(WorkCompletion wc) {
        return (wc.wrId & WR_ID_TAG_MASK) == WR_ID_TAG;
    }

    /** Queues a transfer and posts as much as fits. An empty transfer completes at once. */
    public void submit(RdmaTransfer t) {
        waiting.addLast(t);
        pump();
    }

    /** Gives the engine one of its completions; resumes posting. */
    public void onCompletion(WorkCompletion wc) {
        if (inFlightCount == 0) {
            throw new IllegalStateException("completion without a posted work request: " + wc);
        }
        RdmaTransfer t = inFlight[inFlightHead];
        inFlight[inFlightHead] = null;
        inFlightHead = (inFlightHead + 1) % inFlight.length;
        inFlightCount--;
        t.completed++;
        if (wc.status != WorkCompletionStatus.SUCCESS && t.status == WorkCompletionStatus.SUCCESS) {
            t.status = wc.status;
            t.allPosted = true; // stop dividing: the queue pair is in ERROR
        }
        signalIfDone(t);
        pump();
    }

    /** Posts work requests of the waiting transfers, oldest first, until the queue is full. */
    public void pump() {
        while (!waiting.isEmpty()) {
            RdmaTransfer t = waiting.peekFirst();
            if (!t.allPosted && !postNext(t)) {
                return; // queue full: resume on a completion
            }
            if (t.allPosted) {
                waiting.pollFirst();
                signalIfDone(t);
            }
        }
    }

    /** Work requests posted and not yet completed. */
    public int inFlight() {
        return inFlightCount;
    }

    /** Posts one work request of {@code t}; false if the queue is full. */
    private boolean postNext(RdmaTransfer t) {
        if (inFlightCount == inFlight.length) {
            return false;
        }
        int element = t.element;
        int offset = t.elementOffset;
        long bytes = fill(t);
        if (bytes == 0) {
            t.allPosted = true;
            return true;
        }
        int rc = poster.post(wr);
        if (rc != Errno.OK) {
            t.element = element; // not posted: the cursor goes back
            t.elementOffset = offset;
            if (rc == Errno.ENOMEM) {
                return false;
            }
            t.status = WorkCompletionStatus.LOC_QP_OP_ERR;
            t.allPosted = true;
            return true;
        }
        t.remoteOffset += bytes;
        t.posted++;
        inFlight[(inFlightHead + inFlightCount) % inFlight.length] = t;
        inFlightCount++;
        if (t.element == t.elementCount()) {
            t.allPosted = true;
        }
        return true;
    }

    /** Fills {@link #wr} with the next piece of {@code t}, advancing its cursor; returns its byte count. */
    private long fill(RdmaTransfer t) {
        wr.reset();
        wr.wrId = WR_ID_TAG | (nextWrId++ & ~WR_ID_TAG_MASK);
        wr.opcode = t.opcode();
        wr.sendFlags = SendFlags.SIGNALED;
        wr.remoteAddress = t.remoteAddress() + t.remoteOffset;
        wr.rkey = t.rkey();
        long bytes = 0;
        while (t.element < t.elementCount() && bytes < maxMessageSize) {
            int avail = t.length(t.element) - t.elementOffset;
            if (avail == 0) {
                t.element++;
                t.elementOffset = 0;
                continue;
            }
            int take = (int) Math.min(avail, maxMessageSize - bytes);
            long address = t.address(t.element) + t.elementOffset;
            int lkey = t.lkey(t.element);
            if (!merge(address, take, lkey)) {
                if (wr.numSge == maxSge) {
                    break;
                }
                wr.addSge(address, take, lkey);
            }
            bytes += take;
            t.elementOffset += take;
            if (t.elementOffset == t.length(t.element)) {
                t.element++;
                t.elementOffset = 0;
            }
        }
        return bytes;
    }

    /** Extends the last element when the piece follows it in the same region. */
    private boolean merge(long address, int length, int lkey) {
        if (wr.numSge == 0) {
            return false;
        }
        ScatterGatherElement last = wr.sgList[wr.numSge - 1];
        if (last.lkey() != lkey || last.address() + last.length() != address) {
            return false;
        }
        last.set(last.address(), last.length() + length, lkey);
        return true;
    }

    private static void signalIfDone(RdmaTransfer t) {
        if (!t.signalled && t.allPosted && t.completed == t.posted) {
            t.signalled = true;
            t.listener().transferComplete(t, t.status);
        }
    }
}
