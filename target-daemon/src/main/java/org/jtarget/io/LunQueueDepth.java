package org.jtarget.io;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The queue depth of one logical unit (config key {@code queue-depth} of a LUN mapping): at
 * most {@link #limit()} commands of that LU are outstanding at once (submitted to the SCSI core,
 * moving their data or at the store), whatever session sent them. A command that finds the LU
 * full waits here, in arrival order, until an outstanding one ends; it does not occupy the
 * store's executor nor, for a write, fetch its data (no R2T) while it waits.
 *
 * <p>Why a fabric asks before it submits: DESIGN 4.4, "the MaxCmdSN window first". While a
 * session has commands waiting here, the iSCSI fabric stops advancing that session's MaxCmdSN
 * (RFC 7143 4.2.2.1), so a slow store slows its initiators instead of building queues; the
 * waiting commands are bounded by the sessions' command windows, never by memory. TASK SET FULL
 * (SAM-5 5.3.1) is kept for initiators that ignore the window.
 *
 * <p>Thread safety: any thread (each session runs on its own event loop). {@link Waiter}
 * callbacks run on the thread that frees the slot or resets the queue, outside the lock: they
 * must only hand the waiter back to its own loop. The hot path ({@link #enter}, {@link #exit})
 * allocates nothing once the wait queue has grown to its working size.
 */
public final class LunQueueDepth {

    /** {@link #enter} result: the command holds a slot now. */
    public static final long ADMITTED = -1;

    /** A command waiting for a slot. */
    public interface Waiter {
        /** A slot is now this waiter's (it must {@link #exit} once when it ends). Any thread. */
        void admitted();

        /** The LU was reset while this waiter waited (CLEAR TASK SET, LU/target reset): it holds no slot. Any thread. */
        void cancelled();
    }

    private final int limit;
    private final ArrayDeque<Waiter> waiting;
    private int outstanding;
    private long generation;

    /** @param limit commands outstanding at once, at least 1 */
    public LunQueueDepth(int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("queue depth must be >= 1: " + limit);
        }
        this.limit = limit;
        this.waiting = new ArrayDeque<>(Math.min(limit, 1024));
    }

    public int limit() {
        return limit;
    }

    /**
     * Asks for a slot. Waiters are served first in, first out, and a newcomer never overtakes
     * them, so commands of one LU reach the core in the order they arrived.
     *
     * @return {@link #ADMITTED}, or the reset generation the waiter was queued in (compare with
     *         {@link #generation()} when it is admitted: a reset in between means it was aborted)
     */
    public synchronized long enter(Waiter waiter) {
        if (outstanding < limit && waiting.isEmpty()) {
            outstanding++;
            return ADMITTED;
        }
        waiting.addLast(waiter);
        return generation;
    }

    /** An outstanding command ended: its slot goes to the oldest waiter, if any. */
    public void exit() {
        Waiter next;
        synchronized (this) {
            next = waiting.pollFirst();
            if (next == null && outstanding > 0) {
                outstanding--;
            }
        }
        if (next != null) {
            next.admitted();
        }
    }

    /** Takes a waiter out of the queue (its task was aborted); false if it was already admitted. */
    public synchronized boolean cancel(Waiter waiter) {
        return waiting.removeFirstOccurrence(waiter);
    }

    /**
     * Takes every waiter out (SAM-5 7.4, 7.6, 7.7: the task set is cleared) and tells each
     * through {@link Waiter#cancelled()}; waiters admitted but not yet running see the
     * generation change. Control path.
     */
    public void cancelAll() {
        List<Waiter> cancelled;
        synchronized (this) {
            generation++;
            cancelled = new ArrayList<>(waiting);
            waiting.clear();
        }
        for (Waiter w : cancelled) {
            w.cancelled();
        }
    }

    /** Incremented by every {@link #cancelAll}. */
    public synchronized long generation() {
        return generation;
    }

    /** Commands holding a slot now (status output, tests). */
    public synchronized int outstanding() {
        return outstanding;
    }

    /** Commands waiting for a slot now (status output, tests). */
    public synchronized int waiting() {
        return waiting.size();
    }
}
