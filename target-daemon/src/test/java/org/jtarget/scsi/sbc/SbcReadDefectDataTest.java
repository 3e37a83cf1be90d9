package org.jtarget.scsi.sbc;

import org.jtarget.scsi.lun.CoreHarness;
import org.jtarget.scsi.lun.TestStore;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.jtarget.scsi.lun.Cdbs.of;
import static org.jtarget.scsi.sbc.SbcUnmapTest.assertSense;

class SbcReadDefectDataTest {

    private final CoreHarness h = CoreHarness.of(new TestStore(512, 64, true, false), false);

    @Test
    void readDefectData10IsAnEmptyListInTheRequestedFormat() {
        byte[] d = h.run(of(0x37, 0, 0x18 | 0x05, 0, 0, 0, 0, 0, 32, 0)).dataIn();
        assertThat(d).containsExactly(0, 0x1D, 0, 0);
    }

    @Test
    void readDefectData12HasAnEightByteHeader() {
        byte[] d = h.run(of(0xB7, 0x08 | 0x03, 0, 0, 0, 0, 0, 0, 0, 32, 0, 0)).dataIn();
        assertThat(d).containsExactly(0, 0x0B, 0, 0, 0, 0, 0, 0);
    }

    @Test
    void theAllocationLengthTruncates() {
        assertThat(h.run(of(0x37, 0, 0x18, 0, 0, 0, 0, 0, 2, 0)).dataIn()).hasSize(2);
    }

    @Test
    void reservedFormatGivesInvalidFieldInCdb() {
        assertSense(h.run(of(0x37, 0, 0x07, 0, 0, 0, 0, 0, 32, 0)), 5, 0x24, 0);
    }
}
