package org.jtarget.io;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LunQueueDepthTest {

    /** Records what the queue tells it. */
    static final class Recorder implements LunQueueDepth.Waiter {
        final String name;
        final List<String> events;

        Recorder(String name, List<String> events) {
            this.name = name;
            this.events = events;
        }

        @Override public void admitted() { events.add(name + " admitted"); }
        @Override public void cancelled() { events.add(name + " cancelled"); }
    }

    @Test
    void admitsUpToTheLimitThenQueuesInArrivalOrder() {
        List<String> events = new ArrayList<>();
        LunQueueDepth q = new LunQueueDepth(2);
        assertThat(q.enter(new Recorder("a", events))).isEqualTo(LunQueueDepth.ADMITTED);
        assertThat(q.enter(new Recorder("b", events))).isEqualTo(LunQueueDepth.ADMITTED);
        assertThat(q.enter(new Recorder("c", events))).isEqualTo(0);
        assertThat(q.enter(new Recorder("d", events))).isEqualTo(0);
        assertThat(q.outstanding()).isEqualTo(2);
        assertThat(q.waiting()).isEqualTo(2);
        q.exit();
        assertThat(events).containsExactly("c admitted");
        assertThat(q.outstanding()).as("the slot passed to c").isEqualTo(2);
        q.exit();
        q.exit();
        q.exit();
        assertThat(events).containsExactly("c admitted", "d admitted");
        assertThat(q.outstanding()).isZero();
        q.exit();
        assertThat(q.outstanding()).as("never negative").isZero();
    }

    @Test
    void aNewcomerDoesNotOvertakeWaiters() {
        List<String> events = new ArrayList<>();
        LunQueueDepth q = new LunQueueDepth(1);
        q.enter(new Recorder("a", events));
        q.enter(new Recorder("b", events));
        q.exit(); // b holds the slot now
        assertThat(q.enter(new Recorder("c", events))).isNotEqualTo(LunQueueDepth.ADMITTED);
        assertThat(events).containsExactly("b admitted");
    }

    @Test
    void cancelTakesOneWaiterOutAndCancelAllEveryWaiterWithANewGeneration() {
        List<String> events = new ArrayList<>();
        LunQueueDepth q = new LunQueueDepth(1);
        Recorder b = new Recorder("b", events);
        q.enter(new Recorder("a", events));
        q.enter(b);
        q.enter(new Recorder("c", events));
        assertThat(q.cancel(b)).isTrue();
        assertThat(q.cancel(b)).isFalse();
        q.enter(new Recorder("d", events));
        q.cancelAll();
        assertThat(events).containsExactly("c cancelled", "d cancelled");
        assertThat(q.generation()).isEqualTo(1);
        assertThat(q.enter(new Recorder("e", events))).isEqualTo(1);
        q.exit();
        assertThat(events).endsWith("e admitted");
    }

    @Test
    void limitMustBePositive() {
        assertThatThrownBy(() -> new LunQueueDepth(0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void depthsAreFoundByTargetNameIgnoringCaseAndLun() {
        LunQueueDepths depths = new LunQueueDepths().limit("iqn.2026-01.org.X:t", 3, 8);
        assertThat(depths.forTarget("IQN.2026-01.org.x:T")).hasSize(4);
        assertThat(depths.forTarget("iqn.2026-01.org.x:t")[3].limit()).isEqualTo(8);
        assertThat(depths.forTarget("iqn.2026-01.org.x:t")[0]).isNull();
        assertThat(depths.forTarget("other")).isEmpty();
        assertThat(LunQueueDepths.NONE.forTarget(null)).isEmpty();
    }
}
