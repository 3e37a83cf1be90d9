package org.jtarget.scsi.alua;

import org.jtarget.scsi.lun.CoreHarness.Result;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.jtarget.scsi.alua.AluaFixture.A1;
import static org.jtarget.scsi.alua.AluaFixture.C2;

class SpcReportTargetPortGroupsTest {

    private final AluaFixture f = new AluaFixture(AluaState.STANDBY);

    /** SPC-4 table 179: one 8-byte descriptor and one 4-byte port per group, ascending by group. */
    private static void assertTwoGroups(byte[] d, int at) {
        assertThat(d[at] & 0xFF).as("PREF | active/optimized").isEqualTo(0x80);
        assertThat(d[at + 1] & 0xFF).as("T_SUP U_SUP S_SUP AN_SUP AO_SUP").isEqualTo(0x8F);
        assertThat(d[at + 2] << 8 | d[at + 3]).isEqualTo(1);
        assertThat(d[at + 5]).as("STATUS CODE").isZero();
        assertThat(d[at + 7]).as("TARGET PORT COUNT").isEqualTo((byte) 1);
        assertThat(d[at + 10] << 8 | d[at + 11]).as("RELATIVE TARGET PORT IDENTIFIER").isEqualTo(1);
        at += 12;
        assertThat(d[at] & 0xFF).as("standby, not preferred").isEqualTo(0x02);
        assertThat(d[at + 2] << 8 | d[at + 3]).isEqualTo(2);
        assertThat(d[at + 7]).isEqualTo((byte) 1);
        assertThat(d[at + 10] << 8 | d[at + 11]).isEqualTo(2);
    }

    @Test
    void lengthOnlyFormatListsBothGroupsWithTheirStates() {
        byte[] d = f.rtpg(A1, 0).dataIn();
        assertThat(d).hasSize(4 + 24);
        assertThat(d[3]).as("RETURN DATA LENGTH").isEqualTo((byte) 24);
        assertTwoGroups(d, 4);
    }

    @Test
    void extendedFormatHasTheHeaderWithImplicitTransitionTime() {
        byte[] d = f.rtpg(A1, 1).dataIn();
        assertThat(d).hasSize(8 + 24);
        assertThat(d[3]).as("RETURN DATA LENGTH counts the header's last 4 bytes").isEqualTo((byte) 28);
        assertThat(d[4] & 0x70).as("FORMAT TYPE 001b").isEqualTo(0x10);
        assertThat(d[5]).as("IMPLICIT TRANSITION TIME").isZero();
        assertTwoGroups(d, 8);
    }

    @Test
    void answeredThroughAStandbyGroup() {
        assertThat(f.rtpg(C2, 0).status()).isZero();
    }

    @Test
    void allocationLengthCutsTheDataButNotTheReturnDataLength() {
        byte[] d = f.h.run(A1, AluaFixture.rtpg(0, 6), 6, null).dataIn();
        assertThat(d).hasSize(6);
        assertThat(d[3]).isEqualTo((byte) 24);
    }

    @Test
    void reservedParameterDataFormatIsInvalidFieldInCdb() {
        Result r = f.h.run(A1, AluaFixture.rtpg(2, 4096), 4096, null);
        assertThat(r.status()).isEqualTo(2);
        assertThat(r.senseKey()).isEqualTo(5);
        assertThat(r.asc()).isEqualTo(0x24);
    }

    @Test
    void statusCodeSaysHowTheStateWasLastChanged() {
        f.stpg(A1, AluaFixture.stpgList(0x1, 2));
        assertThat(f.rtpg(A1, 0).dataIn()[4 + 12 + 5]).as("explicit").isEqualTo((byte) 1);
        f.h.core.changeAluaState(2, AluaState.UNAVAILABLE);
        f.tur(A1); // takes the ASYMMETRIC ACCESS STATE CHANGED unit attention
        byte[] d = f.rtpg(A1, 0).dataIn();
        assertThat(d[4 + 12] & 0x0F).isEqualTo(3);
        assertThat(d[4 + 12 + 5]).as("implicit").isEqualTo((byte) 2);
    }

    @Test
    void aCoreWithoutConfiguredGroupsReportsTheGroupsNexusesLoggedInThrough() {
        byte[] d = org.jtarget.scsi.lun.CoreHarness.of(new org.jtarget.scsi.lun.TestStore(512, 8, true, false), false)
                .run(AluaFixture.rtpg(0, 4096), 4096, null).dataIn();
        assertThat(d).hasSize(4); // the harness's nexus never logged in: no group yet
        AluaFixture g = new AluaFixture(AluaState.ACTIVE_OPTIMIZED);
        g.h.core.nexusLoggedIn(new org.jtarget.scsi.spi.ITNexus(org.jtarget.scsi.spi.ProtocolId.ISCSI, "iqn.d", "iqn.d,i,0x4", "iqn.t,t,0x0009", 9, 9));
        assertThat(g.rtpg(A1, 0).dataIn()).hasSize(4 + 36);
    }
}
