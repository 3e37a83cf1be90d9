package org.jtarget.initiator.rdma;

import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicReference;
import org.jtarget.rdma.CompletionChannel;
import org.jtarget.rdma.CompletionQueue;

/**
 * Where a {@link MessageConnection}'s completion events go: to the {@link CompletionWaiter} a blocked
 * caller sleeps on, or, while a driven step is armed, to that step, run as a task of the
 * connection's I/O thread. The event fires on that thread while it handles a burst of input, so
 * the step runs after the burst and takes all of it at once, with no thread woken.
 */
final class CompletionDispatch implements CompletionChannel {

    private final CompletionWaiter waiter;
    private final AtomicReference<Runnable> armed = new AtomicReference<>();
    private volatile Executor loop;

    CompletionDispatch(CompletionWaiter waiter) {
        this.waiter = waiter;
    }

    /** Runs {@code step} on {@code loop} at the next completion event instead of waking the waiter. */
    void arm(Executor loop, Runnable step) {
        this.loop = loop;
        armed.set(step);
    }

    /** Takes the armed step back; false if an event has already scheduled it. */
    boolean disarm(Runnable step) {
        return armed.compareAndSet(step, null);
    }

    @Override
    public void completionEvent(CompletionQueue cq) {
        Runnable step = armed.getAndSet(null);
        if (step == null) {
            waiter.completionEvent(cq);
            return;
        }
        try {
            loop.execute(step);
        } catch (RejectedExecutionException e) {
            // the loop is shutting down (the channel is being closed): nothing runs there any more
        }
    }
}
