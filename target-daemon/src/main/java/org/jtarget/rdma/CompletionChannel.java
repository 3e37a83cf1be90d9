package org.jtarget.rdma;

/**
 * Receives completion events, after libibverbs {@code ibv_comp_channel}: after
 * {@link CompletionQueue#requestNotify(boolean)} the next matching completion calls
 * {@link #completionEvent} once (the notification is one-shot, ibv_req_notify_cq(3)); the consumer
 * polls, re-arms, and polls again to close the race. The call is made with no verbs lock held, on
 * the thread that added the completion or on the next thread that calls into the queue pair —
 * possibly re-entrantly, inside that thread's own {@code postSend} — so keep counters consistent
 * before posting. It must not block.
 */
@FunctionalInterface
public interface CompletionChannel {

    /** The armed queue has a new completion. */
    void completionEvent(CompletionQueue cq);
}
