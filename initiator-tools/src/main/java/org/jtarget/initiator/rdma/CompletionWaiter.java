package org.jtarget.initiator.rdma;

import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.jtarget.rdma.CompletionChannel;
import org.jtarget.rdma.CompletionQueue;
import org.jtarget.rdma.WorkCompletion;

/**
 * Event-driven polling (ibv_req_notify_cq(3)'s poll / arm / poll-again pattern), so the caller
 * sleeps instead of spinning on a machine whose cores also run the provider's event loops. Give it
 * as the completion queue's channel.
 */
public final class CompletionWaiter implements CompletionChannel {

    /** The longest sleep between polls: a safety net should an event ever be missed. */
    private static final long MAX_SLEEP_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private final Semaphore events = new Semaphore(0);

    @Override
    public void completionEvent(CompletionQueue cq) {
        events.release();
    }

    /** Polls, arming and sleeping while nothing is there; returns the number polled (at least 1). */
    public int pollBlocking(CompletionQueue cq, WorkCompletion[] wcs) throws InterruptedException {
        while (true) {
            int n = pollWithin(cq, wcs, TimeUnit.DAYS.toNanos(1));
            if (n != 0) {
                return n;
            }
        }
    }

    /**
     * Polls like {@link #pollBlocking}, but for at most {@code nanos}: returns the number polled, 0 if
     * nothing completed in that time.
     */
    public int pollWithin(CompletionQueue cq, WorkCompletion[] wcs, long nanos) throws InterruptedException {
        long deadline = System.nanoTime() + nanos;
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
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return 0;
            }
            events.tryAcquire(Math.min(left, MAX_SLEEP_NANOS), TimeUnit.NANOSECONDS);
        }
    }
}
