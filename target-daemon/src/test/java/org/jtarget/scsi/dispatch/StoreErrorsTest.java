package org.jtarget.scsi.dispatch;

import org.jtarget.backstore.file.FileBackstores;
import org.jtarget.backstore.file.FileStoreSettings;
import org.jtarget.backstore.spi.Backstore;
import org.jtarget.backstore.spi.StoreException;
import org.jtarget.scsi.lun.CoreHarness;
import org.jtarget.scsi.lun.CoreHarness.Result;
import org.jtarget.scsi.lun.LogicalUnitDefinition;
import org.jtarget.scsi.lun.TestStore;
import org.jtarget.scsi.spi.ScsiCommand;
import org.jtarget.scsi.spi.ScsiStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.jtarget.scsi.lun.Cdbs.of;
import static org.jtarget.scsi.lun.Cdbs.rw10;
import static org.jtarget.scsi.lun.CoreHarness.NEXUS_A;

/** Store faults become sense data, the LU goes offline when its medium vanishes, and the daemon keeps serving. */
class StoreErrorsTest {

    private static final int BS = 512;
    private static final byte[] TUR = of(0x00, 0, 0, 0, 0, 0);
    private static final byte[] INQUIRY = of(0x12, 0, 0, 0, 0x60, 0);
    private static final byte[] REPORT_LUNS = of(0xA0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0);
    private static final byte[] SYNC_CACHE = of(0x35, 0, 0, 0, 0, 0, 0, 0, 0, 0);

    private final TestStore gone = new TestStore(BS, 64, true, true, 0, "lun0");
    private final TestStore fine = new TestStore(BS, 64, true, false, 0, "lun1");
    private final CoreHarness h = new CoreHarness(List.of(new LogicalUnitDefinition(0, gone, false, false),
            new LogicalUnitDefinition(1, fine, false, false)));

    @TempDir
    Path dir;

    private static void assertSense(Result r, int key, int asc, int ascq) {
        assertThat(r.status()).isEqualTo(ScsiStatus.CHECK_CONDITION);
        assertThat(new int[]{r.senseKey(), r.asc(), r.ascq()}).containsExactly(key, asc, ascq);
    }

    private Result runOn(CoreHarness harness, int lun, byte[] cdb, byte[] out) {
        ScsiCommand cmd = harness.submit(NEXUS_A, lun, 7, cdb, out == null ? 65536 : out.length, out);
        harness.runIo();
        return harness.results.get(cmd);
    }

    @Test
    void mediumGoneTakesTheLuOfflineForMediumAccessOnly() {
        h.run(TUR); // the unit attention of a new nexus
        gone.failNext = TestStore.error(StoreException.Kind.MEDIUM_GONE);
        assertSense(h.run(rw10(0x28, 0, 0, 1)), 2, 0x04, 0x00);
        int callsBefore = gone.calls.size();

        assertSense(h.run(TUR), 2, 0x04, 0x00);
        assertSense(h.run(rw10(0x28, 0, 0, 1)), 2, 0x04, 0x00);
        assertSense(h.run(rw10(0x2A, 0, 0, 1), BS, new byte[BS]), 2, 0x04, 0x00);
        assertSense(h.run(SYNC_CACHE), 2, 0x04, 0x00);
        assertThat(gone.calls).hasSize(callsBefore); // the store is not touched again
        assertThat(h.run(INQUIRY).status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(h.run(REPORT_LUNS).status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(h.core.logicalUnit(0).medium().offline()).isTrue();

        runOn(h, 1, TUR, null);
        assertThat(runOn(h, 1, TUR, null).status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(runOn(h, 1, rw10(0x28, 0, 0, 1), null).status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(h.core.logicalUnit(1).medium().offline()).isFalse();
    }

    @Test
    void spaceExhaustedOnAThinLuFailsThatWriteOnlyAndTheLuKeepsServing() {
        h.run(TUR);
        gone.failNext = TestStore.error(StoreException.Kind.SPACE_EXHAUSTED);
        Result failed = h.run(rw10(0x2A, 0, 0, 1), BS, new byte[BS]);
        assertSense(failed, 7, 0x27, 0x07);
        assertThat(h.run(rw10(0x2A, 0, 0, 1), BS, new byte[BS]).status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(h.run(TUR).status()).isEqualTo(ScsiStatus.GOOD);
    }

    @Test
    void plainIoExceptionOnWriteGivesWriteErrorNotGood() {
        h.run(TUR);
        gone.failNext = new IOException("Input/output error");
        assertSense(h.run(rw10(0x2A, 0, 0, 1), BS, new byte[BS]), 3, 0x0C, 0x00);
        gone.failNext = new IOException("Input/output error");
        assertSense(h.run(SYNC_CACHE), 3, 0x0C, 0x00);
        assertThat(h.core.logicalUnit(0).medium().offline()).isFalse();
    }

    @Test
    void deletedBackingFileTakesAFileLuOfflineOnSynchronizeCache() throws Exception {
        var settings = new FileStoreSettings("f", dir.resolve("disk.img"), 64 << 10, true, BS, false, true, false);
        try (Backstore file = FileBackstores.open(settings)) {
            CoreHarness fh = new CoreHarness(List.of(new LogicalUnitDefinition(0, file, false, false)));
            fh.run(TUR);
            assertThat(fh.run(rw10(0x2A, 0, 0, 1), BS, new byte[BS]).status()).isEqualTo(ScsiStatus.GOOD);
            Files.delete(dir.resolve("disk.img"));
            // Linux still serves the unlinked file: a write succeeds, but it could never be made stable
            assertSense(fh.run(SYNC_CACHE), 2, 0x04, 0x00);
            assertSense(fh.run(TUR), 2, 0x04, 0x00);
            assertSense(fh.run(rw10(0x28, 0, 0, 1)), 2, 0x04, 0x00);
            assertThat(fh.run(INQUIRY).status()).isEqualTo(ScsiStatus.GOOD);
        }
    }
}
