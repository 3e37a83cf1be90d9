package org.jtarget.io;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * Per-logical-unit I/O executors (DESIGN 4.3): blocking store calls run here, never on an event
 * loop. Each LU gets a bounded pool of daemon platform threads; a full queue rejects the task,
 * which the core answers with TASK SET FULL (DESIGN 4.4). In normal operation the queue never
 * fills: the SCSI core admits at most the LU's queue depth of commands per LU (config
 * {@code queue-depth}, at most 512, below the daemon's queue of 1024) and parks the rest while
 * their fabric holds its window (iSCSI: MaxCmdSN), so TASK SET FULL here is a last resort.
 * Tasks of one LU may run concurrently: the control mode page reports unrestricted reordering
 * (QAM 1h), so SIMPLE tasks need no order.
 * ORDERED/HEAD OF QUEUE are not yet given stronger guarantees.
 */
public final class LunIoExecutors {

    private static final Logger log = LoggerFactory.getLogger(LunIoExecutors.class);

    private final Function<String, Executor> factory;
    private final List<ExecutorService> created = new ArrayList<>();

    /**
     * @param threadsPerLun    I/O threads per LU (file stores: enough to keep the device queue busy)
     * @param queueDepthPerLun queued commands per LU beyond the running ones
     */
    public LunIoExecutors(int threadsPerLun, int queueDepthPerLun) {
        if (threadsPerLun < 1 || queueDepthPerLun < 1) {
            throw new IllegalArgumentException("threadsPerLun and queueDepthPerLun must be >= 1");
        }
        this.factory = name -> newPool(name, threadsPerLun, queueDepthPerLun);
    }

    /** Executors from {@code factory} (tests: a manual or same-thread executor). Not shut down here. */
    public LunIoExecutors(Function<String, Executor> factory) {
        this.factory = factory;
    }

    /** The executor for one LU, named for its threads. */
    public synchronized Executor forLun(String name) {
        return factory.apply(name);
    }

    /**
     * The LU that used {@code executor} is gone (removed from its target, its last command
     * ended): its threads stop once idle. Executors this object did not create are left alone.
     */
    public synchronized void retire(Executor executor) {
        if (executor instanceof ExecutorService e && created.remove(e)) {
            e.shutdown();
        }
    }

    private ExecutorService newPool(String name, int threads, int depth) {
        ThreadPoolExecutor pool = new ThreadPoolExecutor(threads, threads, 60, TimeUnit.SECONDS,
                new ArrayBlockingQueue<>(depth), namedDaemons("jtarget-io-" + name),
                new ThreadPoolExecutor.AbortPolicy());
        pool.allowCoreThreadTimeOut(true);
        created.add(pool);
        return pool;
    }

    private static ThreadFactory namedDaemons(String prefix) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, prefix + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    /**
     * Stops accepting I/O and waits up to {@code timeout} for queued I/O to finish (daemon stop).
     *
     * @return true if every executor terminated in time
     */
    public synchronized boolean shutdown(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (ExecutorService e : created) {
            e.shutdown();
        }
        boolean all = true;
        for (ExecutorService e : created) {
            try {
                long left = Math.max(0, deadline - System.nanoTime());
                if (!e.awaitTermination(left, TimeUnit.NANOSECONDS)) {
                    all = false;
                    e.shutdownNow();
                }
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
                e.shutdownNow();
                all = false;
            }
        }
        if (!all) {
            log.warn("I/O executors did not finish within {}; remaining I/O was interrupted", timeout);
        }
        return all;
    }
}
