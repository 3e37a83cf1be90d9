package org.jtarget.scsi.sbc;

import org.jtarget.scsi.lun.CoreHarness;
import org.jtarget.scsi.lun.CoreHarness.Result;
import org.jtarget.scsi.lun.LogicalUnitDefinition;
import org.jtarget.scsi.lun.TestStore;
import org.jtarget.scsi.spi.ScsiStatus;
import org.jtarget.scsi.spi.TmfRequest;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.jtarget.scsi.lun.CoreHarness.NEXUS_A;
import static org.jtarget.scsi.lun.CoreHarness.NEXUS_B;
import static org.jtarget.scsi.lun.Cdbs.of;
import static org.jtarget.scsi.lun.Cdbs.rw10;

/** START STOP UNIT and PREVENT ALLOW MEDIUM REMOVAL on removable and fixed LUs (SBC-4 5.15, 5.25). */
class SbcStartStopUnitTest {

    private static final byte[] TUR = of(0x00, 0, 0, 0, 0, 0);
    private static final byte[] EJECT = of(0x1B, 0, 0, 0, 0x02, 0);
    private static final byte[] LOAD = of(0x1B, 0, 0, 0, 0x03, 0);
    private static final byte[] STOP = of(0x1B, 0, 0, 0, 0x00, 0);
    private static final byte[] START = of(0x1B, 0, 0, 0, 0x01, 0);
    private static final byte[] PREVENT = of(0x1E, 0, 0, 0, 1, 0);
    private static final byte[] ALLOW = of(0x1E, 0, 0, 0, 0, 0);

    private static CoreHarness removable() {
        return new CoreHarness(List.of(new LogicalUnitDefinition(0, new TestStore(512, 1024, true, false), false, true)));
    }

    private static void assertSense(Result r, int key, int asc, int ascq) {
        assertThat(r.status()).isEqualTo(ScsiStatus.CHECK_CONDITION);
        assertThat(new int[] {r.senseKey(), r.asc(), r.ascq()}).containsExactly(key, asc, ascq);
    }

    @Test
    void ejectGivesMediumNotPresentUntilLoaded() {
        CoreHarness h = removable();
        assertThat(h.run(EJECT).status()).isEqualTo(ScsiStatus.GOOD);
        assertSense(h.run(TUR), 0x02, 0x3A, 0x00);
        assertSense(h.run(rw10(0x28, 0, 0, 1), 512, null), 0x02, 0x3A, 0x00);
        assertSense(h.run(of(0x25, 0, 0, 0, 0, 0, 0, 0, 0, 0), 8, null), 0x02, 0x3A, 0x00);
        assertThat(h.run(LOAD).status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(h.run(TUR).status()).isEqualTo(ScsiStatus.GOOD);
    }

    @Test
    void writeToEjectedMediumIsRefusedBeforeDataOut() {
        CoreHarness h = removable();
        h.run(EJECT);
        assertSense(h.run(rw10(0x2A, 0, 0, 1), 512, new byte[512]), 0x02, 0x3A, 0x00);
        assertThat(h.events).noneMatch(e -> e.startsWith("writePending"));
    }

    @Test
    void loadRaisesNotReadyToReadyForOtherNexuses() {
        CoreHarness h = removable();
        h.core.nexusLoggedIn(NEXUS_B);
        h.run(EJECT);
        h.run(LOAD);
        assertThat(h.run(TUR).status()).isEqualTo(ScsiStatus.GOOD);
        assertSense(h.run(NEXUS_B, TUR, 0, null), 0x06, 0x28, 0x00);
    }

    @Test
    void ejectAndLoadWhilePreventedGiveMediumRemovalPrevented() {
        CoreHarness h = removable();
        assertThat(h.run(PREVENT).status()).isEqualTo(ScsiStatus.GOOD);
        assertSense(h.run(EJECT), 0x05, 0x53, 0x02);
        assertSense(h.run(NEXUS_B, EJECT, 0, null), 0x05, 0x53, 0x02);
        assertThat(h.run(TUR).status()).isEqualTo(ScsiStatus.GOOD);
        h.run(ALLOW);
        assertThat(h.run(EJECT).status()).isEqualTo(ScsiStatus.GOOD);
        h.run(PREVENT);
        assertSense(h.run(LOAD), 0x05, 0x53, 0x02);
    }

    @Test
    void preventionEndsWithNexusLoss() {
        CoreHarness h = removable();
        h.run(PREVENT);
        h.core.nexusLoggedOut(NEXUS_A);
        assertThat(h.run(NEXUS_B, EJECT, 0, null).status()).isEqualTo(ScsiStatus.GOOD);
    }

    @Test
    void preventionEndsWithLogicalUnitReset() {
        CoreHarness h = removable();
        h.run(PREVENT);
        h.tmf(TmfRequest.Function.LOGICAL_UNIT_RESET, NEXUS_A, 0, 9);
        h.run(TUR); // the reset's unit attention
        assertThat(h.run(EJECT).status()).isEqualTo(ScsiStatus.GOOD);
    }

    @Test
    void preventionEndsWithTargetWarmReset() {
        CoreHarness h = removable();
        h.run(PREVENT);
        h.tmf(TmfRequest.Function.TARGET_WARM_RESET, NEXUS_A, 0, 9);
        h.run(TUR);
        assertThat(h.run(EJECT).status()).isEqualTo(ScsiStatus.GOOD);
    }

    @Test
    void obsoletePreventValuesAreInvalidFieldInCdb() {
        assertSense(removable().run(of(0x1E, 0, 0, 0, 2, 0)), 0x05, 0x24, 0x00);
    }

    @Test
    void stopFlushesTheCacheAndLeavesTheUnitReady() {
        TestStore store = new TestStore(512, 1024, true, false);
        CoreHarness h = new CoreHarness(List.of(new LogicalUnitDefinition(0, store, false, true)));
        h.run(TUR); // the power-on unit attention
        assertThat(h.run(STOP).status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(store.calls).contains("flush 0 0");
        assertThat(h.run(TUR).status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(h.run(rw10(0x28, 0, 0, 1), 512, null).status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(h.run(START).status()).isEqualTo(ScsiStatus.GOOD);
    }

    @Test
    void stopWithNoFlushDoesNotFlush() {
        TestStore store = new TestStore(512, 1024, true, false);
        CoreHarness h = new CoreHarness(List.of(new LogicalUnitDefinition(0, store, false, true)));
        h.run(TUR);
        assertThat(h.run(of(0x1B, 0, 0, 0, 0x04, 0)).status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(store.calls).doesNotContain("flush 0 0");
    }

    @Test
    void everyPowerConditionValueIsAcceptedAndLeavesTheMediumLoaded() {
        CoreHarness h = removable();
        h.run(TUR);
        for (int pc = 1; pc < 16; pc++) {
            // IMMED, LOEJ = 1, START = 0 like libiscsi StartStopUnit.PwrCnd: LOEJ is ignored
            assertThat(h.run(of(0x1B, 1, 0, 0, pc << 4 | 0x02, 0)).status()).as("PC %x", pc)
                    .isEqualTo(ScsiStatus.GOOD);
            assertThat(h.run(TUR).status()).as("TUR after PC %x", pc).isEqualTo(ScsiStatus.GOOD);
        }
    }

    @Test
    void ejectOnFixedLuIsInvalidFieldInCdb() {
        CoreHarness h = CoreHarness.of(new TestStore(512, 1024, true, false), false);
        assertSense(h.run(EJECT), 0x05, 0x24, 0x00);
        assertSense(h.run(PREVENT), 0x05, 0x24, 0x00);
        assertThat(h.run(TUR).status()).isEqualTo(ScsiStatus.GOOD);
    }

    @Test
    void powerConditionIgnoresLoej() {
        CoreHarness h = removable();
        assertThat(h.run(of(0x1B, 1, 0, 0, 0x12, 0)).status()).isEqualTo(ScsiStatus.GOOD); // IDLE + LOEJ
        assertThat(h.run(TUR).status()).isEqualTo(ScsiStatus.GOOD);
    }

    @Test
    void preventWithReservationHeldByOtherNexusConflicts() {
        CoreHarness h = removable();
        h.run(NEXUS_B, of(0x16, 0, 0, 0, 0, 0), 0, null); // RESERVE(6)
        assertThat(h.run(PREVENT).status()).isEqualTo(ScsiStatus.RESERVATION_CONFLICT);
    }
}
