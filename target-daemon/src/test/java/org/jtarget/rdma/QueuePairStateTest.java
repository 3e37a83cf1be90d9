package org.jtarget.rdma;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class QueuePairStateTest {

    @Test
    void transitionsFollowTheIbaStateDiagram() {
        assertThat(QueuePairState.RESET.canMoveTo(QueuePairState.INIT)).isTrue();
        assertThat(QueuePairState.INIT.canMoveTo(QueuePairState.INIT)).isTrue();
        assertThat(QueuePairState.INIT.canMoveTo(QueuePairState.RTR)).isTrue();
        assertThat(QueuePairState.RTR.canMoveTo(QueuePairState.RTS)).isTrue();
        assertThat(QueuePairState.RTS.canMoveTo(QueuePairState.RTS)).isTrue();
        for (QueuePairState s : QueuePairState.values()) {
            assertThat(s.canMoveTo(QueuePairState.RESET)).as("%s -> RESET", s).isTrue();
            assertThat(s.canMoveTo(QueuePairState.ERROR)).as("%s -> ERROR", s).isTrue();
        }
        assertThat(QueuePairState.RESET.canMoveTo(QueuePairState.RTR)).isFalse();
        assertThat(QueuePairState.RESET.canMoveTo(QueuePairState.RTS)).isFalse();
        assertThat(QueuePairState.INIT.canMoveTo(QueuePairState.RTS)).isFalse();
        assertThat(QueuePairState.RTR.canMoveTo(QueuePairState.INIT)).isFalse();
        assertThat(QueuePairState.RTS.canMoveTo(QueuePairState.RTR)).isFalse();
        assertThat(QueuePairState.ERROR.canMoveTo(QueuePairState.INIT)).isFalse();
        assertThat(QueuePairState.ERROR.canMoveTo(QueuePairState.RTS)).isFalse();
    }
}
