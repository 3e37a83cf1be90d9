package org.jtarget.scsi.lun;

import java.util.ArrayDeque;

/**
 * The queue depth of one logical unit (config key {@code queue-depth} of a LUN mapping): at
 * most {@link #limit()} commands of that LU are admitted at once (gated, moving their data or at
 * the store), whatever nexus sent them. A command that finds the LU full is parked here, in
 * arrival order, until an admitted one ends; while parked it is in the LU's task set (task
 * management sees it) but asks for no data-out and occupies no I/O thread.
 *
 * <p>Why the core parks instead of refusing: DESIGN 4.4, "the MaxCmdSN window first". The fabric
 * is told that a command is parked ({@code FabricOps.commandParked}) and holds its own flow
 * control (iSCSI: the session's MaxCmdSN, RFC 7143 4.2.2.1), so a slow store slows its
 * initiators instead of building queues; parked commands are bounded by the fabrics' windows,
 * never by memory. TASK SET FULL (SAM-5 5.3.1) is kept for initiators that ignore the window.
 *
 * <p>Lives in {@code scsi.lun} because it is policy of the logical unit: each {@link LogicalUnit}
 * builds its own from its {@link LogicalUnitDefinition}, so a LU added at run time has one, and
 * only the core uses it.
 *
 * <p>Thread safety: any thread (the nexuses of a LU run on different event loops).
 * {@link Waiter#admitted()} runs on the thread that frees the slot, outside the lock: it must
 * only hand the waiter back to its own loop. {@link #enter} and {@link #exit} allocate nothing
 * once the wait queue has grown to its working size.
 */
public final class LunQueueDepth {

    /** A parked command. */
    public interface Waiter {
        /** A slot is now this waiter's (it must {@link #exit} once when it ends). Any thread. */
        void admitted();
    }

    private final int limit;
    private final ArrayDeque<Waiter> waiting;
    private int outstanding;

    /** @param limit commands admitted at once, at least 1 */
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
     * them, so commands of one LU are admitted in the order they arrived.
     *
     * @return true if {@code waiter} holds a slot now; false if it is parked (then exactly one of
     *         {@link Waiter#admitted()} or a successful {@link #cancel} follows)
     */
    public synchronized boolean enter(Waiter waiter) {
        if (outstanding < limit && waiting.isEmpty()) {
            outstanding++;
            return true;
        }
        waiting.addLast(waiter);
        return false;
    }

    /** An admitted command ended: its slot goes to the oldest waiter, if any. */
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

    /**
     * Takes a parked waiter out of the queue (its command was aborted); false if it was already
     * admitted (its {@link Waiter#admitted()} is on its way).
     */
    public synchronized boolean cancel(Waiter waiter) {
        return waiting.removeFirstOccurrence(waiter);
    }

    /** Commands holding a slot now (status output, tests). */
    public synchronized int outstanding() {
        return outstanding;
    }

    /** Commands parked now (status output, tests). */
    public synchronized int waiting() {
        return waiting.size();
    }
}
