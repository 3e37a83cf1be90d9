package org.jtarget.scsi.tmf;

import org.jtarget.scsi.spi.TmfRequest;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Holds a task management response back until every task it aborted has ended (SAM-5 7.1: the
 * function completes only after the affected tasks are aborted). Starts at one (the scan itself);
 * each aborted task adds one; the last {@link #taskEnded()} queues the response on the request's
 * event loop. The same count serves a LU being removed: its last task ending lets its store close.
 */
public final class TmfCompletion {

    private final Runnable whenDone;
    private final AtomicInteger remaining = new AtomicInteger(1);

    public TmfCompletion(TmfRequest tmf) {
        this(() -> tmf.eventLoop().execute(() -> tmf.fabric().queueTmResponse(tmf)));
    }

    /** Runs {@code whenDone} on the thread that ends the last task (or calls {@link #scanDone()}). */
    public TmfCompletion(Runnable whenDone) {
        this.whenDone = whenDone;
    }

    /** One more task must end before the response (called under a task set's lock). */
    public void expectTask() {
        remaining.incrementAndGet();
    }

    /** A task this function aborted has ended (its abortedTask call is done). */
    public void taskEnded() {
        if (remaining.decrementAndGet() == 0) {
            whenDone.run();
        }
    }

    /** The function has found every affected task: drop the scan's own count. */
    public void scanDone() {
        taskEnded();
    }
}
