package org.jtarget.fabric.rdma;

import io.netty.util.concurrent.EventExecutor;
import org.jtarget.rdma.CompletionChannel;
import org.jtarget.rdma.CompletionQueue;
import org.jtarget.rdma.WorkCompletion;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The completion channel of one RDMA connection of a fabric (iSER, SRP): the completion queue's
 * event only schedules a poll on the connection's loop, where every completion is handed to the
 * connection in batches, and the queue is armed again only when it is empty (with one more poll
 * after the arming, for a completion that came in between). Made before the completion queue (the
 * queue takes it as its channel); {@link #attach} names the connection once it exists, and events
 * before that are dropped (nothing is posted before it).
 */
public final class CompletionPoller implements CompletionChannel {

    private static final int BATCH = 32;

    private final EventExecutor loop;
    private final WorkCompletion[] completions = new WorkCompletion[BATCH];
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private final Runnable pollTask = this::poll;
    private volatile CompletionQueue cq;
    private volatile Consumer<WorkCompletion> connection;
    private BooleanSupplier gone;
    private Runnable overflowed;

    public CompletionPoller(EventExecutor loop) {
        this.loop = loop;
        for (int i = 0; i < BATCH; i++) {
            completions[i] = new WorkCompletion();
        }
    }

    /**
     * The connection is made: completions of {@code cq} go to {@code completed} from now on (the
     * object is reused: copy what outlives the call); polling stops once {@code gone} is true, and
     * an overflowed queue calls {@code overflowed}, which must end the connection. Arms the queue.
     */
    public void attach(CompletionQueue cq, Consumer<WorkCompletion> completed, BooleanSupplier gone,
                       Runnable overflowed) {
        this.cq = cq;
        this.gone = gone;
        this.overflowed = overflowed;
        this.connection = completed; // last: the volatile write publishes the others
        cq.requestNotify(false);
    }

    /** The completion queue's event (any thread, possibly inside a post): poll on the loop. */
    @Override
    public void completionEvent(CompletionQueue queue) {
        if (connection != null && scheduled.compareAndSet(false, true)) {
            loop.execute(pollTask);
        }
    }

    private void poll() {
        scheduled.set(false); // an event from now on schedules another round
        Consumer<WorkCompletion> c = connection;
        while (!gone.getAsBoolean()) {
            int n = cq.poll(completions, BATCH);
            if (n < 0) {
                overflowed.run();
                return;
            }
            if (n == 0) {
                cq.requestNotify(false);
                n = cq.poll(completions, BATCH); // a completion between the poll and the arming
                if (n <= 0) {
                    return;
                }
            }
            for (int i = 0; i < n && !gone.getAsBoolean(); i++) {
                c.accept(completions[i]);
            }
        }
    }

    /**
     * Runs {@code task} on {@code loop}, or here if that loop has stopped already (shutdown: a
     * late DISCONNECTED after the provider's loops are gone; the connection's registered buffers
     * must still go back to the arena).
     */
    public static void onLoop(EventExecutor loop, Runnable task) {
        try {
            loop.execute(task);
        } catch (java.util.concurrent.RejectedExecutionException stopped) {
            task.run();
        }
    }
}
