package org.jtarget.ha.link;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * What one store call on the primary waits for: the peer's answers to the requests it was divided
 * into. One per I/O thread, reused (no allocation per write): a thread waits for one call at a time.
 * An asynchronous write's ticket ({@link ReplicationLink#tryWrite}) overrides {@link #allAnswered}
 * instead of being waited for.
 */
public class Ticket {

    private final Thread owner = Thread.currentThread();
    private final AtomicInteger outstanding = new AtomicInteger();
    private volatile boolean failed;

    /** Ready for another call. */
    public void reset() {
        outstanding.set(0);
        failed = false;
    }

    /** One more request is on its way. */
    void add() {
        outstanding.incrementAndGet();
    }

    /** One request was answered ({@code ok}: the peer applied it) or lost with the connection. Any thread. */
    void done(boolean ok) {
        if (!ok) {
            failed = true;
        }
        if (outstanding.decrementAndGet() == 0) {
            allAnswered(!failed);
        }
    }

    /**
     * Every request was answered or lost ({@code applied}: all applied); on the link's loop or the
     * thread that found the link gone. The waiting thread wakes; an asynchronous ticket finishes
     * its write (without blocking).
     */
    protected void allAnswered(boolean applied) {
        LockSupport.unpark(owner);
    }

    /**
     * Waits until every request is answered or lost; true when the peer applied them all. When
     * {@code timeoutNanos} pass first, {@code overdue} runs once (it must end the connection, which
     * answers every request still outstanding as lost) and the wait goes on until they are: a
     * request must not outlive its ticket's call.
     */
    boolean await(long timeoutNanos, Runnable overdue) {
        long deadline = System.nanoTime() + timeoutNanos;
        boolean overdueRan = false;
        while (outstanding.get() > 0) {
            long left = deadline - System.nanoTime();
            if (left <= 0 && !overdueRan) {
                overdueRan = true;
                overdue.run();
            }
            LockSupport.parkNanos(this, TimeUnit.MILLISECONDS.toNanos(left > 0 ? Math.min(100, left / 1_000_000 + 1) : 10));
        }
        return !failed;
    }
}
