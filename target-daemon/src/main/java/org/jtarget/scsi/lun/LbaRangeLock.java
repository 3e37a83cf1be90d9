package org.jtarget.scsi.lun;

/**
 * A per-logical-unit lock on LBA ranges that never blocks a thread (SBC-4 5.3: COMPARE AND WRITE
 * compares and writes "as an uninterrupted series of actions"; SBC-4 5.12 likewise for ORWRITE).
 *
 * <p>Reads and writes take their range <em>shared</em>: they never wait for one another, only for
 * an overlapping <em>exclusive</em> holder (COMPARE AND WRITE, ORWRITE), which in turn waits for
 * every overlapping holder. A request that cannot be granted at once is queued; when a release
 * makes it grantable, its {@link Holder}'s callback runs (on the releasing thread, outside the lock)
 * and must only schedule the continuation (e.g. onto the command's event loop). Waiters are granted
 * in arrival order among overlapping requests, so an exclusive request is not starved by a stream
 * of reads and writes.
 *
 * <p>Hot path: holders are intrusive list nodes owned by the pooled command context, so acquire and
 * release allocate nothing; a shared acquire with no exclusive holder and no waiter is a few
 * instructions under the monitor.
 */
public final class LbaRangeLock {

    private static final int FREE = 0;
    private static final int HELD = 1;
    private static final int WAITING = 2;

    /** One request's node; reusable once released. Not thread-safe by itself: guarded by the lock. */
    public static final class Holder {
        private final Runnable onGranted;
        private long first;
        private long end;
        private boolean exclusive;
        private volatile int state = FREE;
        private Holder prev;
        private Holder next;
        private Holder grantedNext;

        /** @param onGranted runs when a queued request is granted; must not block */
        public Holder(Runnable onGranted) {
            this.onGranted = onGranted;
        }

        /** True while this holder owns its range. */
        public boolean isHeld() {
            return state == HELD;
        }

        private boolean overlaps(Holder o) {
            return first < o.end && o.first < end;
        }
    }

    /** Intrusive doubly linked list of holders. */
    private static final class Chain {
        Holder head;
        Holder tail;

        void add(Holder h) {
            h.prev = tail;
            h.next = null;
            if (tail == null) {
                head = h;
            } else {
                tail.next = h;
            }
            tail = h;
        }

        void remove(Holder h) {
            if (h.prev == null) {
                head = h.next;
            } else {
                h.prev.next = h.next;
            }
            if (h.next == null) {
                tail = h.prev;
            } else {
                h.next.prev = h.prev;
            }
            h.prev = null;
            h.next = null;
        }
    }

    private final Chain shared = new Chain();
    private final Chain exclusive = new Chain();
    private final Chain waiting = new Chain();

    /**
     * Requests [lba, lba + blocks).
     *
     * @return true if granted now; false if queued (the holder's callback runs once granted)
     */
    public boolean acquire(Holder h, long lba, long blocks, boolean exclusiveAccess) {
        synchronized (this) {
            if (h.state != FREE) {
                throw new IllegalStateException("range lock holder already in use");
            }
            h.first = lba;
            h.end = lba + blocks;
            h.exclusive = exclusiveAccess;
            if (!conflictsWithHolders(h) && !conflictsWithWaitersBefore(h, null)) {
                grant(h);
                return true;
            }
            waiting.add(h);
            setState(h, WAITING);
            return false;
        }
    }

    /** Gives up {@code h}'s range (or its place in the queue); no-op for a free holder. */
    public void release(Holder h) {
        Holder granted = null;
        synchronized (this) {
            switch (h.state) {
                case HELD -> (h.exclusive ? exclusive : shared).remove(h);
                case WAITING -> waiting.remove(h);
                default -> {
                    return;
                }
            }
            setState(h, FREE);
            if (waiting.head != null) {
                granted = grantWaiters();
            }
        }
        while (granted != null) {
            Holder next = granted.grantedNext;
            granted.grantedNext = null;
            granted.onGranted.run();
            granted = next;
        }
    }

    /** Grants every waiter that no longer conflicts; returns them chained by grantedNext. */
    private Holder grantWaiters() {
        Holder first = null;
        Holder last = null;
        Holder w = waiting.head;
        while (w != null) {
            Holder next = w.next;
            if (!conflictsWithHolders(w) && !conflictsWithWaitersBefore(w, w)) {
                waiting.remove(w);
                grant(w);
                if (last == null) {
                    first = w;
                } else {
                    last.grantedNext = w;
                }
                last = w;
            }
            w = next;
        }
        return first;
    }

    private void grant(Holder h) {
        (h.exclusive ? exclusive : shared).add(h);
        setState(h, HELD);
    }

    private static void setState(Holder h, int state) {
        h.state = state;
    }

    private boolean conflictsWithHolders(Holder h) {
        for (Holder o = exclusive.head; o != null; o = o.next) {
            if (o.overlaps(h)) {
                return true;
            }
        }
        if (h.exclusive) {
            for (Holder o = shared.head; o != null; o = o.next) {
                if (o.overlaps(h)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** An earlier overlapping waiter blocks {@code h} unless both are shared (FIFO fairness). */
    private boolean conflictsWithWaitersBefore(Holder h, Holder stop) {
        for (Holder o = waiting.head; o != null && o != stop; o = o.next) {
            if ((o.exclusive || h.exclusive) && o.overlaps(h)) {
                return true;
            }
        }
        return false;
    }

    /** Number of granted holders (for tests and status). */
    public synchronized int heldCount() {
        int n = 0;
        for (Holder o = shared.head; o != null; o = o.next) {
            n++;
        }
        for (Holder o = exclusive.head; o != null; o = o.next) {
            n++;
        }
        return n;
    }

    /** Number of queued requests (for tests and status). */
    public synchronized int waitingCount() {
        int n = 0;
        for (Holder o = waiting.head; o != null; o = o.next) {
            n++;
        }
        return n;
    }
}
