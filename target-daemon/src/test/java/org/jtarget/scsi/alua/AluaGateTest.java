package org.jtarget.scsi.alua;

import org.jtarget.scsi.lun.CoreHarness.Result;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.jtarget.scsi.alua.AluaFixture.A1;
import static org.jtarget.scsi.alua.AluaFixture.C2;
import static org.jtarget.scsi.lun.Cdbs.of;

/** The ALUA step of the command gate (SPC-4 5.15.2.4), through group 2 in each state. */
class AluaGateTest {

    private static void assertNotAccessible(Result r, int ascq) {
        assertThat(r.status()).isEqualTo(2);
        assertThat(new int[] {r.senseKey(), r.asc(), r.ascq()}).containsExactly(2, 0x04, ascq);
    }

    @Test
    void standbyRefusesReadButAnswersInquiry() {
        AluaFixture f = new AluaFixture(AluaState.STANDBY);
        assertNotAccessible(f.read10(C2), 0x0B);
        assertNotAccessible(f.tur(C2), 0x0B);
        assertThat(f.inquiry(C2).status()).isZero();
        assertThat(f.read10(A1).status()).as("the active group is unaffected").isZero();
    }

    @Test
    void standbyAnswersItsListOfCommands() {
        AluaFixture f = new AluaFixture(AluaState.STANDBY);
        assertThat(f.h.run(C2, of(0x1A, 0, 0x3F, 0, 255, 0), 255, null).status()).as("MODE SENSE(6)").isZero();
        assertThat(f.h.run(C2, of(0x5E, 0, 0, 0, 0, 0, 0, 0, 255, 0), 255, null).status()).as("PR IN").isZero();
        assertThat(f.h.run(C2, of(0x03, 0, 0, 0, 18, 0), 18, null).status()).as("REQUEST SENSE").isZero();
        assertThat(f.h.run(C2, of(0xA0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0), 256, null).status()).isZero();
        assertThat(f.rtpg(C2, 0).status()).isZero();
    }

    /**
     * Linux's sd sizes a disk by READ CAPACITY when the path appears; refused on a standby path
     * (an HA secondary's), the disk stays at 0 sectors and, once that node is promoted, every
     * write multipath sends through it fails "access beyond end of device" (seen with
     * GuestHaFailoverIT). The capacity is the LU's, the same through every port group.
     */
    @Test
    void standbyAnswersReadCapacity() {
        AluaFixture f = new AluaFixture(AluaState.STANDBY);
        assertThat(f.h.run(C2, of(0x25, 0, 0, 0, 0, 0, 0, 0, 0, 0), 8, null).status()).as("READ CAPACITY(10)")
                .isZero();
        assertThat(f.h.run(C2, of(0x9E, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 32, 0, 0), 32, null).status())
                .as("READ CAPACITY(16)").isZero();
        AluaFixture unavailable = new AluaFixture(AluaState.UNAVAILABLE);
        assertNotAccessible(unavailable.h.run(C2, of(0x25, 0, 0, 0, 0, 0, 0, 0, 0, 0), 8, null), 0x0C);
    }

    @Test
    void unavailableRefusesModeSenseButTakesSetTargetPortGroups() {
        AluaFixture f = new AluaFixture(AluaState.UNAVAILABLE);
        assertNotAccessible(f.h.run(C2, of(0x1A, 0, 0x3F, 0, 255, 0), 255, null), 0x0C);
        assertNotAccessible(f.read10(C2), 0x0C);
        assertThat(f.inquiry(C2).status()).isZero();
        assertThat(f.stpg(C2, AluaFixture.stpgList(0x1, 2)).status()).isZero();
        assertThat(f.read10(C2).status()).isZero();
    }

    @Test
    void transitioningAnswersOnlyItsList() {
        AluaFixture f = new AluaFixture(AluaState.ACTIVE_OPTIMIZED);
        f.h.core.changeAluaState(2, AluaState.TRANSITIONING);
        f.tur(C2); // the unit attention
        assertNotAccessible(f.read10(C2), 0x0A);
        assertNotAccessible(f.stpg(C2, AluaFixture.stpgList(0x0, 2)), 0x0A);
        assertThat(f.inquiry(C2).status()).isZero();
        assertThat(f.rtpg(C2, 1).status()).isZero();
    }

    @Test
    void activeNonOptimizedAllowsEverything() {
        AluaFixture f = new AluaFixture(AluaState.ACTIVE_NON_OPTIMIZED);
        assertThat(f.read10(C2).status()).isZero();
        assertThat(f.tur(C2).status()).isZero();
    }

    @Test
    void unitAttentionComesBeforeTheAccessState() {
        AluaFixture f = new AluaFixture(AluaState.ACTIVE_OPTIMIZED);
        f.h.core.changeAluaState(2, AluaState.STANDBY);
        Result r = f.read10(C2);
        assertThat(new int[] {r.senseKey(), r.asc(), r.ascq()}).containsExactly(6, 0x2A, 0x06);
        assertNotAccessible(f.read10(C2), 0x0B);
    }
}
