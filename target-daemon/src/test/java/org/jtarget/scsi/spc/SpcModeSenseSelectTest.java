package org.jtarget.scsi.spc;

import org.jtarget.scsi.lun.CoreHarness;
import org.jtarget.scsi.lun.CoreHarness.Result;
import org.jtarget.scsi.lun.TestStore;
import org.jtarget.scsi.spi.ScsiCommand;
import org.jtarget.scsi.spi.ScsiStatus;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.jtarget.scsi.lun.Cdbs.of;
import static org.jtarget.scsi.lun.CoreHarness.NEXUS_A;
import static org.jtarget.scsi.lun.CoreHarness.NEXUS_B;

class SpcModeSenseSelectTest {

    private final CoreHarness h = CoreHarness.of(new TestStore(512, 64, true, false), false);

    private Result sense6(int dbd, int pcPage) {
        return h.run(of(0x1A, dbd, pcPage, 0, 255, 0));
    }

    private Result select6(byte[] list) {
        return h.run(of(0x15, 0x10, 0, 0, list.length, 0), list.length, list);
    }

    private static byte[] controlPage(boolean dSense) {
        byte[] l = new byte[4 + 12];
        l[4] = 0x0A;
        l[5] = 0x0A;
        l[6] = (byte) (dSense ? 0x04 : 0);
        l[7] = 0x10;
        l[12] = (byte) 0xFF;
        l[13] = (byte) 0xFF;
        return l;
    }

    @Test
    void allPagesWithBlockDescriptorHaveConsistentLengths() {
        byte[] d = sense6(0, 0x3F).dataIn();
        assertThat((d[0] & 0xFF) + 1).isEqualTo(d.length);
        assertThat(d[3]).isEqualTo((byte) 8);
        assertThat(d[4 + 8]).isEqualTo((byte) 0x01); // first page: read-write error recovery
        assertThat(d.length).isEqualTo(4 + 8 + 12 + 20 + 12 + 12);
    }

    @Test
    void dbdOmitsBlockDescriptor() {
        byte[] d = sense6(0x08, 0x08).dataIn();
        assertThat(d[3]).isZero();
        assertThat(d[4]).isEqualTo((byte) 0x08);
        assertThat(d[6] & 0x04).isEqualTo(4); // WCE from store default
    }

    @Test
    void modeSense10LongLbaDescriptor() {
        byte[] d = h.run(of(0x5A, 0x10, 0x0A, 0, 0, 0, 0, 0, 255, 0)).dataIn();
        assertThat(d[4] & 1).isEqualTo(1);
        assertThat(d[7]).isEqualTo((byte) 16);
        assertThat(((d[0] & 0xFF) << 8 | (d[1] & 0xFF)) + 2).isEqualTo(d.length);
    }

    @Test
    void savedValuesGiveSavingParametersNotSupported() {
        Result r = sense6(0, 0xC0 | 0x3F);
        assertThat(r.asc()).isEqualTo(0x39);
    }

    @Test
    void unsupportedPageGivesInvalidFieldInCdb() {
        assertThat(sense6(0, 0x19).asc()).isEqualTo(0x24);
    }

    @Test
    void readOnlyLuSetsWriteProtectBit() {
        CoreHarness ro = CoreHarness.of(new TestStore(512, 64, true, false), true);
        assertThat(ro.run(of(0x1A, 0, 0x3F, 0, 255, 0)).dataIn()[2] & 0x80).isEqualTo(0x80);
    }

    @Test
    void changeableMaskShowsWceAndDSense() {
        assertThat(sense6(0x08, 0x40 | 0x08).dataIn()[6]).isEqualTo((byte) 0x04);
        assertThat(sense6(0x08, 0x40 | 0x0A).dataIn()[6]).isEqualTo((byte) 0x04);
    }

    @Test
    void softwareWriteProtectRefusesWritesWithSoftwareWriteProtectedAndSetsWp() {
        assertThat(sense6(0x08, 0x4A).dataIn()[4 + 4] & 0x08).as("SWP changeable").isEqualTo(0x08);
        byte[] swp = controlPage(false);
        swp[8] = 0x08; // SWP
        assertThat(select6(swp).status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(sense6(0x08, 0x0A).dataIn()[2] & 0x80).as("WP in the device-specific parameter").isEqualTo(0x80);
        Result w = h.run(org.jtarget.scsi.lun.Cdbs.rw10(0x2A, 0, 0, 1), 512, new byte[512]);
        assertThat(w.senseKey()).isEqualTo(7);
        assertThat(w.asc()).isEqualTo(0x27);
        assertThat(w.ascq()).isEqualTo(0x02);
        assertThat(h.run(org.jtarget.scsi.lun.Cdbs.rw10(0x28, 0, 0, 1), 512, null).status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(select6(controlPage(false)).status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(h.run(org.jtarget.scsi.lun.Cdbs.rw10(0x2A, 0, 0, 1), 512, new byte[512]).status())
                .isEqualTo(ScsiStatus.GOOD);
    }

    @Test
    void modeSelectRoundTripAndDescriptorSense() {
        assertThat(select6(controlPage(true)).status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(sense6(0x08, 0x0A).dataIn()[6] & 0x04).isEqualTo(4);
        Result bad = h.run(of(0x12, 0, 0x80, 0, 255, 0));
        assertThat(bad.sense()[0]).isEqualTo((byte) 0x72);
        assertThat(bad.asc()).isEqualTo(0x24);
    }

    @Test
    void modeSelectChangeRaisesModeParametersChangedForOtherNexusOnly() {
        h.core.nexusLoggedIn(NEXUS_A);
        h.core.nexusLoggedIn(NEXUS_B);
        h.run(of(0x03, 0, 0, 0, 18, 0));
        h.submit(NEXUS_B, 0, 1, of(0x03, 0, 0, 0, 18, 0), 18, null);
        select6(controlPage(true));
        assertThat(h.run(of(0, 0, 0, 0, 0, 0)).status()).isEqualTo(ScsiStatus.GOOD);
        ScsiCommand b = h.submit(NEXUS_B, 0, 2, of(0, 0, 0, 0, 0, 0), 0, null);
        assertThat(h.results.get(b).asc()).isEqualTo(0x2A);
        assertThat(h.results.get(b).ascq()).isEqualTo(0x01);
    }

    @Test
    void changingANonChangeableFieldGivesInvalidFieldInParameterList() {
        byte[] l = controlPage(false);
        l[7] = 0; // QUEUE ALGORITHM MODIFIER is not changeable
        Result r = select6(l);
        assertThat(r.asc()).isEqualTo(0x26);
        assertThat(r.sense()[15] & 0xC0).isEqualTo(0x80); // SKSV, C/D=0 (parameter list)
        assertThat(r.sense()[17]).isEqualTo((byte) 7);
    }

    @Test
    void truncatedPageGivesParameterListLengthError() {
        byte[] l = controlPage(false);
        byte[] cut = java.util.Arrays.copyOf(l, 10);
        assertThat(select6(cut).asc()).isEqualTo(0x1A);
    }

    @Test
    void savePagesBitGivesInvalidFieldInCdb() {
        byte[] l = controlPage(false);
        assertThat(h.run(of(0x15, 0x11, 0, 0, l.length, 0), l.length, l).asc()).isEqualTo(0x24);
    }
}
