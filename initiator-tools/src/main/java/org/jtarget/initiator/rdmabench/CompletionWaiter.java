package org.jtarget.initiator.rdmabench;

import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.jtarget.rdma.CompletionChannel;
import org.jtarget.rdma.CompletionQueue;
import org.jtarget.rdma.WorkCompletion;

/**
 * Event-driven polling (ibv_req_notify_cq(3)'s poll / arm / poll-again pattern), so the benchmark
 * thread sleeps instead of spinning on a machine whose cores also run the provider's event loops.
 */
final class CompletionWaiter implements CompletionChannel {

    private final Semaphore events = new Semaphore(0);

    @Override
    public void completionEvent(CompletionQueue cq) {
        events.release();
    }

    /** Polls, arming and sleeping while nothing is there; returns the number polled (at least 1). */
    int pollBlocking(CompletionQueue cq, WorkCompletion[] wcs) throws InterruptedException {
        while (true) {
            int n = cq.poll(wcs, wcs.length);
            if (n != 0) {
                return n;
            }
            events.drainPermits();
            cq.requestNotify(false);
            n = cq.poll(wcs, wcs.length);
            if (n != 0) {
                return n;
            }
            events.tryAcquire(100, TimeUnit.MILLISECONDS);
        }
    }
}
