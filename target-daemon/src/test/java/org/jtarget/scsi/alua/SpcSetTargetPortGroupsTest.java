package org.jtarget.scsi.alua;

import org.jtarget.scsi.lun.CoreHarness.Result;
import org.jtarget.scsi.spi.ITNexus;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.jtarget.scsi.alua.AluaFixture.A1;
import static org.jtarget.scsi.alua.AluaFixture.B1;
import static org.jtarget.scsi.alua.AluaFixture.C2;

class SpcSetTargetPortGroupsTest {

    private final AluaFixture f = new AluaFixture(AluaState.ACTIVE_OPTIMIZED);

    private static void assertSense(Result r, int key, int asc, int ascq) {
        assertThat(r.status()).isEqualTo(2);
        assertThat(new int[] {r.senseKey(), r.asc(), r.ascq()}).containsExactly(key, asc, ascq);
    }

    private Result tur(ITNexus n, int lun) {
        return f.h.results.get(f.h.submit(n, lun, 9, new byte[6], 0, null));
    }

    @Test
    void changesTheStateAndRaisesTheUnitAttentionOnEveryOtherNexusOfEveryLu() {
        assertThat(f.stpg(A1, AluaFixture.stpgList(0x2, 2)).status()).isZero();
        assertThat(f.h.core.portGroups().stateOf(2)).isEqualTo(AluaState.STANDBY);
        assertThat(tur(A1, 0).status()).as("not on the nexus that asked").isZero();
        assertSense(tur(B1, 0), 6, 0x2A, 0x06);
        assertSense(tur(B1, 1), 6, 0x2A, 0x06);
        assertThat(tur(B1, 0).status()).as("reported once").isZero();
        assertSense(tur(C2, 1), 6, 0x2A, 0x06);
        assertSense(tur(C2, 1), 2, 0x04, 0x0B);
    }

    /**
     * Implicit ALUA only (an HA node, whose groups are its role in the pair): INQUIRY says TPGS
     * 01b, and SET TARGET PORT GROUPS is not supported, so an initiator activating a standby path
     * (Linux's scsi_dh_alua does on a path group switch) cannot make a secondary serve.
     */
    @Test
    void implicitOnlyGroupsRefuseTheChangeAndSayItInInquiry() {
        AluaFixture ha = new AluaFixture(AluaState.STANDBY, false);
        Result refused = ha.stpg(C2, AluaFixture.stpgList(0x0, 2));
        assertSense(refused, 5, 0x24, 0x00);
        assertThat(ha.h.core.portGroups().stateOf(2)).as("group 2 unchanged").isEqualTo(AluaState.STANDBY);
        assertThat(ha.inquiry(C2).dataIn()[5] & 0x30).as("TPGS: implicit only").isEqualTo(0x10);
        assertThat(f.inquiry(C2).dataIn()[5] & 0x30).as("TPGS: implicit and explicit").isEqualTo(0x30);
    }

    /** REPORT SUPPORTED OPERATION CODES agrees: an implicit-only target's LU does not list SET TARGET PORT GROUPS. */
    @Test
    void implicitOnlyGroupsDoNotListTheCommand() {
        AluaFixture ha = new AluaFixture(AluaState.STANDBY, false);
        byte[] oneCommand = {(byte) 0xA3, 0x0C, 0x02, (byte) 0xA4, 0x00, 0x0A, 0, 0, 0x10, 0, 0, 0};
        assertThat(ha.h.run(A1, oneCommand, 4096, null).dataIn()[1] & 0x07).as("SUPPORT: 001b, not supported")
                .isEqualTo(1);
        assertThat(f.h.run(A1, oneCommand, 4096, null).dataIn()[1] & 0x07).as("SUPPORT: 011b, supported")
                .isEqualTo(3);
    }

    @Test
    void severalDescriptorsChangeSeveralGroups() {
        assertThat(f.stpg(A1, AluaFixture.stpgList(0x1, 1, 0x3, 2)).status()).isZero();
        assertThat(f.h.core.portGroups().stateOf(1)).isEqualTo(AluaState.ACTIVE_NON_OPTIMIZED);
        assertThat(f.h.core.portGroups().stateOf(2)).isEqualTo(AluaState.UNAVAILABLE);
    }

    @Test
    void settingTheCurrentStateRaisesNothing() {
        assertThat(f.stpg(A1, AluaFixture.stpgList(0x0, 1)).status()).isZero();
        assertThat(tur(B1, 0).status()).isZero();
    }

    @Test
    void emptyListChangesNothing() {
        assertThat(f.h.run(A1, AluaFixture.stpgCdb(0), 0, null).status()).isZero();
        assertThat(f.stpg(A1, AluaFixture.stpgList()).status()).isZero();
    }

    @Test
    void unsettableStatesAreInvalidFieldInParameterList() {
        for (int state : new int[] {0x4, 0xE, 0xF, 0x7}) {
            assertSense(f.stpg(A1, AluaFixture.stpgList(0x2, 1, state, 2)), 5, 0x26, 0x00);
        }
        assertThat(f.h.core.portGroups().stateOf(1)).as("all or nothing").isEqualTo(AluaState.ACTIVE_OPTIMIZED);
    }

    @Test
    void unknownOrRepeatedGroupIsInvalidFieldInParameterList() {
        assertSense(f.stpg(A1, AluaFixture.stpgList(0x2, 7)), 5, 0x26, 0x00);
        assertSense(f.stpg(A1, AluaFixture.stpgList(0x2, 2, 0x1, 2)), 5, 0x26, 0x00);
        assertThat(f.h.core.portGroups().stateOf(2)).isEqualTo(AluaState.ACTIVE_OPTIMIZED);
    }

    @Test
    void lengthCuttingADescriptorIsAParameterListLengthErrorBeforeDataMoves() {
        Result r = f.h.run(A1, AluaFixture.stpgCdb(6), 6, new byte[6]);
        assertSense(r, 5, 0x1A, 0x00);
        assertThat(f.h.events).doesNotContain("writePending 6");
    }

    @Test
    void aStandbyOrUnavailableGroupMayMakeItselfActive() {
        f.h.core.changeAluaState(2, AluaState.UNAVAILABLE);
        tur(C2, 0); // the unit attention of the implicit change
        assertThat(f.stpg(C2, AluaFixture.stpgList(0x0, 2)).status()).isZero();
        assertThat(tur(C2, 0).status()).as("this nexus made the change, and may read").isZero();
        assertThat(f.read10(C2).status()).isZero();
    }

    @Test
    void implicitChangeRaisesTheUnitAttentionOnEveryNexus() {
        assertThat(f.h.core.changeAluaState(1, AluaState.ACTIVE_NON_OPTIMIZED)).isTrue();
        for (ITNexus n : new ITNexus[] {A1, B1, C2}) {
            assertSense(tur(n, 0), 6, 0x2A, 0x06);
        }
        assertThat(f.h.core.changeAluaState(42, AluaState.STANDBY)).isFalse();
    }
}
