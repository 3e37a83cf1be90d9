package org.jtarget.scsi.sbc;

import org.jtarget.scsi.lun.CoreHarness;
import org.jtarget.scsi.lun.CoreHarness.Result;
import org.jtarget.scsi.lun.TestStore;
import org.jtarget.scsi.spi.ScsiStatus;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.jtarget.scsi.lun.Cdbs.filled;
import static org.jtarget.scsi.lun.Cdbs.of;

/** WRITE ATOMIC (16) (SBC-4 5.46). */
class SbcWriteAtomicTest {

    static byte[] atomic(int flags, long lba, int boundary, int blocks) {
        byte[] c = new byte[16];
        c[0] = (byte) 0x9C;
        c[1] = (byte) flags;
        for (int i = 0; i < 8; i++) {
            c[2 + i] = (byte) (lba >>> (56 - 8 * i));
        }
        c[10] = (byte) (boundary >>> 8);
        c[11] = (byte) boundary;
        c[12] = (byte) (blocks >>> 8);
        c[13] = (byte) blocks;
        return c;
    }

    private static void assertSense(Result r, int key, int asc) {
        assertThat(r.status()).isEqualTo(ScsiStatus.CHECK_CONDITION);
        assertThat(new int[] {r.senseKey(), r.asc()}).containsExactly(key, asc);
    }

    @Test
    void writesTheBlocks() {
        TestStore store = new TestStore(512, 1024, true, false);
        CoreHarness h = CoreHarness.of(store, false);
        assertThat(h.run(atomic(0x18, 3, 0, 2), 1024, filled(1024, 0xA6)).status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(store.data[3 * 512]).isEqualTo((byte) 0xA6);
        assertThat(store.data[5 * 512 - 1]).isEqualTo((byte) 0xA6);
        assertThat(store.data[5 * 512]).isZero();
    }

    @Test
    void zeroBlocksIsGoodWithoutDataOut() {
        CoreHarness h = CoreHarness.of(new TestStore(512, 1024, true, false), false);
        assertThat(h.run(atomic(0, 0, 0, 0), 0, null).status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(h.events).noneMatch(e -> e.startsWith("writePending"));
    }

    @Test
    void beyondEndIsLbaOutOfRange() {
        CoreHarness h = CoreHarness.of(new TestStore(512, 1024, true, false), false);
        assertSense(h.run(atomic(0, 1023, 0, 2), 1024, new byte[1024]), 0x05, 0x21);
    }

    @Test
    void nonZeroAtomicBoundaryIsInvalidFieldInCdb() {
        CoreHarness h = CoreHarness.of(new TestStore(512, 1024, true, false), false);
        assertSense(h.run(atomic(0, 0, 1, 1), 512, new byte[512]), 0x05, 0x24);
    }

    @Test
    void longerThanMaximumAtomicTransferLengthIsInvalidFieldInCdb() {
        CoreHarness h = CoreHarness.of(new TestStore(512, 1 << 20, true, false, 8), false);
        assertSense(h.run(atomic(0, 0, 0, 9), 9 * 512, new byte[9 * 512]), 0x05, 0x24);
    }

    @Test
    void readOnlyIsWriteProtected() {
        CoreHarness h = CoreHarness.of(new TestStore(512, 1024, true, false), true);
        assertSense(h.run(atomic(0, 0, 0, 1), 512, new byte[512]), 0x07, 0x27);
    }

    @Test
    void shortDataOutWritesNothing() {
        TestStore store = new TestStore(512, 1024, true, false);
        CoreHarness h = CoreHarness.of(store, false);
        Result r = h.run(atomic(0, 0, 0, 2), 512, filled(1024, 0x55));
        assertThat(r.status()).isEqualTo(ScsiStatus.CHECK_CONDITION);
        assertThat(store.data[0]).isZero();
    }

    @Test
    void blockLimitsReportAtomicTransferLength() {
        CoreHarness h = CoreHarness.of(new TestStore(512, 1024, true, false), false);
        byte[] page = h.run(of(0x12, 1, 0xB0, 0, 0xFF, 0), 255, null).dataIn();
        int max = ((page[44] & 0xFF) << 24) | ((page[45] & 0xFF) << 16) | ((page[46] & 0xFF) << 8) | (page[47] & 0xFF);
        int maxXfer = ((page[8] & 0xFF) << 24) | ((page[9] & 0xFF) << 16) | ((page[10] & 0xFF) << 8) | (page[11] & 0xFF);
        assertThat(max).isPositive().isLessThanOrEqualTo(maxXfer);
        assertThat(java.util.Arrays.copyOfRange(page, 48, 64)).containsOnly((byte) 0);
    }
}
