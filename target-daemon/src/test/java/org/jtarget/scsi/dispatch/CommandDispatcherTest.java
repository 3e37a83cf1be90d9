package org.jtarget.scsi.dispatch;

import org.jtarget.scsi.sense.SenseReason;
import org.jtarget.scsi.lun.CoreHarness;
import org.jtarget.scsi.lun.CoreHarness.Result;
import org.jtarget.scsi.lun.TestStore;
import org.jtarget.scsi.spi.ScsiCommand;
import org.jtarget.scsi.spi.ScsiStatus;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.jtarget.scsi.lun.Cdbs.of;
import static org.jtarget.scsi.lun.CoreHarness.NEXUS_A;
import static org.jtarget.scsi.lun.CoreHarness.NEXUS_B;

class CommandDispatcherTest {

    private final TestStore store = new TestStore(512, 64, true, false);
    private final CoreHarness h = CoreHarness.of(store, false);

    private static void assertSense(Result r, int key, int asc, int ascq) {
        assertThat(r.status()).isEqualTo(ScsiStatus.CHECK_CONDITION);
        assertThat(new int[]{r.senseKey(), r.asc(), r.ascq()}).containsExactly(key, asc, ascq);
    }

    @Test
    void unknownOpcodeGivesInvalidCommandOperationCode() {
        assertSense(h.run(of(0xC0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10, 0, 0)), 5, 0x20, 0);
    }

    @Test
    void unsupportedServiceActionGivesInvalidFieldInCdbAtByte1() {
        Result r = h.run(of(0xA3, 0x1F, 0, 0, 0, 0, 0, 0, 0, 0x10, 0, 0));
        assertSense(r, 5, 0x24, 0);
        assertThat(r.sense()[15] & 0xFF).isEqualTo(0xCC); // SKSV, C/D, BPV, bit 4
        assertThat(r.sense()[17]).isEqualTo((byte) 1);
    }

    @Test
    void nacaBitInControlByteGivesInvalidFieldInCdb() {
        Result r = h.run(of(0x00, 0, 0, 0, 0, 0x04));
        assertSense(r, 5, 0x24, 0);
        assertThat(r.sense()[15] & 0xC0).isEqualTo(0xC0); // SKSV, C/D
        assertThat(r.sense()[17]).isEqualTo((byte) 5);
    }

    @Test
    void missingLunGivesLogicalUnitNotSupported() {
        ScsiCommand cmd = h.submit(NEXUS_A, 7, 1, of(0x00, 0, 0, 0, 0, 0), 0, null);
        assertSense(h.results.get(cmd), 5, 0x25, 0);
    }

    @Test
    void inquiryOnMissingLunReportsQualifier011() {
        ScsiCommand cmd = h.submit(NEXUS_A, 7, 1, of(0x12, 0, 0, 0, 96, 0), 96, null);
        Result r = h.results.get(cmd);
        assertThat(r.status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(r.dataIn()[0]).isEqualTo((byte) 0x7F);
    }

    @Test
    void requestSenseOnMissingLunReturnsLogicalUnitNotSupportedAsData() {
        ScsiCommand cmd = h.submit(NEXUS_A, 7, 1, of(0x03, 0, 0, 0, 252, 0), 252, null);
        Result r = h.results.get(cmd);
        assertThat(r.status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(r.dataIn()[2] & 0xF).isEqualTo(5);
        assertThat(r.dataIn()[12]).isEqualTo((byte) 0x25);
    }

    @Test
    void newNexusStartsWithoutUnitAttention() {
        h.core.nexusLoggedIn(NEXUS_A);
        assertThat(h.run(of(0x00, 0, 0, 0, 0, 0)).status()).isEqualTo(ScsiStatus.GOOD);
    }

    @Test
    void unitAttentionIsReportedOnceAndInquiryDoesNotConsumeIt() {
        h.core.nexusLoggedIn(NEXUS_A);
        h.core.logicalUnit(0).unitAttentions().raise(NEXUS_A, SenseReason.POWER_ON_RESET);
        assertThat(h.run(of(0x12, 0, 0, 0, 36, 0)).status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(h.run(of(0xA0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0)).status()).isEqualTo(ScsiStatus.GOOD);
        assertSense(h.run(of(0x00, 0, 0, 0, 0, 0)), 6, 0x29, 0);
        assertThat(h.run(of(0x00, 0, 0, 0, 0, 0)).status()).isEqualTo(ScsiStatus.GOOD);
    }

    @Test
    void unitAttentionIsPerNexus() {
        h.core.nexusLoggedIn(NEXUS_A);
        h.core.nexusLoggedIn(NEXUS_B);
        h.core.logicalUnit(0).unitAttentions().raiseAll(SenseReason.POWER_ON_RESET);
        h.run(of(0x00, 0, 0, 0, 0, 0));
        ScsiCommand b = h.submit(NEXUS_B, 0, 2, of(0x00, 0, 0, 0, 0, 0), 0, null);
        assertSense(h.results.get(b), 6, 0x29, 0);
    }

    @Test
    void requestSenseReturnsAndClearsPendingUnitAttention() {
        h.core.nexusLoggedIn(NEXUS_A);
        h.core.logicalUnit(0).unitAttentions().raise(NEXUS_A, SenseReason.POWER_ON_RESET);
        Result r = h.run(of(0x03, 0, 0, 0, 18, 0));
        assertThat(r.status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(r.dataIn()[2] & 0xF).isEqualTo(6);
        assertThat(r.dataIn()[12]).isEqualTo((byte) 0x29);
        Result again = h.run(of(0x03, 0, 0, 0, 18, 0));
        assertThat(again.dataIn()[2] & 0xF).isZero();
        assertThat(h.run(of(0x00, 0, 0, 0, 0, 0)).status()).isEqualTo(ScsiStatus.GOOD);
    }

    @Test
    void runtimeExceptionInHandlerGivesInternalTargetFailureAndKeepsServing() {
        store.bugNext = new IllegalStateException("boom");
        assertSense(h.run(org.jtarget.scsi.lun.Cdbs.rw10(0x28, 0, 0, 1)), 4, 0x44, 0);
        assertThat(h.run(org.jtarget.scsi.lun.Cdbs.rw10(0x28, 0, 0, 1)).status()).isEqualTo(ScsiStatus.GOOD);
    }

    @Test
    void fullIoQueueGivesTaskSetFull() {
        CoreHarness blocking = CoreHarness.of(new TestStore(512, 64, false, false), false);
        blocking.rejectIo = true;
        Result r = blocking.run(org.jtarget.scsi.lun.Cdbs.rw10(0x28, 0, 0, 1));
        assertThat(r.status()).isEqualTo(ScsiStatus.TASK_SET_FULL);
        assertThat(r.dataIn()).isNull();
    }

    @Test
    void blockingStoreCompletesOnlyWhenIoRuns() {
        CoreHarness blocking = CoreHarness.of(new TestStore(512, 64, false, false), false);
        ScsiCommand cmd = blocking.submit(NEXUS_A, 0, 1, org.jtarget.scsi.lun.Cdbs.rw10(0x28, 0, 0, 2), 1024, null);
        assertThat(blocking.results).isEmpty();
        blocking.runIo();
        assertThat(blocking.results.get(cmd).dataIn()).hasSize(1024);
    }
}
