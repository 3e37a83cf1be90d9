package org.jtarget.scsi.copy;

import org.jtarget.scsi.lun.CoreHarness;
import org.jtarget.scsi.lun.CoreHarness.Result;
import org.jtarget.scsi.lun.TestStore;
import org.jtarget.scsi.spi.ScsiStatus;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.jtarget.scsi.lun.CoreHarness.NEXUS_B;

class SpcReceiveCopyResultsTest {

    private static final int BS = 512;
    private final TestStore store = new TestStore(BS, 256, true, false);
    private final CoreHarness h = CoreHarness.of(store, false);

    private Result copy(int listId, int usage, long dstLba) {
        byte[] list = new XcopyLists().listId(listId, usage).cscd(h.core.logicalUnit(0).identity().naa(), BS)
                .segment(0, 0, 4, 0, dstLba).build();
        return h.run(XcopyLists.cdb(list.length), list.length, list);
    }

    private Result status(int listId) {
        return h.run(XcopyLists.receiveCopyResults(0, listId, 1024));
    }

    @Test
    void unknownListIdentifierIsInvalidFieldInCdb() {
        Result r = status(1);
        assertThat(r.status()).isEqualTo(ScsiStatus.CHECK_CONDITION);
        assertThat(new int[]{r.senseKey(), r.asc(), r.ascq()}).containsExactly(5, 0x24, 0);
    }

    @Test
    void copyStatusOfAFinishedCopyIsReturnedOnceThenDiscarded() {
        assertThat(copy(1, 0, 100).status()).isEqualTo(ScsiStatus.GOOD);
        Result r = status(1);
        assertThat(r.status()).isEqualTo(ScsiStatus.GOOD);
        ByteBuffer d = ByteBuffer.wrap(r.dataIn());
        assertThat(d.getInt(0)).as("AVAILABLE DATA").isEqualTo(8);
        assertThat(d.get(4)).as("COPY MANAGER STATUS: completed, good").isEqualTo((byte) 1);
        assertThat(d.getShort(5)).as("SEGMENTS PROCESSED").isEqualTo((short) 1);
        assertThat(d.get(7)).as("TRANSFER COUNT UNITS: bytes").isEqualTo((byte) 0);
        assertThat(d.getInt(8)).as("TRANSFER COUNT").isEqualTo(4 * BS);
        assertThat(status(1).status()).isEqualTo(ScsiStatus.CHECK_CONDITION);
    }

    @Test
    void failedCopyReportsCompletedWithError() {
        assertThat(copy(2, 0, 255).status()).isEqualTo(ScsiStatus.CHECK_CONDITION);
        Result r = status(2);
        assertThat(r.dataIn()[4]).isEqualTo((byte) 2);
    }

    @Test
    void copyStatusIsPerNexusAndNotHeldWithListIdUsage10b() {
        copy(3, 0, 100);
        Result other = h.run(NEXUS_B, XcopyLists.receiveCopyResults(0, 3, 1024), 1024, null);
        assertThat(other.status()).isEqualTo(ScsiStatus.CHECK_CONDITION);
        copy(4, 2, 100);
        assertThat(status(4).status()).isEqualTo(ScsiStatus.CHECK_CONDITION);
    }

    @Test
    void operatingParametersReportTheEnforcedLimits() {
        Result r = h.run(XcopyLists.receiveCopyResults(3, 0, 1024));
        assertThat(r.status()).isEqualTo(ScsiStatus.GOOD);
        ByteBuffer d = ByteBuffer.wrap(r.dataIn());
        assertThat(r.dataIn()).hasSize(46);
        assertThat(d.getInt(0)).isEqualTo(42);
        assertThat(d.getShort(8)).isEqualTo((short) CopyLimits.MAX_CSCD_DESCRIPTORS);
        assertThat(d.getShort(10)).isEqualTo((short) CopyLimits.MAX_SEGMENT_DESCRIPTORS);
        assertThat(d.getInt(12)).isEqualTo(CopyLimits.MAX_DESCRIPTOR_LIST_LENGTH);
        assertThat(d.getInt(16)).isEqualTo(CopyLimits.MAX_SEGMENT_LENGTH);
        assertThat(d.getInt(20)).as("MAXIMUM INLINE DATA LENGTH").isZero();
        assertThat(r.dataIn()[43]).isEqualTo((byte) 2);
        assertThat(r.dataIn()[44]).isEqualTo((byte) 0x02);
        assertThat(r.dataIn()[45]).isEqualTo((byte) 0xE4);
    }

    @Test
    void allocationLengthCutsTheData() {
        Result r = h.run(XcopyLists.receiveCopyResults(3, 0, 10));
        assertThat(r.dataIn()).hasSize(10);
    }

    @Test
    void unsupportedServiceActionIsInvalidFieldInCdb() {
        Result r = h.run(XcopyLists.receiveCopyResults(4, 0, 1024));
        assertThat(new int[]{r.senseKey(), r.asc(), r.ascq()}).containsExactly(5, 0x24, 0);
    }
}
