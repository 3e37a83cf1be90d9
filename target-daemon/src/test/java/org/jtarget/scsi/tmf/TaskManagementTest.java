package org.jtarget.scsi.tmf;

import org.jtarget.scsi.lun.CoreHarness;
import org.jtarget.scsi.lun.TestStore;
import org.jtarget.scsi.spi.ScsiCommand;
import org.jtarget.scsi.spi.ScsiStatus;
import org.jtarget.scsi.spi.TmfRequest;
import org.jtarget.scsi.spi.TmfRequest.Function;
import org.jtarget.scsi.spi.TmfRequest.Response;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.jtarget.scsi.lun.Cdbs.of;
import static org.jtarget.scsi.lun.Cdbs.rw10;
import static org.jtarget.scsi.lun.CoreHarness.NEXUS_A;
import static org.jtarget.scsi.lun.CoreHarness.NEXUS_B;

class TaskManagementTest {

    private final TestStore store = new TestStore(512, 64, false, false);
    private final CoreHarness h = CoreHarness.of(store, false);

    @Test
    void abortTaskInStoreIoRespondsOnlyAfterTheIoReturns() {
        ScsiCommand cmd = h.submit(NEXUS_A, 0, 42, rw10(0x28, 0, 0, 1), 512, null);
        TmfRequest tmf = h.tmf(Function.ABORT_TASK, NEXUS_A, 0, 42);
        assertThat(h.tmfResponses).isEmpty();
        h.runIo();
        assertThat(h.results.get(cmd).end()).isEqualTo("aborted");
        assertThat(h.events).containsExactly("aborted", "tmf FUNCTION_COMPLETE");
        assertThat(tmf.response()).isEqualTo(Response.FUNCTION_COMPLETE);
        assertThat(store.calls).isEmpty(); // queued I/O of an aborted task is skipped
    }

    @Test
    void abortTaskWaitingForDataOutEndsItImmediately() {
        h.holdDataOut = true;
        ScsiCommand cmd = h.submit(NEXUS_A, 0, 7, rw10(0x2A, 0, 0, 1), 512, new byte[512]);
        h.tmf(Function.ABORT_TASK, NEXUS_A, 0, 7);
        assertThat(h.events).containsExactly("writePending 512", "aborted", "tmf FUNCTION_COMPLETE");
        assertThat(h.results.get(cmd).end()).isEqualTo("aborted");
    }

    @Test
    void fabricAbortedDataOutEndsWithAbortedTask() {
        h.holdDataOut = true;
        ScsiCommand cmd = h.submit(NEXUS_A, 0, 7, rw10(0x2A, 0, 0, 1), 512, new byte[512]);
        cmd.markAborted();
        h.deliver(cmd);
        assertThat(h.results.get(cmd).end()).isEqualTo("aborted");
        assertThat(store.calls).isEmpty();
    }

    @Test
    void abortTaskForUnknownTagGivesTaskDoesNotExist() {
        h.tmf(Function.ABORT_TASK, NEXUS_A, 0, 99);
        assertThat(h.tmfResponses).singleElement().extracting(TmfRequest::response)
                .isEqualTo(Response.TASK_DOES_NOT_EXIST);
    }

    @Test
    void abortTaskDoesNotTouchAnotherNexusTaskWithTheSameTag() {
        ScsiCommand b = h.submit(NEXUS_B, 0, 5, rw10(0x28, 0, 0, 1), 512, null);
        h.tmf(Function.ABORT_TASK, NEXUS_A, 0, 5);
        h.runIo();
        assertThat(h.results.get(b).end()).isEqualTo("dataIn");
        assertThat(h.tmfResponses.get(0).response()).isEqualTo(Response.TASK_DOES_NOT_EXIST);
    }

    @Test
    void tmfOnMissingLunGivesLunDoesNotExist() {
        h.tmf(Function.LOGICAL_UNIT_RESET, NEXUS_A, 3, 0);
        assertThat(h.tmfResponses.get(0).response()).isEqualTo(Response.LUN_DOES_NOT_EXIST);
    }

    @Test
    void logicalUnitResetAbortsAllAndRaisesBusDeviceResetForEveryNexus() {
        h.core.nexusLoggedIn(NEXUS_A);
        h.core.nexusLoggedIn(NEXUS_B);
        h.run(of(0x03, 0, 0, 0, 18, 0)); // A: REQUEST SENSE, nothing pending
        ScsiCommand b = h.submit(NEXUS_B, 0, 5, of(0x03, 0, 0, 0, 18, 0), 18, null); // B: the same
        ScsiCommand a1 = h.submit(NEXUS_A, 0, 1, rw10(0x28, 0, 0, 1), 512, null);
        ScsiCommand b1 = h.submit(NEXUS_B, 0, 2, rw10(0x28, 0, 0, 1), 512, null);
        h.tmf(Function.LOGICAL_UNIT_RESET, NEXUS_A, 0, 0);
        assertThat(h.tmfResponses).isEmpty();
        h.runIo();
        assertThat(h.results.get(a1).end()).isEqualTo("aborted");
        assertThat(h.results.get(b1).end()).isEqualTo("aborted");
        assertThat(h.events).last().isEqualTo("tmf FUNCTION_COMPLETE");
        ScsiCommand tur = h.submit(NEXUS_B, 0, 9, of(0, 0, 0, 0, 0, 0), 0, null);
        assertThat(h.results.get(tur).asc()).isEqualTo(0x29);
        assertThat(h.results.get(tur).ascq()).isEqualTo(0x03);
        assertThat(h.results.get(b).status()).isEqualTo(ScsiStatus.GOOD);
    }

    @Test
    void clearTaskSetTellsOtherNexusItsCommandsWereCleared() {
        h.submit(NEXUS_B, 0, 2, rw10(0x28, 0, 0, 1), 512, null);
        h.tmf(Function.CLEAR_TASK_SET, NEXUS_A, 0, 0);
        h.runIo();
        ScsiCommand tur = h.submit(NEXUS_B, 0, 9, of(0, 0, 0, 0, 0, 0), 0, null);
        assertThat(h.results.get(tur).asc()).isEqualTo(0x2F);
    }

    @Test
    void targetResetWithNoTasksRespondsAtOnce() {
        h.tmf(Function.TARGET_WARM_RESET, NEXUS_A, 0, 0);
        assertThat(h.tmfResponses.get(0).response()).isEqualTo(Response.FUNCTION_COMPLETE);
    }

    @Test
    void clearAcaIsNotSupported() {
        h.tmf(Function.CLEAR_ACA, NEXUS_A, 0, 0);
        assertThat(h.tmfResponses.get(0).response()).isEqualTo(Response.FUNCTION_NOT_SUPPORTED);
    }

    @Test
    void nexusLogoutAbortsItsTasks() {
        ScsiCommand a = h.submit(NEXUS_A, 0, 1, rw10(0x28, 0, 0, 1), 512, null);
        h.core.nexusLoggedOut(NEXUS_A);
        h.runIo();
        assertThat(h.results.get(a).end()).isEqualTo("aborted");
    }
}
