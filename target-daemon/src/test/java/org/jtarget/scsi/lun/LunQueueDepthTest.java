package org.jtarget.scsi.lun;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LunQueueDepthTest {

    /** Records what the queue tells it. */
    record Recorder(String name, List<String> events) implements LunQueueDepth.Waiter {
        @Override public void admitted() { events.add(name + " admitted"); }
    }

    @Test
    void admitsUpToTheLimitThenQueuesInArrivalOrder() {
        List<String> events = new ArrayList<>();
        LunQueueDepth q = new LunQueueDepth(2);
        assertThat(q.enter(new Recorder("a", events))).isTrue();
        assertThat(q.enter(new Recorder("b", events))).isTrue();
        assertThat(q.enter(new Recorder("c", events))).isFalse();
        assertThat(q.enter(new Recorder("d", events))).isFalse();
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
        assertThat(q.enter(new Recorder("c", events))).isFalse();
        assertThat(events).containsExactly("b admitted");
    }

    @Test
    void cancelTakesOneParkedWaiterOut() {
        List<String> events = new ArrayList<>();
        LunQueueDepth q = new LunQueueDepth(1);
        Recorder b = new Recorder("b", events);
        q.enter(new Recorder("a", events));
        q.enter(b);
        q.enter(new Recorder("c", events));
        assertThat(q.cancel(b)).isTrue();
        assertThat(q.cancel(b)).isFalse();
        q.exit();
        assertThat(events).containsExactly("c admitted");
        assertThat(q.cancel(new Recorder("c", events))).as("admitted: no longer parked").isFalse();
    }

    @Test
    void limitMustBePositive() {
        assertThatThrownBy(() -> new LunQueueDepth(0)).isInstanceOf(IllegalArgumentException.class);
    }
}
