package org.jtarget.scsi.sbc;

import org.jtarget.scsi.lun.CoreHarness;
import org.jtarget.scsi.lun.TestStore;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.jtarget.scsi.lun.Cdbs.rw16;

class SbcReadCapacityTest {

    private static byte[] readCapacity16(CoreHarness h) {
        return h.run(rw16(0x9E, 0x10, 0, 32)).dataIn();
    }

    @Test
    void thinLuReportsLbpmeAndLbprz() {
        byte[] d = readCapacity16(CoreHarness.of(new TestStore(512, 64, true, true), false));
        assertThat(d).hasSize(32);
        assertThat(ByteBuffer.wrap(d).getLong(0)).isEqualTo(63);
        assertThat(d[14] & 0xC0).isEqualTo(0xC0);
    }

    @Test
    void fullyProvisionedLuReportsNeither() {
        byte[] d = readCapacity16(CoreHarness.of(new TestStore(512, 64, true, false), false));
        assertThat(d[14] & 0xC0).isZero();
    }
}
