package org.jtarget.backstore.memory;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The memory every memory backstore of the daemon may hold together ({@code daemon.memory-limit}).
 * Stores reserve whole chunks before they touch them and give them back on UNMAP and close, so
 * {@link #used()} is the real memory they hold (the pages are returned to the kernel at the same
 * time, see {@link MemoryBackstore}).
 *
 * <p>Thread-safe and allocation-free: one {@link AtomicLong} and a compare-and-set loop; usage
 * never exceeds the limit, whatever the number of concurrent writers. When a thin store's write
 * is refused (SBC-4 4.7.3.6: DATA PROTECT / SPACE ALLOCATION FAILED WRITE PROTECT) one WARN line
 * says so; later refusals are counted and logged at DEBUG.
 */
public final class MemoryBudget {

    private static final Logger LOG = LoggerFactory.getLogger(MemoryBudget.class);

    /** No limit. */
    public static final long UNLIMITED = Long.MAX_VALUE;

    private final long limit;
    private final AtomicLong used = new AtomicLong();
    private final AtomicLong refusals = new AtomicLong();
    private final AtomicBoolean warned = new AtomicBoolean();

    /** @param limit bytes all memory stores may hold together ({@link #UNLIMITED} for none) */
    public MemoryBudget(long limit) {
        if (limit <= 0) {
            throw new IllegalArgumentException("memory limit must be positive: " + limit);
        }
        this.limit = limit;
    }

    /** A budget without a limit (tests, stores opened outside the daemon). */
    public static MemoryBudget unlimited() {
        return new MemoryBudget(UNLIMITED);
    }

    /** The limit in bytes ({@link #UNLIMITED} for none). */
    public long limit() {
        return limit;
    }

    /** Bytes the stores hold now. */
    public long used() {
        return used.get();
    }

    /** Writes refused so far because the budget was spent. */
    public long refusals() {
        return refusals.get();
    }

    /**
     * Takes {@code bytes} from the budget if that keeps usage within the limit.
     *
     * @return false (nothing taken) if it would not
     */
    public boolean tryReserve(long bytes) {
        long u;
        do {
            u = used.get();
            if (bytes > limit - u) {
                return false;
            }
        } while (!used.compareAndSet(u, u + bytes));
        return true;
    }

    /** Gives back bytes an earlier {@link #tryReserve} took. */
    public void release(long bytes) {
        used.addAndGet(-bytes);
    }

    /** Records a write refused for lack of budget: WARN the first time, DEBUG after. */
    void refused(String store, long wanted) {
        long n = refusals.incrementAndGet();
        if (warned.compareAndSet(false, true)) {
            LOG.warn("memory store {}: daemon.memory-limit {} bytes reached ({} in use, {} more wanted); "
                    + "writes to unallocated chunks of thin memory stores fail with DATA PROTECT / SPACE ALLOCATION "
                    + "FAILED WRITE PROTECT until UNMAP frees some (logged once)", store, limit, used.get(), wanted);
        } else {
            LOG.debug("memory store {}: memory limit reached ({} refusals)", store, n);
        }
    }
}
