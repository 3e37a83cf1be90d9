package org.jtarget.scsi.copy;

import org.jtarget.scsi.lun.CoreHarness;
import org.jtarget.scsi.lun.CoreHarness.Result;
import org.jtarget.scsi.lun.LogicalUnitDefinition;
import org.jtarget.scsi.lun.LogicalUnitRegistry;
import org.jtarget.scsi.lun.TestStore;
import org.jtarget.scsi.lun.WorkProgress;
import org.jtarget.scsi.pr.ReservationRule;
import org.jtarget.scsi.spi.ScsiCommand;
import org.jtarget.scsi.spi.ScsiStatus;
import org.junit.jupiter.api.Test;

import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.jtarget.scsi.lun.CoreHarness.NEXUS_A;
import static org.jtarget.scsi.lun.CoreHarness.NEXUS_B;

class SpcExtendedCopyTest {

    private static final int BS = 512;
    private static final int BLOCKS = 4096;
    private final TestStore store0 = new TestStore(BS, BLOCKS, false, false, 0, "lu0");
    private final TestStore store1 = new TestStore(BS, BLOCKS, true, false, 0, "lu1");
    private final LogicalUnitRegistry registry = new LogicalUnitRegistry();
    private final CoreHarness h = new CoreHarness("iqn.t1", List.of(
            new LogicalUnitDefinition(0, store0, false, false),
            new LogicalUnitDefinition(1, store1, false, false)), null, registry);

    private byte[] naa(int lun) {
        return h.core.logicalUnit(lun).identity().naa();
    }

    private Result xcopy(byte[] list) {
        return h.run(XcopyLists.cdb(list.length), list.length, list);
    }

    private static void assertSense(Result r, int key, int asc, int ascq) {
        assertThat(r.status()).isEqualTo(ScsiStatus.CHECK_CONDITION);
        assertThat(new int[]{r.senseKey(), r.asc(), r.ascq()}).containsExactly(key, asc, ascq);
    }

    private static void pattern(byte[] data, int fromBlock, int blocks) {
        for (int b = fromBlock; b < fromBlock + blocks; b++) {
            Arrays.fill(data, b * BS, (b + 1) * BS, (byte) (b * 7 + 1));
        }
    }

    @Test
    void copiesWithinOneLogicalUnit() {
        pattern(store0.data, 0, 8);
        Result r = xcopy(new XcopyLists().cscd(naa(0), BS).segment(0, 0, 8, 0, 100).build());
        assertThat(r.status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(Arrays.copyOfRange(store0.data, 100 * BS, 108 * BS))
                .isEqualTo(Arrays.copyOfRange(store0.data, 0, 8 * BS));
    }

    @Test
    void copiesAcrossLogicalUnitsInChunks() {
        pattern(store0.data, 0, 3000);
        Result r = xcopy(new XcopyLists().cscd(naa(0), BS).cscd(naa(1), BS).segment(0, 1, 3000, 0, 1000).build());
        assertThat(r.status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(Arrays.copyOfRange(store1.data, 1000 * BS, 4000 * BS))
                .isEqualTo(Arrays.copyOfRange(store0.data, 0, 3000 * BS));
        // CHUNK_BYTES / 512 = 2048 blocks per step
        assertThat(store1.calls).containsExactly("write 1000 2048", "write 3048 952");
    }

    @Test
    void copiesAcrossTargetsThroughTheRegistry() {
        TestStore other = new TestStore(BS, 64, true, false, 0, "other-target-lu");
        CoreHarness t2 = new CoreHarness("iqn.t2", List.of(new LogicalUnitDefinition(0, other, false, false)),
                null, registry);
        pattern(store0.data, 0, 4);
        byte[] otherNaa = t2.core.logicalUnit(0).identity().naa();
        Result r = xcopy(new XcopyLists().cscd(naa(0), BS).cscd(otherNaa, BS).segment(0, 1, 4, 0, 60).build());
        assertThat(r.status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(Arrays.copyOfRange(other.data, 60 * BS, 64 * BS)).isEqualTo(Arrays.copyOfRange(store0.data, 0, 4 * BS));
    }

    @Test
    void overlappingRangesCopyAsIfTheSourceWasReadFirst() {
        pattern(store0.data, 0, 3000);
        byte[] original = Arrays.copyOfRange(store0.data, 0, 3000 * BS);
        Result up = xcopy(new XcopyLists().cscd(naa(0), BS).segment(0, 0, 3000, 0, 1000).build());
        assertThat(up.status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(Arrays.copyOfRange(store0.data, 1000 * BS, 4000 * BS)).isEqualTo(original);

        byte[] moved = Arrays.copyOfRange(store0.data, 1000 * BS, 4000 * BS);
        Result down = xcopy(new XcopyLists().cscd(naa(0), BS).segment(0, 0, 3000, 1000, 10).build());
        assertThat(down.status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(Arrays.copyOfRange(store0.data, 10 * BS, 3010 * BS)).isEqualTo(moved);
    }

    @Test
    void rangeLocksAreReleasedAfterTheCopy() {
        xcopy(new XcopyLists().cscd(naa(0), BS).cscd(naa(1), BS).segment(0, 1, 16, 0, 0).build());
        assertThat(h.core.logicalUnit(0).rangeLock().heldCount()).isZero();
        assertThat(h.core.logicalUnit(1).rangeLock().heldCount()).isZero();
    }

    @Test
    void waitsForAnExclusiveHolderOfTheDestinationRange() {
        var lock = h.core.logicalUnit(1).rangeLock();
        var caw = new org.jtarget.scsi.lun.LbaRangeLock.Holder(() -> { });
        assertThat(lock.acquire(caw, 0, 4, true)).isTrue();
        byte[] list = new XcopyLists().cscd(naa(0), BS).cscd(naa(1), BS).segment(0, 1, 4, 0, 2).build();
        ScsiCommand cmd = h.submit(NEXUS_A, 0, 7, XcopyLists.cdb(list.length), list.length, list);
        h.runIo();
        assertThat(h.results).doesNotContainKey(cmd);
        assertThat(store1.calls).isEmpty();
        lock.release(caw);
        h.runIo();
        assertThat(h.results.get(cmd).status()).isEqualTo(ScsiStatus.GOOD);
    }

    @Test
    void zeroParameterListLengthIsGoodAndCopiesNothing() {
        Result r = h.run(XcopyLists.cdb(0), 0, null);
        assertThat(r.status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(store0.calls).isEmpty();
    }

    @Test
    void parameterListShorterThanTheHeaderIsParameterListLengthError() {
        assertSense(h.run(XcopyLists.cdb(15), 15, new byte[15]), 5, 0x1A, 0);
    }

    @Test
    void truncatedDescriptorIsParameterListLengthError() {
        byte[] list = new XcopyLists().cscd(naa(0), BS).segment(0, 0, 1, 0, 1).build();
        byte[] cut = Arrays.copyOf(list, list.length - 1);
        assertSense(h.run(XcopyLists.cdb(cut.length), cut.length, cut), 5, 0x1A, 0);
    }

    @Test
    void descriptorListsLongerThanTheMaximumAreParameterListLengthError() {
        XcopyLists l = new XcopyLists();
        for (int i = 0; i < CopyLimits.MAX_CSCD_DESCRIPTORS + 1; i++) {
            l.cscd(naa(0), BS);
        }
        for (int i = 0; i < 70; i++) {
            l.segment(0, 0, 1, 0, 1);
        }
        assertSense(h.run(XcopyLists.cdb(l.build().length), l.build().length, l.build()), 5, 0x1A, 0);
    }

    @Test
    void tooManyCscdDescriptors() {
        XcopyLists l = new XcopyLists();
        for (int i = 0; i < CopyLimits.MAX_CSCD_DESCRIPTORS + 1; i++) {
            l.cscd(naa(0), BS);
        }
        assertSense(xcopy(l.segment(0, 0, 1, 0, 1).build()), 5, 0x26, 0x06);
    }

    @Test
    void tooManySegmentDescriptors() {
        XcopyLists l = new XcopyLists().cscd(naa(0), BS);
        for (int i = 0; i < CopyLimits.MAX_SEGMENT_DESCRIPTORS + 1; i++) {
            l.segment(0, 0, 1, 0, 1);
        }
        assertSense(xcopy(l.build()), 5, 0x26, 0x08);
        assertThat(store0.calls).isEmpty();
    }

    @Test
    void unsupportedCscdDescriptorType() {
        assertSense(xcopy(new XcopyLists().cscd(0xE0, naa(0), BS).segment(0, 0, 1, 0, 1).build()), 5, 0x26, 0x07);
    }

    @Test
    void unsupportedSegmentDescriptorType() {
        assertSense(xcopy(new XcopyLists().cscd(naa(0), BS).segment(0x03, 0, 0, 1, 0, 1).build()), 5, 0x26, 0x09);
    }

    @Test
    void inlineDataIsNotSupported() {
        byte[] list = new XcopyLists().inline(4).cscd(naa(0), BS).segment(0, 0, 1, 0, 1).build();
        byte[] withInline = Arrays.copyOf(list, list.length + 4);
        assertSense(h.run(XcopyLists.cdb(withInline.length), withInline.length, withInline), 5, 0x26, 0x0B);
    }

    @Test
    void listIdentifierWithUsageNoListIdIsInvalidFieldWithPointer() {
        Result r = xcopy(new XcopyLists().listId(5, 3).cscd(naa(0), BS).segment(0, 0, 1, 0, 1).build());
        assertSense(r, 5, 0x26, 0);
        byte[] s = r.sense();
        assertThat(s[15] & 0xC0).as("SKSV=1, C/D=0 (parameter list)").isEqualTo(0x80);
        assertThat(((s[16] & 0xFF) << 8) | (s[17] & 0xFF)).as("field pointer").isEqualTo(1);
    }

    @Test
    void wrongDiskBlockLengthIsInvalidFieldInParameterList() {
        assertSense(xcopy(new XcopyLists().cscd(naa(0), 4096).segment(0, 0, 1, 0, 1).build()), 5, 0x26, 0);
    }

    @Test
    void unknownDesignatorIsCopyTargetDeviceNotReachable() {
        byte[] nobody = new byte[16];
        nobody[0] = 0x60;
        assertSense(xcopy(new XcopyLists().cscd(naa(0), BS).cscd(nobody, BS).segment(0, 1, 1, 0, 1).build()),
                0xA, 0x0D, 0x02);
    }

    @Test
    void cscdIndexBeyondTheListIsCopyTargetDeviceNotReachable() {
        assertSense(xcopy(new XcopyLists().cscd(naa(0), BS).segment(0, 1, 1, 0, 1).build()), 0xA, 0x0D, 0x02);
    }

    @Test
    void blocksBeyondTheDestinationAbortTheCopyBeforeAnyDataMoves() {
        Result r = xcopy(new XcopyLists().cscd(naa(0), BS).segment(0, 0, 1, 0, 1)
                .segment(0, 0, 2, 0, BLOCKS - 1).build());
        assertSense(r, 0xA, 0, 0);
        assertThat(store0.calls).isEmpty();
    }

    @Test
    void readOnlyDestinationIsDataProtect() {
        TestStore ro = new TestStore(BS, 64, true, false, 0, "read-only");
        CoreHarness t2 = new CoreHarness("iqn.t2", List.of(new LogicalUnitDefinition(0, ro, true, false)),
                null, registry);
        byte[] roNaa = t2.core.logicalUnit(0).identity().naa();
        assertSense(xcopy(new XcopyLists().cscd(naa(0), BS).cscd(roNaa, BS).segment(0, 1, 1, 0, 1).build()),
                7, 0x27, 0);
        assertThat(ro.calls).isEmpty();
        // and a read-only source is fine
        byte[] list = new XcopyLists().cscd(roNaa, BS).cscd(naa(0), BS).segment(0, 1, 1, 0, 1).build();
        ScsiCommand cmd = h.submit(NEXUS_A, 0, 3, XcopyLists.cdb(list.length), list.length, list);
        t2.runIo(); // the copy runs on the source LU's I/O executor
        h.runIo();
        assertThat(h.results.get(cmd).status()).isEqualTo(ScsiStatus.GOOD);
    }

    @Test
    void reservationOfAnotherNexusOnTheDestinationConflicts() {
        // SPC-2 RESERVE(6) of LU 1 by NEXUS_B
        h.submit(NEXUS_B, 1, 9, new byte[]{0x16, 0, 0, 0, 0, 0}, 0, null);
        assertThat(h.core.logicalUnit(1).reservations().conflicts(NEXUS_A, ReservationRule.CONFLICT, new byte[16]))
                .isTrue();
        Result r = xcopy(new XcopyLists().cscd(naa(0), BS).cscd(naa(1), BS).segment(0, 1, 1, 0, 1).build());
        assertThat(r.status()).isEqualTo(ScsiStatus.RESERVATION_CONFLICT);
        assertThat(store1.calls).isEmpty();
    }

    @Test
    void storeErrorDuringTheCopyIsCopyAborted() {
        store1.failNext = new java.io.IOException("injected");
        Result r = xcopy(new XcopyLists().cscd(naa(0), BS).cscd(naa(1), BS).segment(0, 1, 1, 0, 1).build());
        assertSense(r, 0xA, 0, 0);
        assertThat(h.core.logicalUnit(1).rangeLock().heldCount()).isZero();
    }

    @Test
    void aRunningCopyShowsItsProgressOnTheLuItWasSentTo() {
        List<WorkProgress.Snapshot> seen = new ArrayList<>();
        TestStore destination = new TestStore(BS, BLOCKS, true, false, 0, "hooked") {
            @Override
            public void write(long lba, ByteBuf src, boolean fua) throws IOException {
                super.write(lba, src, fua);
                h.core.logicalUnit(0).work().forEach(w -> seen.add(w.snapshot(System.nanoTime())));
            }
        };
        CoreHarness other = new CoreHarness("iqn.t3", List.of(new LogicalUnitDefinition(0, destination, false, false)),
                null, registry);
        Result r = xcopy(new XcopyLists().cscd(naa(0), BS).cscd(other.core.logicalUnit(0).identity().naa(), BS)
                .segment(0, 1, 3000, 0, 0).build());
        assertThat(r.status()).isEqualTo(ScsiStatus.GOOD);
        // each reading is taken as a chunk's write returns, before the job counts it
        assertThat(seen).extracting(WorkProgress.Snapshot::kind).containsOnly("extended-copy");
        assertThat(seen).extracting(WorkProgress.Snapshot::totalBytes).containsOnly(3000L * BS);
        assertThat(seen).extracting(WorkProgress.Snapshot::doneBytes).containsExactly(0L, 2048L * BS);
        assertThat(h.core.logicalUnit(0).work()).as("ended: no longer listed").isEmpty();
        assertThat(other.core.logicalUnit(0).work()).as("the destination's target ran no command").isEmpty();
    }
}
