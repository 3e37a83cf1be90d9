package org.jtarget.ha;

/**
 * Keeps overlapping changes of one replicated store from being in flight together, so that both
 * nodes apply them in the same order: SCSI lets two overlapping SIMPLE writes run at once, and if
 * the primary's store and the secondary's each applied them in their own order, the nodes would
 * hold different blocks. A change waits here until no earlier one overlaps its blocks; changes of
 * disjoint blocks pass together (the link's window). At most {@code capacity} ranges are held,
 * one per thread that may write (the LU's I/O threads and the resync), so holding is a scan of a
 * small array and allocates nothing.
 */
final class OverlapGate {

    private final long[] first;
    private final long[] end;
    private final boolean[] held;

    OverlapGate(int capacity) {
        first = new long[capacity];
        end = new long[capacity];
        held = new boolean[capacity];
    }

    /** Waits until no held range overlaps {@code [lba, lba + blocks)}, then holds it; returns the ticket for {@link #leave}. */
    synchronized int enter(long lba, long blocks) throws InterruptedException {
        long e = lba + blocks;
        while (true) {
            int free = -1;
            boolean overlaps = false;
            for (int i = 0; i < held.length; i++) {
                if (!held[i]) {
                    free = free < 0 ? i : free;
                } else if (first[i] < e && lba < end[i]) {
                    overlaps = true;
                }
            }
            if (!overlaps && free >= 0) {
                held[free] = true;
                first[free] = lba;
                end[free] = e;
                return free;
            }
            wait();
        }
    }

    /** Holds the range if nothing held overlaps it and there is room; its ticket, else -1 (never waits). */
    synchronized int tryEnter(long lba, long blocks) {
        long e = lba + blocks;
        int free = -1;
        for (int i = 0; i < held.length; i++) {
            if (!held[i]) {
                free = free < 0 ? i : free;
            } else if (first[i] < e && lba < end[i]) {
                return -1;
            }
        }
        if (free >= 0) {
            held[free] = true;
            first[free] = lba;
            end[free] = e;
        }
        return free;
    }

    synchronized void leave(int ticket) {
        held[ticket] = false;
        notifyAll();
    }

    /** Ranges held now: changes sent to the peer and not yet answered (or being applied here first). */
    synchronized int heldCount() {
        int n = 0;
        for (boolean h : held) {
            n += h ? 1 : 0;
        }
        return n;
    }

    /** Waits until no range is held, at most {@code timeoutMillis}; true when none is. */
    synchronized boolean awaitIdle(long timeoutMillis) throws InterruptedException {
        long deadline = System.currentTimeMillis() + timeoutMillis;
        while (true) {
            boolean idle = heldCount() == 0;
            long left = deadline - System.currentTimeMillis();
            if (idle || left <= 0) {
                return idle;
            }
            wait(left);
        }
    }
}
