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

class SbcCompareAndWriteTest {

    private static final int BS = 512;
    private static final int BLOCKS = 300;
    private final TestStore store = new TestStore(BS, BLOCKS, true, false);
    private final CoreHarness h = CoreHarness.of(store, false);

    private static void assertSense(Result r, int key, int asc, int ascq) {
        assertThat(r.status()).isEqualTo(ScsiStatus.CHECK_CONDITION);
        assertThat(new int[]{r.senseKey(), r.asc(), r.ascq()}).containsExactly(key, asc, ascq);
    }

    private static byte[] caw(int flags, long lba, int blocks) {
        return rw16(0x89, flags, lba, blocks);
    }

    /** n blocks of {@code verify} then n blocks of {@code write}. */
    private static byte[] data(int n, int verify, int write) {
        byte[] b = filled(2 * n * BS, write);
        Arrays.fill(b, 0, n * BS, (byte) verify);
        return b;
    }

    @Test
    void matchingDataIsWrittenWithFua() {
        Arrays.fill(store.data, 2 * BS, 4 * BS, (byte) 'A');
        Result r = h.run(caw(0x08, 2, 2), 4 * BS, data(2, 'A', 'B'));
        assertThat(r.status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(store.data[2 * BS]).isEqualTo((byte) 'B');
        assertThat(store.data[4 * BS - 1]).isEqualTo((byte) 'B');
        assertThat(store.calls).containsExactly("read 2 2", "write 2 2 fua");
    }

    @Test
    void miscompareReportsOffsetOfFirstDifferingByteAndWritesNothing() {
        Arrays.fill(store.data, 0, 2 * BS, (byte) 'A');
        byte[] out = data(2, 'A', 'B');
        out[2 * BS - 27] = 'C';
        Result r = h.run(caw(0, 0, 2), 4 * BS, out);
        assertSense(r, 0xE, 0x1D, 0);
        assertThat(r.sense()[0] & 0x80).as("VALID").isEqualTo(0x80);
        int info = ((r.sense()[3] & 0xFF) << 24) | ((r.sense()[4] & 0xFF) << 16)
                | ((r.sense()[5] & 0xFF) << 8) | (r.sense()[6] & 0xFF);
        assertThat(info).isEqualTo(2 * BS - 27);
        assertThat(store.calls).containsExactly("read 0 2");
        assertThat(store.data[0]).isEqualTo((byte) 'A');
    }

    @Test
    void maximumCompareAndWriteLengthIs255AndAccepted() {
        TestStore big = new TestStore(BS, 1024, true, false);
        CoreHarness hb = CoreHarness.of(big, false);
        Result r = hb.run(caw(0, 0, 255), 2 * 255 * BS, data(255, 0, 0));
        assertThat(r.status()).isEqualTo(ScsiStatus.GOOD); // 255 is the reported maximum
        byte[] vpd = hb.run(of(0x12, 1, 0xB0, 0, 64, 0)).dataIn();
        assertThat(vpd[5] & 0xFF).isEqualTo(255);
    }

    @Test
    void aSmallerStoreTransferLimitLowersTheMaximumAndIsHonoured() {
        TestStore limited = new TestStore(BS, BLOCKS, true, false, 16);
        CoreHarness hl = CoreHarness.of(limited, false);
        assertThat(hl.run(of(0x12, 1, 0xB0, 0, 64, 0)).dataIn()[5]).isEqualTo((byte) 8);
        Result r = hl.run(caw(0, 0, 9), 18 * BS, data(9, 0, 0));
        assertSense(r, 5, 0x24, 0);
        assertThat(r.sense()[17]).isEqualTo((byte) 13);
        assertThat(hl.events).doesNotContain("writePending " + 18 * BS);
    }

    @Test
    void zeroBlocksIsAGoodNoOp() {
        Result r = h.run(caw(0, 5, 0), 0, null);
        assertThat(r.status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(store.calls).isEmpty();
        assertThat(h.events).containsExactly("status");
    }

    @Test
    void zeroBlocksWithDataOutGivesInvalidFieldInCdb() {
        Result r = h.run(caw(0, 5, 0), 2 * BS, data(1, 0, 0));
        assertSense(r, 5, 0x24, 0);
        assertThat(store.calls).isEmpty();
    }

    @Test
    void wrprotectGivesInvalidFieldInCdb() {
        Result r = h.run(caw(0x20, 0, 1), 2 * BS, data(1, 0, 0));
        assertSense(r, 5, 0x24, 0);
        assertThat(r.sense()[17]).isEqualTo((byte) 1);
    }

    @Test
    void beyondEndOfLunGivesLbaOutOfRange() {
        assertSense(h.run(caw(0, BLOCKS - 1, 2), 4 * BS, data(2, 0, 0)), 5, 0x21, 0);
        assertSense(h.run(caw(0, -1L, 1), 2 * BS, data(1, 0, 0)), 5, 0x21, 0);
    }

    @Test
    void dataOutOtherThanTwiceTheBlocksIsRefused() {
        assertThat(h.run(caw(0, 0, 1), 4 * BS, data(2, 0, 0)).status()).isEqualTo(ScsiStatus.CHECK_CONDITION);
        assertThat(h.run(caw(0, 0, 3), 4 * BS, data(2, 0, 0)).status()).isEqualTo(ScsiStatus.CHECK_CONDITION);
        assertThat(store.calls).isEmpty();
    }

    @Test
    void readOnlyLuGivesWriteProtected() {
        CoreHarness ro = CoreHarness.of(new TestStore(BS, BLOCKS, true, false), true);
        assertSense(ro.run(caw(0, 0, 1), 2 * BS, data(1, 0, 0)), 7, 0x27, 0);
    }

    @Test
    void waitsForAnOverlappingWriteInFlightThenRunsAtomically() {
        TestStore slow = new TestStore(BS, BLOCKS, false, false);
        CoreHarness hs = CoreHarness.of(slow, false);
        ScsiCommand write = hs.submit(NEXUS_A, 0, 1, rw10(0x2A, 0, 0, 2), 2 * BS, filled(2 * BS, 'A'));
        ScsiCommand caw = hs.submit(NEXUS_B, 0, 2, caw(0, 1, 1), 2 * BS, data(1, 'A', 'B'));
        assertThat(hs.io).hasSize(1); // only the WRITE; the COMPARE AND WRITE waits for its range
        hs.runIo();
        assertThat(slow.calls).containsExactly("write 0 2", "read 1 1", "write 1 1");
        assertThat(hs.results.get(write).status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(hs.results.get(caw).status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(slow.data[BS]).isEqualTo((byte) 'B');
    }

    @Test
    void overlappingReadsAndWritesWaitForARunningCompareAndWriteButOthersDoNot() {
        TestStore slow = new TestStore(BS, BLOCKS, false, false);
        CoreHarness hs = CoreHarness.of(slow, false);
        hs.submit(NEXUS_A, 0, 1, caw(0, 4, 2), 4 * BS, data(2, 0, 'B'));
        ScsiCommand write = hs.submit(NEXUS_B, 0, 2, rw10(0x2A, 0, 5, 1), BS, filled(BS, 'C'));
        ScsiCommand read = hs.submit(NEXUS_B, 0, 3, rw10(0x28, 0, 3, 2), 2 * BS, null);
        ScsiCommand other = hs.submit(NEXUS_B, 0, 4, rw10(0x2A, 0, 100, 1), BS, filled(BS, 'D'));
        assertThat(hs.io).hasSize(2); // COMPARE AND WRITE and the unrelated WRITE
        hs.runIo();
        assertThat(slow.calls).containsExactly("read 4 2", "write 4 2", "write 100 1", "write 5 1", "read 3 2");
        assertThat(hs.results.get(read).dataIn()[BS]).isEqualTo((byte) 'B');
        assertThat(slow.data[5 * BS]).isEqualTo((byte) 'C');
        assertThat(hs.results.get(write).status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(hs.results.get(other).status()).isEqualTo(ScsiStatus.GOOD);
    }

    @Test
    void abortedWaiterEndsWithAbortedTaskOnceTheRangeIsFree() {
        TestStore slow = new TestStore(BS, BLOCKS, false, false);
        CoreHarness hs = CoreHarness.of(slow, false);
        hs.submit(NEXUS_A, 0, 1, rw10(0x2A, 0, 0, 1), BS, filled(BS, 'A'));
        ScsiCommand caw = hs.submit(NEXUS_A, 0, 2, caw(0, 0, 1), 2 * BS, data(1, 'A', 'B'));
        hs.tmf(org.jtarget.scsi.spi.TmfRequest.Function.ABORT_TASK, NEXUS_A, 0, 2);
        hs.runIo();
        assertThat(hs.results.get(caw).end()).isEqualTo("aborted");
        assertThat(slow.calls).containsExactly("write 0 1");
        assertThat(hs.events).endsWith("aborted", "tmf FUNCTION_COMPLETE");
    }
}
