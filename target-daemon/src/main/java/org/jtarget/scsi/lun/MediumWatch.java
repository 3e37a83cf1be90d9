package org.jtarget.scsi.lun;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Notices a backing store that vanished while nothing failed: Linux keeps serving a deleted or
 * replaced file through the open descriptor, so I/O succeeds while every write is lost on restart.
 * Every few seconds, on its own thread (never an event loop, never per I/O), it asks each
 * watched store's {@link Probe} whether its medium is still there, and takes the LUs of a store
 * that is not offline ({@link LogicalUnit#takeOffline}). Stores also report a vanished medium on
 * I/O errors and SYNCHRONIZE CACHE, which takes the LU offline at once through the dispatcher.
 */
public final class MediumWatch implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(MediumWatch.class);

    /** Whether one store's medium is still there. Called on the watch thread; may block briefly (stat). */
    @FunctionalInterface
    public interface Probe {
        /** Null while the medium is there; otherwise what happened (e.g. "/srv/lun0.img was deleted"). */
        String missing();
    }

    private final Map<Probe, List<LogicalUnit>> watched = new IdentityHashMap<>();
    private ScheduledExecutorService timer;

    /** Watches {@code lu} through {@code probe} (one probe may serve several LUs of one store). */
    public synchronized void watch(LogicalUnit lu, Probe probe) {
        watched.computeIfAbsent(probe, p -> new ArrayList<>()).add(lu);
    }

    /** Stops watching {@code lu} (it left its target); a probe without LUs is dropped. */
    public synchronized void unwatch(LogicalUnit lu) {
        watched.values().forEach(luns -> luns.remove(lu));
        watched.values().removeIf(List::isEmpty);
    }

    /** Number of probes watched (for tests and status). */
    public synchronized int size() {
        return watched.size();
    }

    /** One pass over every probe whose LUs are not all offline yet. */
    public synchronized void checkNow() {
        for (Map.Entry<Probe, List<LogicalUnit>> e : watched.entrySet()) {
            if (allOffline(e.getValue())) {
                continue;
            }
            String missing;
            try {
                missing = e.getKey().missing();
            } catch (RuntimeException ex) {
                LOG.debug("medium probe failed", ex);
                continue;
            }
            if (missing != null) {
                for (LogicalUnit lu : e.getValue()) {
                    lu.takeOffline(missing);
                }
            }
        }
    }

    private static boolean allOffline(List<LogicalUnit> units) {
        for (LogicalUnit lu : units) {
            if (!lu.medium().offline()) {
                return false;
            }
        }
        return true;
    }

    /** Checks every {@code period} on a daemon thread of its own until {@link #close}. */
    public synchronized void start(Duration period) {
        if (timer != null || watched.isEmpty()) {
            return;
        }
        timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "jtarget-medium-watch");
            t.setDaemon(true);
            return t;
        });
        long ms = Math.max(1, period.toMillis());
        timer.scheduleWithFixedDelay(this::checkNow, ms, ms, TimeUnit.MILLISECONDS);
    }

    /** Stops the periodic checks. Idempotent. */
    @Override
    public synchronized void close() {
        if (timer != null) {
            timer.shutdownNow();
            timer = null;
        }
    }
}
