package org.jtarget.initiator.rping;

import java.time.Duration;
import org.jtarget.initiator.cli.CliFailure;
import org.jtarget.initiator.rdma.CompletionWaiter;
import org.jtarget.rdma.CompletionQueue;
import org.jtarget.rdma.Errno;
import org.jtarget.rdma.QueuePair;
import org.jtarget.rdma.QueuePairInitAttributes;
import org.jtarget.rdma.RdmaDevice;
import org.jtarget.rdma.RdmaException;
import org.jtarget.rdma.WorkCompletion;
import org.jtarget.rdma.WorkCompletionOpcode;
import org.jtarget.rdma.WorkCompletionStatus;
import org.jtarget.rdma.WorkRequest;
import org.jtarget.rdma.WorkRequestOpcode;
import org.jtarget.rdma.cm.QueuePairBringUp;

/**
 * One rping connection's queue pair, sized as rping sizes it (16 sends, 2 receives, one element
 * each), and the few steps both sides are made of: post a SEND of an {@link RdmaInfo}, an RDMA READ
 * or WRITE, and wait for what must come next. Every wait is bounded; a completion in error ends the
 * run with one line saying what failed and how. Single-threaded: the side's own thread posts and
 * polls; the provider's threads only wake it.
 */
final class PingConnection {

    private static final int SEND_DEPTH = 16;
    private static final int RECEIVE_DEPTH = 2;

    private final PingBuffers buffers;
    private final QueuePair qp;
    private final CompletionQueue cq;
    private final CompletionWaiter waiter;
    private final long timeoutNanos;
    private final WorkRequest receiveWr = new WorkRequest(1);
    private final WorkRequest sendWr = new WorkRequest(1);
    private final WorkRequest rdmaWr = new WorkRequest(1);
    /** One at a time: each completion decides what the side does next. */
    private final WorkCompletion[] polled = {new WorkCompletion()};
    private int pendingSends;

    private PingConnection(PingBuffers buffers, QueuePair qp, CompletionQueue cq, CompletionWaiter waiter,
                           Duration timeout) {
        this.buffers = buffers;
        this.qp = qp;
        this.cq = cq;
        this.waiter = waiter;
        this.timeoutNanos = timeout.toNanos();
        receiveWr.reset().addSge(buffers.receive.address(), RdmaInfo.BYTES, buffers.receive.lkey());
        sendWr.reset().addSge(buffers.send.address(), RdmaInfo.BYTES, buffers.send.lkey());
    }

    /**
     * A queue pair in INIT with its first receive posted, ready for the connection manager's connect
     * or accept: the peer's first SEND may arrive as soon as the connection is up (iWARP has no
     * receiver-not-ready retry).
     */
    static PingConnection create(RdmaDevice device, PingBuffers buffers, Duration timeout) throws RdmaException,
            CliFailure {
        CompletionWaiter waiter = new CompletionWaiter();
        CompletionQueue cq = device.createCompletionQueue(2 * SEND_DEPTH, waiter);
        QueuePair qp = device.createQueuePair(buffers.pd,
                new QueuePairInitAttributes(cq, cq, SEND_DEPTH, RECEIVE_DEPTH, 1, 1));
        QueuePairBringUp.toInit(qp);
        PingConnection c = new PingConnection(buffers, qp, cq, waiter, timeout);
        c.postReceive();
        return c;
    }

    QueuePair queuePair() {
        return qp;
    }

    /** SENDs where {@code info}'s buffer is, once the previous SEND has left the send buffer. */
    void sendInfo(RdmaInfo info, String what) throws CliFailure {
        awaitSends(what);
        info.writeTo(buffers.send.segment());
        postSend(sendWr, what);
    }

    /** SENDs rping's go-ahead: an {@link RdmaInfo}-sized message whose content the peer ignores (zeros). */
    void sendGoAhead(String what) throws CliFailure {
        awaitSends(what);
        buffers.send.segment().fill((byte) 0);
        postSend(sendWr, what);
    }

    /** RDMA READs {@code length} bytes of the peer's {@code from} into the start of the sink; waits for it. */
    void read(RdmaInfo from, int length, String what) throws CliFailure {
        rdma(WorkRequestOpcode.RDMA_READ, from, length, what);
    }

    /** RDMA WRITEs the first {@code length} bytes of the sink to the peer's {@code to}; waits for it. */
    void write(RdmaInfo to, int length, String what) throws CliFailure {
        rdma(WorkRequestOpcode.RDMA_WRITE, to, length, what);
    }

    private void rdma(WorkRequestOpcode op, RdmaInfo peer, int length, String what) throws CliFailure {
        WorkRequest wr = rdmaWr.reset();
        wr.opcode = op;
        wr.remoteAddress = peer.buf();
        wr.rkey = peer.rkey();
        wr.addSge(buffers.sink.address(), length, buffers.sink.lkey());
        post(qp.postSend(wr), what);
        WorkCompletionOpcode done = op == WorkRequestOpcode.RDMA_READ ? WorkCompletionOpcode.RDMA_READ
                : WorkCompletionOpcode.RDMA_WRITE;
        while (true) {
            WorkCompletionOpcode got = next(what).opcode;
            if (got == done) {
                return;
            }
            if (got != WorkCompletionOpcode.SEND) { // a SEND's completion is counted off by next
                throw unexpected(got, what);
            }
        }
    }

    private static CliFailure unexpected(WorkCompletionOpcode op, String what) {
        return new CliFailure(CliFailure.IO_ERROR, "unexpected " + op + " completion while waiting for " + what);
    }

    /**
     * Waits for the peer's next message and returns it (the receive buffer is posted again at once).
     * rping accepts exactly {@link RdmaInfo#BYTES} bytes; so does this.
     */
    RdmaInfo receive(String what) throws CliFailure {
        while (true) {
            WorkCompletion wc = next(what);
            if (wc.opcode == WorkCompletionOpcode.RECV) {
                if (wc.byteLen != RdmaInfo.BYTES) {
                    throw new CliFailure(CliFailure.IO_ERROR, "received " + wc.byteLen + " bytes while waiting for "
                            + what + ", not rping's " + RdmaInfo.BYTES);
                }
                RdmaInfo info = RdmaInfo.readFrom(buffers.receive.segment());
                postReceive();
                return info;
            }
            if (wc.opcode != WorkCompletionOpcode.SEND) {
                throw unexpected(wc.opcode, what);
            }
        }
    }

    /** Waits until every SEND posted has completed. */
    void awaitSends(String what) throws CliFailure {
        while (pendingSends > 0) {
            WorkCompletion wc = next(what);
            if (wc.opcode != WorkCompletionOpcode.SEND) {
                throw unexpected(wc.opcode, what);
            }
        }
    }

    /** Destroys the queue pair (after the connection is down). */
    void destroy() {
        qp.destroy();
    }

    private void postSend(WorkRequest wr, String what) throws CliFailure {
        post(qp.postSend(wr), what);
        pendingSends++;
    }

    private void postReceive() throws CliFailure {
        post(qp.postRecv(receiveWr), "posting a receive");
    }

    private static void post(int errno, String what) throws CliFailure {
        if (errno != Errno.OK) {
            throw new CliFailure(CliFailure.IO_ERROR, "cannot post the work request for " + what + " (errno " + errno
                    + ": the connection is down or the queue is full)");
        }
    }

    /** The next successful completion (a SEND's is counted off); a failed one, a timeout or a flush ends the run. */
    private WorkCompletion next(String what) throws CliFailure {
        WorkCompletion wc = polled[0];
        int n;
        try {
            n = waiter.pollWithin(cq, polled, timeoutNanos);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CliFailure(CliFailure.IO_ERROR, "interrupted while waiting for " + what);
        }
        if (n == 0) {
            throw new CliFailure(CliFailure.IO_ERROR, "nothing completed within " + timeoutNanos / 1_000_000_000
                    + " s while waiting for " + what);
        }
        if (n < 0) {
            throw new CliFailure(CliFailure.IO_ERROR, "the completion queue overflowed while waiting for " + what);
        }
        if (wc.status == WorkCompletionStatus.WR_FLUSH_ERR) {
            throw new ConnectionClosed("the connection closed while waiting for " + what);
        }
        if (wc.status != WorkCompletionStatus.SUCCESS) {
            throw new CliFailure(CliFailure.IO_ERROR, describe(wc.opcode) + " failed with " + wc.status
                    + " while waiting for " + what);
        }
        if (wc.opcode == WorkCompletionOpcode.SEND) {
            pendingSends--;
        }
        return wc;
    }

    private static String describe(WorkCompletionOpcode op) {
        return op == null ? "a work request" : switch (op) {
            case RDMA_READ -> "the RDMA READ";
            case RDMA_WRITE -> "the RDMA WRITE";
            case RECV -> "a receive";
            default -> "the " + op;
        };
    }
}
