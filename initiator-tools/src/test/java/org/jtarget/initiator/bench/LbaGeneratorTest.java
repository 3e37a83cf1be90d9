package org.jtarget.initiator.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class LbaGeneratorTest {

    @Test
    void randomLbasStayInsideTheRegionAlignedToTheCommandSize() {
        // region 1000..1000+803: 100 whole commands of 8 blocks, a 3-block tail never touched
        LbaGenerator g = new LbaGenerator(1000, 803, 8, new SplittableRandom(7), 0);
        Set<Long> seen = new HashSet<>();
        for (int i = 0; i < 20_000; i++) {
            long lba = g.next();
            assertThat(lba).isBetween(1000L, 1000L + 800 - 8);
            assertThat((lba - 1000) % 8).isZero();
            seen.add(lba);
        }
        assertThat(seen).as("every slot is drawn").hasSize(100);
        assertThat(g.slots()).isEqualTo(100);
    }

    @Test
    void sequentialLbasWalkInOrderFromTheStartSlotAndWrap() {
        LbaGenerator g = new LbaGenerator(16, 40, 8, null, 3);
        assertThat(new long[] {g.next(), g.next(), g.next(), g.next(), g.next(), g.next()})
                .containsExactly(40, 48, 16, 24, 32, 40);
    }

    @Test
    void sameSeedSameSequence() {
        LbaGenerator a = new LbaGenerator(0, 1 << 20, 8, new SplittableRandom(99), 0);
        LbaGenerator b = new LbaGenerator(0, 1 << 20, 8, new SplittableRandom(99), 0);
        for (int i = 0; i < 100; i++) {
            assertThat(a.next()).isEqualTo(b.next());
        }
    }

    @Test
    void aRegionSmallerThanOneCommandIsRefused() {
        assertThatThrownBy(() -> new LbaGenerator(0, 7, 8, null, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void sessionsStartTheirSequentialWalksSpreadOverTheRegion() {
        SessionPlan plan = new SessionPlan(0, 4096, 8, 4, 100, 0, 800, false, 4, 1);
        assertThat(new long[] {plan.lbas(0).next(), plan.lbas(1).next(), plan.lbas(2).next(), plan.lbas(3).next()})
                .containsExactly(0, 200, 400, 600);
    }
}
