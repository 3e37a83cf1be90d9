package org.jtarget.initiator.rdma;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jtarget.rdma.CompletionQueue;
import org.jtarget.rdma.WorkCompletion;
import org.junit.jupiter.api.Test;

class CompletionDispatchTest {

    private final CompletionWaiter waiter = new CompletionWaiter();
    private final CompletionDispatch dispatch = new CompletionDispatch(waiter);
    private final CompletionQueue cq = new CompletionQueue(4, dispatch);
    private final List<Runnable> scheduled = new ArrayList<>();
    private final Runnable step = () -> { };

    @Test
    void anArmedStepIsScheduledOnItsLoopOnceAndTheWaiterStaysAsleep() throws InterruptedException {
        dispatch.arm(scheduled::add, step);

        dispatch.completionEvent(cq);
        dispatch.completionEvent(cq);

        assertThat(scheduled).containsExactly(step);
        assertThat(dispatch.disarm(step)).as("already scheduled").isFalse();
        assertThat(waiter.pollWithin(cq, new WorkCompletion[] {new WorkCompletion()},
                TimeUnit.MILLISECONDS.toNanos(10))).isZero();
    }

    @Test
    void aDisarmedStepIsNotScheduled() {
        dispatch.arm(scheduled::add, step);

        assertThat(dispatch.disarm(step)).isTrue();
        dispatch.completionEvent(cq);

        assertThat(scheduled).isEmpty();
    }
}
