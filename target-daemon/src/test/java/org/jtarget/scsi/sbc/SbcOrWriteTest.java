package org.jtarget.scsi.sbc;

import org.jtarget.scsi.lun.CoreHarness;
import org.jtarget.scsi.lun.CoreHarness.Result;
import org.jtarget.scsi.lun.TestStore;
import org.jtarget.scsi.spi.ScsiCommand;
import org.jtarget.scsi.spi.ScsiStatus;
import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;
import static org.jtarget.scsi.lun.Cdbs.*;
import static org.jtarget.scsi.lun.CoreHarness.NEXUS_A;
import static org.jtarget.scsi.lun.CoreHarness.NEXUS_B;

class SbcOrWriteTest {

    private static final int BS = 512;
    private static final int BLOCKS = 300;
    private final TestStore store = new TestStore(BS, BLOCKS, true, false);
    private final CoreHarness h = CoreHarness.of(store, false);

    private static void assertSense(Result r, int key, int asc, int ascq) {
        assertThat(r.status()).isEqualTo(ScsiStatus.CHECK_CONDITION);
        assertThat(new int[]{r.senseKey(), r.asc(), r.ascq()}).containsExactly(key, asc, ascq);
    }

    @Test
    void orsTheDataOutIntoTheMedium() {
        assertThat(h.run(rw16(0x8B, 0, 10, 2), 2 * BS, filled(2 * BS, 0xA5)).status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(h.run(rw16(0x8B, 0x08, 10, 2), 2 * BS, filled(2 * BS, 0x5A)).status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(Arrays.copyOfRange(store.data, 10 * BS, 12 * BS)).isEqualTo(filled(2 * BS, 0xFF));
        assertThat(store.data[12 * BS]).isZero();
        assertThat(store.calls).containsExactly("read 10 2", "write 10 2", "read 10 2", "write 10 2 fua");
    }

    @Test
    void orprotectGivesInvalidFieldInCdb() {
        Result r = h.run(rw16(0x8B, 0x40, 0, 1), BS, new byte[BS]);
        assertSense(r, 5, 0x24, 0);
        assertThat(h.events).doesNotContain("writePending " + BS);
    }

    @Test
    void beyondEndOfLunGivesLbaOutOfRange() {
        assertSense(h.run(rw16(0x8B, 0, BLOCKS, 1), BS, new byte[BS]), 5, 0x21, 0);
    }

    @Test
    void zeroBlocksIsGoodWithoutIo() {
        assertThat(h.run(rw16(0x8B, 0, 0, 0), 0, null).status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(store.calls).isEmpty();
    }

    @Test
    void readOnlyLuGivesWriteProtected() {
        CoreHarness ro = CoreHarness.of(new TestStore(BS, BLOCKS, true, false), true);
        assertSense(ro.run(rw16(0x8B, 0, 0, 1), BS, new byte[BS]), 7, 0x27, 0);
    }

    @Test
    void twoOverlappingOrWritesRunOneAfterTheOther() {
        TestStore slow = new TestStore(BS, BLOCKS, false, false);
        CoreHarness hs = CoreHarness.of(slow, false);
        ScsiCommand a = hs.submit(NEXUS_A, 0, 1, rw16(0x8B, 0, 0, 2), 2 * BS, filled(2 * BS, 0x0F));
        ScsiCommand b = hs.submit(NEXUS_B, 0, 2, rw16(0x8B, 0, 1, 2), 2 * BS, filled(2 * BS, 0xF0));
        assertThat(hs.io).hasSize(1);
        hs.runIo();
        assertThat(slow.calls).containsExactly("read 0 2", "write 0 2", "read 1 2", "write 1 2");
        assertThat(slow.data[BS]).isEqualTo((byte) 0xFF);
        assertThat(hs.results.get(a).status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(hs.results.get(b).status()).isEqualTo(ScsiStatus.GOOD);
    }
}
