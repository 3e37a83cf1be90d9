package org.jtarget.scsi.sbc;

import org.jtarget.backstore.memory.MemoryBackstore;
import org.jtarget.scsi.lun.CoreHarness;
import org.jtarget.scsi.lun.LogicalUnitDefinition;
import org.jtarget.scsi.lun.TestStore;
import org.jtarget.scsi.spi.ScsiStatus;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.jtarget.scsi.lun.Cdbs.*;
import static org.jtarget.scsi.sbc.SbcUnmapTest.assertSense;

class SbcGetLbaStatusTest {

    private static final int BS = 512;
    private static final int BLOCKS = 64; // 8 chunks of 8 blocks
    private final MemoryBackstore mem;
    private final CoreHarness h;

    SbcGetLbaStatusTest() throws Exception {
        mem = new MemoryBackstore("m", BS, BLOCKS, true, false, 4096);
        h = new CoreHarness(List.of(new LogicalUnitDefinition(0, mem, false, false)));
    }

    private static byte[] cdb(long lba, int allocation) {
        byte[] c = rw16(0x9E, 0x12, lba, allocation);
        return c;
    }

    /** Descriptors as "lba+blocks:status" (status 0 mapped, 1 deallocated). */
    private static List<String> descriptors(byte[] data) {
        ByteBuffer b = ByteBuffer.wrap(data);
        List<String> d = new ArrayList<>();
        for (int at = 8; at + 16 <= data.length; at += 16) {
            d.add(b.getLong(at) + "+" + (b.getInt(at + 8) & 0xFFFFFFFFL) + ":" + (data[at + 12] & 0x0F));
        }
        return d;
    }

    @Test
    void aFreshThinLuIsOneDeallocatedRun() {
        byte[] d = h.run(cdb(0, 1024)).dataIn();
        assertThat(ByteBuffer.wrap(d).getInt(0)).isEqualTo(d.length - 4);
        assertThat(descriptors(d)).containsExactly("0+" + BLOCKS + ":1");
    }

    @Test
    void partialWritesGiveMappedAndDeallocatedRuns() {
        h.run(rw10(0x2A, 0, 9, 1), BS, filled(BS, 1));   // chunk 1 (blocks 8..15)
        h.run(rw10(0x2A, 0, 40, 10), 10 * BS, filled(10 * BS, 1)); // chunks 5 and 6 (40..55)
        assertThat(descriptors(h.run(cdb(0, 1024)).dataIn())).containsExactly(
                "0+8:1", "8+8:0", "16+24:1",
                "40+16:0", "56+8:1");
    }

    @Test
    void theFirstDescriptorStartsAtTheStartingLba() {
        h.run(rw10(0x2A, 0, 0, 16), 16 * BS, filled(16 * BS, 1));
        assertThat(descriptors(h.run(cdb(3, 1024)).dataIn()).get(0)).isEqualTo("3+13:0");
    }

    @Test
    void unmapMakesBlocksDeallocatedAgain() {
        h.run(rw10(0x2A, 0, 0, 16), 16 * BS, filled(16 * BS, 1));
        byte[] list = SbcUnmapTest.list(8, 8);
        h.run(SbcUnmapTest.unmapCdb(0, list.length), list.length, list);
        assertThat(descriptors(h.run(cdb(0, 1024)).dataIn())).containsExactly(
                "0+8:0", "8+56:1");
    }

    @Test
    void theAllocationLengthLimitsTheDescriptors() {
        h.run(rw10(0x2A, 0, 9, 1), BS, filled(BS, 1));
        byte[] d = h.run(cdb(0, 24)).dataIn();
        assertThat(d).hasSize(24);
        assertThat(descriptors(d)).containsExactly("0+8:1");
        assertThat(ByteBuffer.wrap(d).getInt(0)).isEqualTo(20);
    }

    @Test
    void startingLbaAtTheCapacityGivesLbaOutOfRange() {
        assertSense(h.run(cdb(BLOCKS, 1024)), 5, 0x21, 0);
        assertSense(h.run(cdb(-1, 1024)), 5, 0x21, 0);
    }

    @Test
    void aFullyProvisionedStoreIsMappedEverywhere() {
        CoreHarness thick = CoreHarness.of(new TestStore(BS, 100, true, false), false);
        assertThat(descriptors(thick.run(cdb(10, 1024)).dataIn())).containsExactly("10+90:0");
    }

    @Test
    void reportTypeOtherThanAllGivesInvalidFieldInCdb() {
        byte[] c = cdb(0, 1024);
        c[14] = 1;
        assertSense(h.run(c), 5, 0x24, 0);
    }

    @Test
    void statusIsGood() {
        assertThat(h.run(cdb(0, 1024)).status()).isEqualTo(ScsiStatus.GOOD);
    }
}
