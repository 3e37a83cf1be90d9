package org.jtarget.scsi.lun;

import org.jtarget.scsi.spi.ScsiCommand;
import org.jtarget.scsi.spi.ScsiStatus;
import org.jtarget.scsi.spi.TmfRequest;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.jtarget.scsi.lun.CoreHarness.NEXUS_A;
import static org.jtarget.scsi.lun.CoreHarness.NEXUS_B;

/**
 * Queue-depth admission in the core: past its LU's queue depth a command is parked in the task set
 * (no data-out asked for, no store I/O, the fabric told), admitted first in, first out as admitted
 * commands end, and aborted there by task management and nexus loss. The store is blocking and
 * its I/O runs only when the test says ({@link CoreHarness#io}), so "busy" is simply "not run yet".
 * A LU added at run time (config reload) is covered in {@code TargetRegistryTest}.
 */
class QueueDepthAdmissionTest {

    private static final int READ_10 = 0x28;
    private static final int WRITE_10 = 0x2A;

    private final TestStore store = new TestStore(512, 64, false, false);

    private CoreHarness harness(int queueDepth) {
        return new CoreHarness(List.of(new LogicalUnitDefinition(0, store, false, false, 0, null, queueDepth)));
    }

    private static ScsiCommand read(CoreHarness h, org.jtarget.scsi.spi.ITNexus nexus, int lun, long tag) {
        return h.submit(nexus, lun, tag, Cdbs.rw10(READ_10, 0, tag, 1), 512, null);
    }

    private static void runOneIo(CoreHarness h) {
        h.io.poll().run();
    }

    @Test
    void parksPastTheDepthAsksNoDataOutAndAdmitsInArrivalOrder() {
        CoreHarness h = harness(2);
        LunQueueDepth depth = h.core.logicalUnit(0).queueDepth();
        ScsiCommand first = read(h, NEXUS_A, 0, 1);
        read(h, NEXUS_B, 0, 2);
        ScsiCommand write = h.submit(NEXUS_A, 0, 3, Cdbs.rw10(WRITE_10, 0, 3, 1), 512, Cdbs.filled(512, 7));
        ScsiCommand last = read(h, NEXUS_B, 0, 4);
        assertThat(h.events).containsExactly("parked 3", "parked 4");
        assertThat(h.io).as("two at the store").hasSize(2);
        assertThat(depth.outstanding()).isEqualTo(2);
        assertThat(depth.waiting()).isEqualTo(2);
        assertThat(h.core.logicalUnit(0).taskSet().size()).as("parked commands are in the task set").isEqualTo(4);

        runOneIo(h); // the first read ends: the write (oldest parked) gets its slot and only now its data
        assertThat(h.results.get(first).status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(h.events).containsExactly("parked 3", "parked 4", "dataIn", "unparked 3", "writePending 512");
        assertThat(depth.waiting()).isEqualTo(1);

        h.runIo();
        assertThat(h.results.get(last).status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(h.results.get(write).status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(store.calls).containsExactly("read 1 1", "read 2 1", "write 3 1", "read 4 1");
        assertThat(depth.outstanding()).isZero();
        assertThat(depth.waiting()).isZero();
        assertThat(h.core.logicalUnit(0).taskSet().size()).isZero();
    }

    @Test
    void aNewcomerWaitsBehindParkedCommandsEvenWhenASlotIsFree() {
        CoreHarness h = harness(1);
        read(h, NEXUS_A, 0, 1);
        read(h, NEXUS_A, 0, 2);
        runOneIo(h); // 1 ends, 2 takes the slot and goes to the store
        read(h, NEXUS_B, 0, 3);
        assertThat(h.events).endsWith("parked 3");
        h.runIo();
        assertThat(store.calls).containsExactly("read 1 1", "read 2 1", "read 3 1");
    }

    @Test
    void abortTaskEndsAParkedCommandWithoutStatusOrStoreIo() {
        CoreHarness h = harness(1);
        read(h, NEXUS_A, 0, 1);
        ScsiCommand parked = read(h, NEXUS_A, 0, 2);
        TmfRequest abort = h.tmf(TmfRequest.Function.ABORT_TASK, NEXUS_A, 0, 2);
        assertThat(h.results.get(parked).end()).isEqualTo("aborted");
        assertThat(h.tmfResponses).containsExactly(abort);
        assertThat(abort.response()).isEqualTo(TmfRequest.Response.FUNCTION_COMPLETE);
        assertThat(h.events).containsExactly("parked 2", "unparked 2", "aborted", "tmf FUNCTION_COMPLETE");
        LunQueueDepth depth = h.core.logicalUnit(0).queueDepth();
        assertThat(depth.waiting()).isZero();
        h.runIo();
        assertThat(store.calls).containsExactly("read 1 1");
        assertThat(depth.outstanding()).isZero();
    }

    @Test
    void logicalUnitResetCancelsTheParkedCommandsOfEveryNexusBeforeItAnswers() {
        CoreHarness h = harness(1);
        ScsiCommand running = read(h, NEXUS_A, 0, 1);
        ScsiCommand parkedB = read(h, NEXUS_B, 0, 2);
        ScsiCommand parkedA = read(h, NEXUS_A, 0, 3);
        h.tmf(TmfRequest.Function.LOGICAL_UNIT_RESET, NEXUS_A, 0, 0);
        assertThat(h.results.get(parkedB).end()).isEqualTo("aborted");
        assertThat(h.results.get(parkedA).end()).isEqualTo("aborted");
        assertThat(h.tmfResponses).as("the running command has not ended yet").isEmpty();
        h.runIo();
        assertThat(h.results.get(running).end()).isEqualTo("aborted");
        assertThat(h.tmfResponses).hasSize(1);
        assertThat(store.calls).isEmpty();
        LunQueueDepth depth = h.core.logicalUnit(0).queueDepth();
        assertThat(depth.outstanding()).isZero();
        assertThat(depth.waiting()).isZero();
    }

    @Test
    void nexusLossDropsItsParkedCommandsAndTheOthersGoOn() {
        CoreHarness h = harness(1);
        h.core.nexusLoggedIn(NEXUS_A);
        h.core.nexusLoggedIn(NEXUS_B);
        ScsiCommand running = read(h, NEXUS_A, 0, 1);
        ScsiCommand lostParked = read(h, NEXUS_A, 0, 2);
        ScsiCommand otherParked = read(h, NEXUS_B, 0, 3);
        h.core.nexusLoggedOut(NEXUS_A);
        assertThat(h.results.get(lostParked).end()).isEqualTo("aborted");
        assertThat(h.results).doesNotContainKey(otherParked);
        h.runIo();
        assertThat(h.results.get(running).end()).isEqualTo("aborted");
        assertThat(h.results.get(otherParked).end()).isEqualTo("dataIn");
        assertThat(store.calls).as("B's command got the slot; A's never touched the store").containsExactly("read 3 1");
    }

    @Test
    void aFabricThatRefusesTheWaitGetsTaskSetFull() {
        CoreHarness h = harness(1);
        read(h, NEXUS_A, 0, 1);
        h.refusePark = true;
        ScsiCommand refused = read(h, NEXUS_A, 0, 2);
        assertThat(h.results.get(refused).status()).isEqualTo(ScsiStatus.TASK_SET_FULL);
        assertThat(h.events).containsExactly("parked 2", "unparked 2", "status");
        assertThat(h.core.logicalUnit(0).queueDepth().waiting()).isZero();
        assertThat(h.core.logicalUnit(0).taskSet().size()).isEqualTo(1);
    }
}
