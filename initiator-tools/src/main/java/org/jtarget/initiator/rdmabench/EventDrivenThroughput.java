package org.jtarget.initiator.rdmabench;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.jtarget.initiator.cli.CliFailure;
import org.jtarget.rdma.CompletionChannel;
import org.jtarget.rdma.CompletionQueue;
import org.jtarget.rdma.Errno;
import org.jtarget.rdma.MemoryRegion;
import org.jtarget.rdma.QueuePair;
import org.jtarget.rdma.WorkCompletion;
import org.jtarget.rdma.WorkCompletionStatus;
import org.jtarget.rdma.WorkRequest;
import org.jtarget.rdma.WorkRequestOpcode;

/**
 * The tcp provider's measurement, driven by completion events: the provider adds completions on its
 * event loop, and this handler polls and posts the next requests right there, the way a fabric
 * running on an event loop uses the verbs (no thread hand-off per request; one thread per side, as
 * in the baseline stream).
 */
final class EventDrivenThroughput implements CompletionChannel {

    private final WorkRequest wr = new WorkRequest(1);
    private final WorkCompletion[] wcs = new WorkCompletion[64];
    private QueuePair qp;
    private MemoryRegion local;
    private long remoteAddress;
    private int rkey;
    private WorkRequestOpcode op;
    private int size;
    private int depth;
    private int buffers;
    private long end;
    private long bytes;
    private int inFlight;
    private long next;
    private WorkCompletionStatus failure;
    private int postErrno;
    private CountDownLatch done;

    EventDrivenThroughput() {
        for (int i = 0; i < wcs.length; i++) {
            wcs[i] = new WorkCompletion();
        }
    }

    void target(QueuePair qp, MemoryRegion local, long remoteAddress, int rkey) {
        this.qp = qp;
        this.local = local;
        this.remoteAddress = remoteAddress;
        this.rkey = rkey;
    }

    /**
     * Runs for {@code nanos} with {@code depth} requests in flight over {@code buffers} slots of the
     * regions; returns bytes per second.
     */
    double run(WorkRequestOpcode op, int size, int depth, int buffers, long nanos)
            throws CliFailure, InterruptedException {
        CompletionQueue cq = qp.initAttributes().sendCq();
        long start;
        synchronized (this) {
            this.op = op;
            this.size = size;
            this.depth = depth;
            this.buffers = buffers;
            bytes = 0;
            inFlight = 0;
            failure = null;
            done = new CountDownLatch(1);
            start = System.nanoTime();
            end = start + nanos;
            cq.requestNotify(false);
            fill();
        }
        if (!done.await(nanos / 1_000_000 + 30_000, TimeUnit.MILLISECONDS)) {
            throw new CliFailure(CliFailure.IO_ERROR, "rdma-bench: " + op + " stalled");
        }
        synchronized (this) {
            if (failure != null) {
                throw new CliFailure(CliFailure.IO_ERROR, "rdma-bench: " + op + " failed: " + failure
                        + (postErrno != 0 ? " (post errno " + postErrno + ", " + qp.outstandingSends() + " outstanding, "
                        + inFlight + " in flight)" : ""));
            }
            return bytes / ((System.nanoTime() - start) / 1e9);
        }
    }

    @Override
    public synchronized void completionEvent(CompletionQueue cq) {
        if (done == null || done.getCount() == 0) {
            return;
        }
        while (true) {
            int n = cq.poll(wcs, wcs.length);
            if (n == 0) {
                cq.requestNotify(false);
                n = cq.poll(wcs, wcs.length);
                if (n == 0) {
                    return;
                }
            }
            for (int i = 0; i < n; i++) {
                if (wcs[i].status != WorkCompletionStatus.SUCCESS && failure == null) {
                    failure = wcs[i].status;
                }
                bytes += size;
            }
            inFlight -= n;
            if (failure == null) {
                fill();
            }
            if (inFlight == 0) {
                done.countDown();
                return;
            }
        }
    }

    private void fill() {
        if (System.nanoTime() >= end) { // once per completion event, not per request
            return;
        }
        while (inFlight < depth) {
            int slot = (int) (next++ % buffers);
            RdmaThroughput.prepare(wr, op, size, slot, local, remoteAddress, rkey);
            inFlight++; // before posting: the completion event may run inside postSend, re-entrantly
            int rc = qp.postSend(wr);
            if (rc != Errno.OK) {
                inFlight--;
                failure = WorkCompletionStatus.LOC_QP_OP_ERR;
                postErrno = rc;
                return;
            }
        }
    }
}
