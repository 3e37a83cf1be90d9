package org.jtarget.ha;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The hot extents of a {@link DirtyRegionLog}: which are active (recorded in the file's table),
 * how many writes each has in progress, and which to evict when a new one must become active.
 *
 * <p>Per extent, {@link #inProgress} holds {@link #INACTIVE} or the count of writes in progress.
 * A write on an active extent only increments that count (a CAS, no lock, no I/O). Activation,
 * eviction and table writes hold {@link #lock}; an extent is evicted by a CAS from 0 to INACTIVE,
 * so a write either pins it before that or finds it inactive and takes the lock.
 */
final class ActiveExtents {

    private static final int INACTIVE = -1;

    private final LogGeometry geometry;
    private final DirtyRegionLogFile file;
    private final RegionBitmap bits;
    private final AtomicIntegerArray inProgress;
    /** Per extent, the tick of its last write: the least recently used idle extent is evicted. */
    private final AtomicLongArray lastUse;
    private final AtomicLong clock = new AtomicLong();
    private final ReentrantLock lock = new ReentrantLock();
    /** Signalled when an active extent's last write ends while a thread waits for one. */
    private final Condition extentIdle = lock.newCondition();
    /** Threads in {@link #awaitIdleExtent}; changed under the lock, read by {@link #unpin} without it. */
    private volatile int waiters;
    /** The table as in the file: the first {@code activeCount} entries. Under the lock. */
    private final int[] active;
    private int activeCount;
    private boolean closed;

    ActiveExtents(LogGeometry geometry, DirtyRegionLogFile file, RegionBitmap bits) {
        this.geometry = geometry;
        this.file = file;
        this.bits = bits;
        inProgress = new AtomicIntegerArray(geometry.extentCount());
        for (int e = 0; e < geometry.extentCount(); e++) {
            inProgress.setPlain(e, INACTIVE);
        }
        lastUse = new AtomicLongArray(geometry.extentCount());
        active = new int[geometry.activeExtents()];
    }

    /**
     * Pins extents {@code first} to {@code last} for one write, activating those not active. When
     * every active extent has writes in progress, waits for one outside the range to end, holding
     * none of its own pins meanwhile: two writes that each hold one extent must not wait for each
     * other for ever, and its own released extents must not wake it to take them back.
     */
    void pin(int first, int last) throws IOException {
        int extent = first;
        try {
            while (extent <= last) {
                if (tryPin(extent) || activateAndPin(extent)) {
                    extent++;
                } else {
                    unpin(first, extent - 1);
                    extent = first;
                    awaitIdleExtent(first, last);
                }
            }
        } catch (IOException | RuntimeException e) {
            unpin(first, extent - 1); // the write will not be issued: it holds nothing
            throw e;
        }
    }

    /** Pins every extent if all are active, without the lock; false (nothing pinned) otherwise. */
    boolean tryPinAll(int first, int last) {
        for (int extent = first; extent <= last; extent++) {
            if (!tryPin(extent)) {
                unpin(first, extent - 1);
                return false;
            }
        }
        return true;
    }

    void unpin(int first, int last) {
        for (int extent = first; extent <= last; extent++) {
            unpin(extent);
        }
    }

    /**
     * Drops the idle extents from the table after the bitmap is stable, so that the next open has
     * nothing to dirty; extents with writes still in progress stay recorded (the next open dirties
     * them). Waiting writers are woken and fail.
     */
    void close() throws IOException {
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            for (int slot = activeCount - 1; slot >= 0; slot--) {
                if (inProgress.compareAndSet(active[slot], 0, INACTIVE)) {
                    removeSlot(slot);
                }
            }
            file.writeChangedPages(bits);
            file.writeTable(active, activeCount);
            extentIdle.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** The fast path: an active extent's count goes up by one, if it is still active. */
    private boolean tryPin(int extent) {
        int writes;
        do {
            writes = inProgress.get(extent);
            if (writes == INACTIVE) {
                return false;
            }
        } while (!inProgress.weakCompareAndSetVolatile(extent, writes, writes + 1));
        lastUse.setOpaque(extent, clock.incrementAndGet());
        return true;
    }

    private void unpin(int extent) {
        int writes;
        do {
            writes = inProgress.get(extent);
            if (writes <= 0) {
                throw new IllegalStateException("endWrite without beginWrite on extent " + extent);
            }
        } while (!inProgress.weakCompareAndSetVolatile(extent, writes, writes - 1));
        // volatile write above, volatile read here: a waiter that counted itself before looking
        // for an idle extent either saw this one idle or is seen here
        if (writes == 1 && waiters > 0) {
            signalIdle();
        }
    }

    /** @return false when every active extent is busy: the caller waits and retries */
    private boolean activateAndPin(int extent) throws IOException {
        lock.lock();
        try {
            if (closed) {
                throw new IllegalStateException(file.path() + ": dirty region log closed");
            }
            if (tryPin(extent)) {
                return true; // another thread activated it while this one waited for the lock
            }
            int slot = activeCount < active.length ? activeCount++ : evictLeastRecentlyUsed();
            if (slot < 0) {
                return false;
            }
            record(slot, extent);
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Evicts the least recently used idle extent, its bits made stable first. @return its slot or -1 */
    private int evictLeastRecentlyUsed() throws IOException {
        while (true) {
            int slot = leastRecentlyUsedIdleSlot(-1, -1);
            if (slot < 0) {
                return -1;
            }
            int victim = active[slot];
            if (!inProgress.compareAndSet(victim, 0, INACTIVE)) {
                continue; // a write pinned it since the scan
            }
            try {
                file.writePagesOf(bits, geometry.firstRegionOfExtent(victim), geometry.endRegionOfExtent(victim));
            } catch (IOException e) {
                inProgress.set(victim, 0); // still in the table on disk: it stays active
                throw e;
            }
            return slot;
        }
    }

    /** The slot of the least recently used idle extent not from {@code skipFirst} to {@code skipLast}. */
    private int leastRecentlyUsedIdleSlot(int skipFirst, int skipLast) {
        int best = -1;
        long bestUse = Long.MAX_VALUE;
        for (int slot = 0; slot < activeCount; slot++) {
            int extent = active[slot];
            boolean skipped = extent >= skipFirst && extent <= skipLast;
            if (!skipped && inProgress.get(extent) == 0 && lastUse.get(extent) < bestUse) {
                best = slot;
                bestUse = lastUse.get(extent);
            }
        }
        return best;
    }

    /** Records {@code extent} in {@code slot} on stable storage, then pins it for the caller's write. */
    private void record(int slot, int extent) throws IOException {
        active[slot] = extent;
        try {
            file.writeTable(active, activeCount);
        } catch (IOException e) {
            removeSlot(slot); // the file may hold the new table or the old: both cover every write
            throw e;
        }
        lastUse.set(extent, clock.incrementAndGet());
        inProgress.set(extent, 1);
    }

    private void removeSlot(int slot) {
        active[slot] = active[--activeCount];
    }

    /** Waits until a slot is free or an extent not from {@code first} to {@code last} is idle. */
    private void awaitIdleExtent(int first, int last) throws InterruptedIOException {
        lock.lock();
        waiters++;
        try {
            while (!closed && activeCount == active.length && leastRecentlyUsedIdleSlot(first, last) < 0) {
                extentIdle.await();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted waiting for an idle extent of " + file.path());
        } finally {
            waiters--;
            lock.unlock();
        }
    }

    private void signalIdle() {
        lock.lock();
        try {
            extentIdle.signalAll();
        } finally {
            lock.unlock();
        }
    }
}
