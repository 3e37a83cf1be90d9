package org.jtarget.scsi.sbc;

import org.jtarget.backstore.memory.MemoryBackstore;
import org.jtarget.scsi.lun.CoreHarness;
import org.jtarget.scsi.lun.LogicalUnitDefinition;
import org.jtarget.scsi.lun.TestStore;
import org.jtarget.scsi.spi.ScsiStatus;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.jtarget.scsi.lun.Cdbs.*;
import static org.jtarget.scsi.sbc.SbcUnmapTest.assertSense;

class SbcWriteSameTest {

    private static final int BS = 512;
    private static final int BLOCKS = 300;
    private static final int WS10 = 0x41;
    private static final int WS16 = 0x93;
    private static final int UNMAP = 0x08;
    private final TestStore store = new TestStore(BS, BLOCKS, true, true);
    private final CoreHarness h = CoreHarness.of(store, false);

    private static byte[] block(int value) {
        return filled(BS, value);
    }

    private CoreHarness.Result ws(CoreHarness harness, int op, int flags, long lba, int blocks, byte[] data) {
        byte[] cdb = op == WS10 ? rw10(op, flags, lba, blocks) : rw16(op, flags, lba, blocks);
        return harness.run(cdb, data == null ? 0 : data.length, data);
    }

    @Test
    void writesTheBlockToEveryBlockOfTheRange() {
        byte[] pattern = block(0);
        for (int i = 0; i < BS; i++) {
            pattern[i] = (byte) i;
        }
        assertThat(ws(h, WS10, 0, 5, 3, pattern).status()).isEqualTo(ScsiStatus.GOOD);
        for (int b = 5; b < 8; b++) {
            assertThat(Arrays.copyOfRange(store.data, b * BS, (b + 1) * BS)).isEqualTo(pattern);
        }
        assertThat(store.data[8 * BS + 1]).isZero();
        assertThat(store.calls).containsExactly("write 5 3");
    }

    @Test
    void zeroBlocksWritesThroughTheLastLba() {
        assertThat(ws(h, WS16, 0, 290, 0, block(7)).status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(store.calls).containsExactly("write 290 10");
        assertThat(Arrays.copyOfRange(store.data, 290 * BS, BLOCKS * BS)).containsOnly(7);
    }

    @Test
    void zeroBlocksAtTheCapacityWritesNothing() {
        assertThat(ws(h, WS10, 0, BLOCKS, 0, block(7)).status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(store.calls).isEmpty();
    }

    @Test
    void aLongRangeIsWrittenFromOneBufferSliceAfterSlice() {
        TestStore big = new TestStore(BS, 5000, true, false);
        CoreHarness hb = CoreHarness.of(big, false);
        assertThat(ws(hb, WS16, 0, 0, 4100, block(9)).status()).isEqualTo(ScsiStatus.GOOD);
        int per = SbcWriteSame.PATTERN_BUFFER_BYTES / BS;
        assertThat(big.calls).containsExactly("write 0 " + per, "write " + per + " " + per,
                "write " + 2 * per + " " + (4100 - 2 * per));
        assertThat(Arrays.copyOfRange(big.data, 0, 4100 * BS)).containsOnly(9);
    }

    @Test
    void unmapWithZeroDataDeallocates() {
        Arrays.fill(store.data, (byte) 1);
        assertThat(ws(h, WS10, UNMAP, 10, 4, block(0)).status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(store.calls).containsExactly("unmap 10 4");
        assertThat(Arrays.copyOfRange(store.data, 10 * BS, 14 * BS)).containsOnly(0);
    }

    @Test
    void unmapWithNonZeroDataStillDeallocates() {
        assertThat(ws(h, WS16, UNMAP, 10, 4, filled(BS, 0xFF)).status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(store.calls).containsExactly("unmap 10 4");
        assertThat(Arrays.copyOfRange(store.data, 10 * BS, 14 * BS)).containsOnly(0);
    }

    @Test
    void unmapFreesChunksOfTheMemoryStore() throws Exception {
        MemoryBackstore mem = new MemoryBackstore("m", BS, 64, true, false, 4096);
        CoreHarness hm = new CoreHarness(List.of(new LogicalUnitDefinition(0, mem, false, false)));
        hm.run(rw10(0x2A, 0, 0, 64), 64 * BS, filled(64 * BS, 0xAB));
        assertThat(ws(hm, WS16, UNMAP, 8, 16, block(0)).status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(mem.allocatedChunks()).isEqualTo(6);
        assertThat(hm.run(rw10(0x28, 0, 8, 16), 16 * BS, null).dataIn()).containsOnly(0);
    }

    @Test
    void ndobWritesZerosWithoutDataOut() {
        Arrays.fill(store.data, (byte) 1);
        assertThat(ws(h, WS16, 0x01, 20, 2, null).status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(h.events).noneMatch(e -> e.startsWith("writePending"));
        assertThat(store.calls).containsExactly("write 20 2");
        assertThat(Arrays.copyOfRange(store.data, 20 * BS, 22 * BS)).containsOnly(0);
    }

    @Test
    void ndobWithUnmapDeallocates() {
        assertThat(ws(h, WS16, UNMAP | 0x01, 20, 2, null).status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(store.calls).containsExactly("unmap 20 2");
    }

    @Test
    void aDataOutOtherThanOneBlockGivesInvalidFieldInCdbAndWritesNothing() {
        for (int op : new int[] {WS10, WS16}) {
            for (int bytes : new int[] {BS / 2, 2 * BS}) {
                CoreHarness.Result r = ws(h, op, UNMAP, 0, 1, filled(bytes, 0xA6));
                assertThat(r.status()).isEqualTo(ScsiStatus.CHECK_CONDITION);
                assertThat(new int[] {r.senseKey(), r.asc()}).containsExactly(0x05, 0x24);
            }
        }
        assertThat(store.calls).isEmpty();
    }

    @Test
    void withoutDataOutOnAReadOnlyLuWriteProtectionComesFirst() {
        CoreHarness ro = CoreHarness.of(new TestStore(BS, BLOCKS, true, true), true);
        CoreHarness.Result r = ws(ro, WS10, UNMAP, 0, 1, null);
        assertThat(new int[] {r.senseKey(), r.asc()}).containsExactly(0x07, 0x27);
    }

    @Test
    void bitZeroOfWriteSame10GivesInvalidFieldInCdb() {
        assertSense(ws(h, WS10, 0x01, 0, 1, block(1)), 5, 0x24, 0);
    }

    @Test
    void anchorGivesInvalidFieldInCdb() {
        assertSense(ws(h, WS10, 0x10, 0, 1, block(0)), 5, 0x24, 0);
        assertSense(ws(h, WS16, 0x10 | UNMAP, 0, 1, block(0)), 5, 0x24, 0);
        assertThat(store.calls).isEmpty();
    }

    @Test
    void lbdataOrPbdataGivesInvalidFieldInCdb() {
        assertSense(ws(h, WS10, 0x02, 0, 1, block(1)), 5, 0x24, 0);
        assertSense(ws(h, WS16, 0x04, 0, 1, block(1)), 5, 0x24, 0);
    }

    @Test
    void wrprotectGivesInvalidFieldInCdbBeforeDataMoves() {
        assertSense(ws(h, WS16, 0x20, 0, 1, block(1)), 5, 0x24, 0);
        assertThat(h.events).noneMatch(e -> e.startsWith("writePending"));
    }

    @Test
    void unmapOnAFullyProvisionedLuGivesInvalidFieldInCdb() {
        CoreHarness thick = CoreHarness.of(new TestStore(BS, BLOCKS, true, false), false);
        assertSense(ws(thick, WS10, UNMAP, 0, 1, block(0)), 5, 0x24, 0);
    }

    @Test
    void beyondTheCapacityGivesLbaOutOfRange() {
        assertSense(ws(h, WS10, 0, BLOCKS - 1, 2, block(1)), 5, 0x21, 0);
        assertSense(ws(h, WS16, 0, BLOCKS + 1, 0, block(1)), 5, 0x21, 0);
        assertSense(ws(h, WS16, 0, -1, 0, block(1)), 5, 0x21, 0);
    }

    @Test
    void moreThanTheMaximumWriteSameLengthGivesInvalidFieldInCdb() throws Exception {
        long max = SbcProvisioning.MAX_WRITE_SAME_BYTES / BS;
        MemoryBackstore mem = new MemoryBackstore("m", BS, 2 * max, true, false, 1 << 20);
        CoreHarness hm = new CoreHarness(List.of(new LogicalUnitDefinition(0, mem, false, false)));
        assertSense(ws(hm, WS16, 0, 0, (int) max + 1, block(1)), 5, 0x24, 0);
        assertSense(ws(hm, WS16, 0, 0, 0, block(1)), 5, 0x24, 0); // 0 = to the end: 2 * max blocks
    }

    @Test
    void readOnlyLuGivesWriteProtected() {
        CoreHarness ro = CoreHarness.of(new TestStore(BS, BLOCKS, true, true), true);
        assertSense(ws(ro, WS10, 0, 0, 1, block(1)), 7, 0x27, 0);
    }
}
