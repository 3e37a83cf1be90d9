package org.jtarget.scsi.lun;

import org.jtarget.io.LunIoExecutors;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

class MediumWatchTest {

    private final TestStore shared = new TestStore(512, 8, false, false, 0, "shared");
    private final TestStore other = new TestStore(512, 8, false, false, 0, "other");
    private final ScsiTargetCore core = new ScsiTargetCore("iqn.t", List.of(
            new LogicalUnitDefinition(0, shared, false, false), new LogicalUnitDefinition(1, shared, false, false),
            new LogicalUnitDefinition(2, other, false, false)), new LunIoExecutors(name -> Runnable::run));
    private final AtomicReference<String> sharedMissing = new AtomicReference<>();
    private final AtomicInteger sharedCalls = new AtomicInteger();
    private final MediumWatch watch = new MediumWatch();

    MediumWatchTest() {
        MediumWatch.Probe probe = () -> {
            sharedCalls.incrementAndGet();
            return sharedMissing.get();
        };
        watch.watch(core.logicalUnit(0), probe);
        watch.watch(core.logicalUnit(1), probe);
        watch.watch(core.logicalUnit(2), () -> null);
    }

    @Test
    void presentMediumLeavesEveryLuOnline() {
        watch.checkNow();
        assertThat(watch.size()).isEqualTo(2);
        assertThat(sharedCalls).hasValue(1);
        assertThat(core.logicalUnits()).noneMatch(lu -> lu.medium().offline());
    }

    @Test
    void vanishedMediumTakesEveryLuOfThatStoreOfflineAndIsNotProbedAgain() {
        sharedMissing.set("/x.img was deleted");
        watch.checkNow();
        assertThat(core.logicalUnit(0).medium().offline()).isTrue();
        assertThat(core.logicalUnit(1).medium().offline()).isTrue();
        assertThat(core.logicalUnit(2).medium().offline()).isFalse();
        watch.checkNow();
        assertThat(sharedCalls).hasValue(1);
        assertThat(core.logicalUnit(0).takeOffline("again")).isFalse(); // logged once, not per check
    }

    @Test
    void anUnwatchedLuIsNotTakenOfflineAndItsLastProbeIsDropped() {
        watch.unwatch(core.logicalUnit(1));
        watch.unwatch(core.logicalUnit(2));
        assertThat(watch.size()).isEqualTo(1);
        sharedMissing.set("/x.img was deleted");
        watch.checkNow();
        assertThat(core.logicalUnit(0).medium().offline()).isTrue();
        assertThat(core.logicalUnit(1).medium().offline()).as("it left its target: no news").isFalse();
    }

    @Test
    void aProbeThatThrowsIsSkipped() {
        MediumWatch w = new MediumWatch();
        w.watch(core.logicalUnit(2), () -> {
            throw new IllegalStateException("boom");
        });
        w.checkNow();
        assertThat(core.logicalUnit(2).medium().offline()).isFalse();
    }
}
