package org.jtarget.rdma;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class CompletionQueueTest {

    private static void add(CompletionQueue cq, long wrId, WorkCompletionStatus st, boolean solicited) {
        cq.add(wrId, st, WorkCompletionOpcode.RECV, 0, 1, 0, 0, 0, solicited);
    }

    private static WorkCompletion[] slots(int n) {
        WorkCompletion[] w = new WorkCompletion[n];
        for (int i = 0; i < n; i++) {
            w[i] = new WorkCompletion();
        }
        return w;
    }

    @Test
    void pollReturnsOldestFirstAndAtMostMax() {
        CompletionQueue cq = new CompletionQueue(8, null);
        for (int i = 0; i < 5; i++) {
            add(cq, i, WorkCompletionStatus.SUCCESS, false);
        }
        WorkCompletion[] out = slots(3);
        assertThat(cq.poll(out, 3)).isEqualTo(3);
        assertThat(out[0].wrId).isZero();
        assertThat(out[2].wrId).isEqualTo(2);
        assertThat(cq.poll(out, 3)).isEqualTo(2);
        assertThat(out[0].wrId).isEqualTo(3);
        assertThat(cq.poll(out, 3)).isZero();
    }

    @Test
    void notificationIsOneShotAndNeedsArming() {
        List<CompletionQueue> events = new ArrayList<>();
        CompletionQueue cq = new CompletionQueue(8, events::add);
        add(cq, 1, WorkCompletionStatus.SUCCESS, false);
        cq.fireEvent();
        assertThat(events).isEmpty();
        cq.requestNotify(false);
        add(cq, 2, WorkCompletionStatus.SUCCESS, false);
        add(cq, 3, WorkCompletionStatus.SUCCESS, false);
        cq.fireEvent();
        cq.fireEvent();
        assertThat(events).hasSize(1);
    }

    @Test
    void solicitedOnlyWaitsForSolicitedOrError() {
        List<CompletionQueue> events = new ArrayList<>();
        CompletionQueue cq = new CompletionQueue(8, events::add);
        cq.requestNotify(true);
        add(cq, 1, WorkCompletionStatus.SUCCESS, false);
        cq.fireEvent();
        assertThat(events).isEmpty();
        add(cq, 2, WorkCompletionStatus.SUCCESS, true);
        cq.fireEvent();
        assertThat(events).hasSize(1);
        cq.requestNotify(true);
        add(cq, 3, WorkCompletionStatus.WR_FLUSH_ERR, false);
        cq.fireEvent();
        assertThat(events).hasSize(2);
    }

    @Test
    void overflowIsFatal() {
        CompletionQueue cq = new CompletionQueue(2, null);
        for (int i = 0; i < 3; i++) {
            add(cq, i, WorkCompletionStatus.SUCCESS, false);
        }
        assertThat(cq.poll(slots(4), 4)).isEqualTo(-1);
    }
}
