package org.jtarget.scsi.sbc;

import org.jtarget.backstore.memory.MemoryBackstore;
import org.jtarget.scsi.lun.CoreHarness;
import org.jtarget.scsi.lun.CoreHarness.Result;
import org.jtarget.scsi.lun.LogicalUnitDefinition;
import org.jtarget.scsi.lun.TestStore;
import org.jtarget.scsi.spi.ScsiStatus;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.jtarget.scsi.lun.Cdbs.*;

class SbcUnmapTest {

    private static final int BS = 512;
    private static final int BLOCKS = 300;
    private final TestStore store = new TestStore(BS, BLOCKS, true, true);
    private final CoreHarness h = CoreHarness.of(store, false);

    static void assertSense(Result r, int key, int asc, int ascq) {
        assertThat(r.status()).isEqualTo(ScsiStatus.CHECK_CONDITION);
        assertThat(new int[]{r.senseKey(), r.asc(), r.ascq()}).containsExactly(key, asc, ascq);
    }

    static byte[] unmapCdb(int anchor, int parameterListLength) {
        return of(0x42, anchor, 0, 0, 0, 0, 0, parameterListLength >>> 8, parameterListLength, 0);
    }

    /** A parameter list with one descriptor per (lba, blocks) pair. */
    static byte[] list(long... lbaBlocks) {
        int n = lbaBlocks.length / 2;
        ByteBuffer b = ByteBuffer.allocate(8 + 16 * n);
        b.putShort((short) (6 + 16 * n));
        b.putShort((short) (16 * n));
        b.putInt(0);
        for (int i = 0; i < n; i++) {
            b.putLong(lbaBlocks[2 * i]);
            b.putInt((int) lbaBlocks[2 * i + 1]);
            b.putInt(0);
        }
        return b.array();
    }

    private Result unmap(CoreHarness harness, byte[] list) {
        return harness.run(unmapCdb(0, list.length), list.length, list);
    }

    @Test
    void deallocatesEveryDescriptor() {
        Arrays.fill(store.data, (byte) 0x55);
        assertThat(unmap(h, list(10, 2, 100, 5)).status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(store.calls).containsExactly("unmap 10 2", "unmap 100 5");
        assertThat(Arrays.copyOfRange(store.data, 10 * BS, 12 * BS)).containsOnly(0);
        assertThat(store.data[12 * BS]).isEqualTo((byte) 0x55);
    }

    @Test
    void unmapThenReadGivesZerosOnTheMemoryStore() throws Exception {
        MemoryBackstore mem = new MemoryBackstore("m", BS, 64, true, false, 4096);
        CoreHarness hm = new CoreHarness(List.of(new LogicalUnitDefinition(0, mem, false, false)));
        hm.run(rw10(0x2A, 0, 0, 64), 64 * BS, filled(64 * BS, 0xAB));
        assertThat(mem.allocatedChunks()).isEqualTo(8);
        assertThat(unmap(hm, list(4, 20)).status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(mem.allocatedChunks()).isEqualTo(6); // chunks 1 and 2 freed, 0 and 3 zeroed in part
        byte[] read = hm.run(rw10(0x28, 0, 0, 64), 64 * BS, null).dataIn();
        assertThat(Arrays.copyOfRange(read, 4 * BS, 24 * BS)).containsOnly(0);
        assertThat(Arrays.copyOfRange(read, 0, 4 * BS)).containsOnly(0xAB - 256);
        assertThat(Arrays.copyOfRange(read, 24 * BS, 64 * BS)).containsOnly(0xAB - 256);
    }

    @Test
    void parameterListLengthZeroIsGoodWithoutDataOut() {
        assertThat(h.run(unmapCdb(0, 0), 0, null).status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(h.events).noneMatch(e -> e.startsWith("writePending"));
        assertThat(store.calls).isEmpty();
    }

    @Test
    void noDescriptorsIsGood() {
        assertThat(unmap(h, list()).status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(store.calls).isEmpty();
    }

    @Test
    void parameterListShorterThanTheHeaderGivesParameterListLengthError() {
        assertSense(h.run(unmapCdb(0, 7), 7, new byte[7]), 5, 0x1A, 0);
        assertThat(h.events).noneMatch(e -> e.startsWith("writePending"));
    }

    @Test
    void anchorGivesInvalidFieldInCdb() {
        byte[] l = list(0, 1);
        assertSense(h.run(unmapCdb(1, l.length), l.length, l), 5, 0x24, 0);
        assertThat(store.calls).isEmpty();
    }

    @Test
    void descriptorBeyondCapacityGivesLbaOutOfRangeAndUnmapsNothing() {
        assertSense(unmap(h, list(0, 1, BLOCKS - 1, 2)), 5, 0x21, 0);
        assertThat(store.calls).isEmpty();
    }

    @Test
    void zeroBlocksAtTheCapacityIsGood() {
        assertThat(unmap(h, list(BLOCKS, 0)).status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(store.calls).isEmpty();
    }

    @Test
    void moreDescriptorsThanTheMaximumGiveInvalidFieldInParameterList() {
        long[] pairs = new long[2 * (SbcProvisioning.MAX_UNMAP_DESCRIPTORS + 1)];
        assertSense(unmap(h, list(pairs)), 5, 0x26, 0);
    }

    @Test
    void theMaximumNumberOfDescriptorsIsAccepted() {
        long[] pairs = new long[2 * SbcProvisioning.MAX_UNMAP_DESCRIPTORS];
        assertThat(unmap(h, list(pairs)).status()).isEqualTo(ScsiStatus.GOOD);
    }

    @Test
    void moreBlocksThanTheMaximumUnmapLbaCountGiveInvalidFieldInParameterList() throws Exception {
        long big = 2L * SbcProvisioning.MAX_UNMAP_LBA_COUNT;
        MemoryBackstore mem = new MemoryBackstore("m", BS, big, true, false, 1 << 20);
        CoreHarness hm = new CoreHarness(List.of(new LogicalUnitDefinition(0, mem, false, false)));
        assertSense(unmap(hm, list(0, SbcProvisioning.MAX_UNMAP_LBA_COUNT, big - 2, 1)), 5, 0x26, 0);
        assertThat(unmap(hm, list(0, SbcProvisioning.MAX_UNMAP_LBA_COUNT)).status()).isEqualTo(ScsiStatus.GOOD);
    }

    @Test
    void incompleteLastDescriptorIsIgnored() {
        byte[] l = Arrays.copyOf(list(10, 1, 20, 1), 8 + 16 + 10);
        l[3] = 26; // UNMAP BLOCK DESCRIPTOR DATA LENGTH 26: one whole descriptor and 10 bytes
        assertThat(unmap(h, l).status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(store.calls).containsExactly("unmap 10 1");
    }

    @Test
    void fullyProvisionedLuGivesInvalidCommandOperationCode() {
        CoreHarness thick = CoreHarness.of(new TestStore(BS, BLOCKS, true, false), false);
        byte[] l = list(0, 1);
        assertSense(thick.run(unmapCdb(0, l.length), l.length, l), 5, 0x20, 0);
    }

    @Test
    void readOnlyLuGivesWriteProtected() {
        CoreHarness ro = CoreHarness.of(new TestStore(BS, BLOCKS, true, true), true);
        assertSense(unmap(ro, list(0, 1)), 7, 0x27, 0);
    }
}
