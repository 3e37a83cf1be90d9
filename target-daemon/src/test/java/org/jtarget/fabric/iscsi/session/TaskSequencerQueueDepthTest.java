package org.jtarget.fabric.iscsi.session;

import org.jtarget.fabric.iscsi.pdu.IscsiPdu;
import org.jtarget.fabric.iscsi.pdu.Opcode;
import org.jtarget.io.LunQueueDepth;
import org.jtarget.io.LunIoExecutors;
import org.jtarget.io.LunQueueDepths;
import org.jtarget.scsi.lun.LogicalUnitDefinition;
import org.jtarget.scsi.lun.ScsiTargetCore;
import org.jtarget.scsi.lun.TestStore;
import org.jtarget.scsi.spi.ScsiCommand;
import org.jtarget.scsi.spi.ScsiStatus;
import org.junit.jupiter.api.Test;

import java.util.ArrayDeque;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * LU queue depth in the iSCSI session: commands past the LU's limit wait without reaching the
 * core, the session's MaxCmdSN stops advancing while they wait, and everything else flows. The
 * test plays the core (FakeCore): it ends commands by hand, so a "slow store" is simply one the
 * test has not completed yet. Window 4, queue depth 2 on LUN 0.
 */
class TaskSequencerQueueDepthTest {

    private static final long ISID_A = 0x23d000000001L;
    private static final long ISID_B = 0x23d000000002L;

    private static LunQueueDepths depth2() {
        return new LunQueueDepths().limit(SessionFixture.TARGET, 0, 2);
    }

    private static void complete(ScsiCommand cmd) {
        cmd.status(ScsiStatus.GOOD);
        cmd.fabric().queueStatus(cmd);
    }

    /** The header fields of a PDU the target sent. */
    record Seen(int itt, int ttt, int maxCmdSn, int byte2, int byte3) {
        int initiatorTaskTag() { return itt; }
        int targetTransferTag() { return ttt; }
    }

    /** The single PDU sent since the last call (released), checked to be {@code opcode}. */
    private static Seen onlySent(SessionFixture f, int opcode) {
        List<IscsiPdu> out = f.sent();
        assertThat(out).hasSize(1);
        IscsiPdu p = out.getFirst();
        assertThat(p.opcode()).isEqualTo(opcode);
        Seen seen = new Seen(p.initiatorTaskTag(), p.targetTransferTag(), p.maxCmdSn(), p.byte2(), p.byte3());
        SessionFixture.release(out);
        return seen;
    }

    @Test
    void maxCmdSnStopsWhileTheLuIsSaturatedAndResumesAsWaitingCommandsGetIn() {
        LunQueueDepths depths = depth2();
        try (SessionFixture f = new SessionFixture(new FakeCore(), depths, ISID_A)) {
            LunQueueDepth lu = depths.forTarget(SessionFixture.TARGET)[0];
            f.send(f.command(1, 1, false, false, 0, null, true));
            f.send(f.command(2, 2, false, false, 0, null, true));
            f.send(f.command(3, 3, false, false, 0, null, true));
            f.send(f.command(4, 4, false, false, 0, null, true));
            assertThat(f.core.submittedTags).containsExactly(1L, 2L);
            assertThat(lu.outstanding()).isEqualTo(2);
            assertThat(lu.waiting()).isEqualTo(2);
            // ExpCmdSN 5, four slots taken: MaxCmdSN = 4 when the first command began to wait... held at 3 + 4 - 3 = 4
            int held = f.session().window().maxCmdSn();

            complete(f.core.submitted.get(0)); // the store finished one: command 3 gets in, 4 still waits
            Seen rsp = onlySent(f, Opcode.SCSI_RESPONSE);
            assertThat(rsp.maxCmdSn()).as("window held: a completion frees no CmdSN").isEqualTo(held);
            f.channel.runPendingTasks();
            assertThat(f.core.submittedTags).containsExactly(1L, 2L, 3L);

            complete(f.core.submitted.get(1)); // command 4 gets in: nothing waits any more
            rsp = onlySent(f, Opcode.SCSI_RESPONSE);
            assertThat(rsp.maxCmdSn()).isEqualTo(held);
            f.channel.runPendingTasks();
            assertThat(f.core.submittedTags).containsExactly(1L, 2L, 3L, 4L);
            assertThat(lu.waiting()).isZero();

            complete(f.core.submitted.get(2));
            rsp = onlySent(f, Opcode.SCSI_RESPONSE);
            assertThat(rsp.maxCmdSn()).as("reopened: the three ended commands' slots are back")
                    .isEqualTo(held + 3);
            complete(f.core.submitted.get(3));
            assertThat(onlySent(f, Opcode.SCSI_RESPONSE).maxCmdSn()).isEqualTo(4 + SessionFixture.WINDOW);
            assertThat(lu.outstanding()).isZero();
        }
    }

    @Test
    void waitingCommandSendsNoR2tButAdmittedWritesAndNopsFlow() {
        LunQueueDepths depths = depth2();
        try (SessionFixture f = new SessionFixture(new FakeCore(), depths, ISID_A)) {
            f.send(f.command(1, 1, false, true, 4096, null, true));
            f.send(f.command(2, 2, true, false, 512, null, true));
            f.send(f.command(3, 3, false, true, 4096, null, true)); // waits
            assertThat(f.core.submitted).hasSize(2);
            ScsiCommand write = f.core.submitted.get(0);
            write.dataOutLength(4096);
            write.fabric().writePending(write);
            Seen r2t = onlySent(f, Opcode.R2T);
            assertThat(r2t.initiatorTaskTag()).isEqualTo(1);
            f.send(f.dataOut(1, r2t.targetTransferTag(), 0, 0, SessionFixture.bytes(4096, 1), true));
            assertThat(f.core.dataOutComplete).containsExactly(write);

            ScsiCommand read = f.core.submitted.get(1);
            read.dataIn(SessionFixture.bytes(512, 0));
            read.status(ScsiStatus.GOOD);
            read.fabric().queueDataIn(read);
            assertThat(onlySent(f, Opcode.SCSI_DATA_IN).initiatorTaskTag()).isEqualTo(2);

            f.send(f.nopOut(0x77, IscsiPdu.RESERVED_TAG, 4, false, io.netty.buffer.Unpooled.EMPTY_BUFFER));
            assertThat(onlySent(f, Opcode.NOP_IN).initiatorTaskTag()).isEqualTo(0x77);
            f.channel.runPendingTasks();
            assertThat(f.core.submittedTags).containsExactly(1L, 2L, 3L);
            complete(write);
            f.sent().forEach(IscsiPdu::release);
            f.channel.runPendingTasks();
            ScsiCommand third = f.core.submitted.get(2);
            third.dataOutLength(4096);
            third.fabric().writePending(third);
            assertThat(onlySent(f, Opcode.R2T).initiatorTaskTag()).isEqualTo(3);
        }
    }

    @Test
    void abortTaskOfAWaitingCommandEndsItWithoutTheCore() {
        LunQueueDepths depths = depth2();
        try (SessionFixture f = new SessionFixture(new FakeCore(), depths, ISID_A)) {
            LunQueueDepth lu = depths.forTarget(SessionFixture.TARGET)[0];
            f.send(f.command(1, 1, false, false, 0, null, true));
            f.send(f.command(2, 2, false, false, 0, null, true));
            f.send(f.command(3, 3, false, false, 0, null, true));
            f.send(tmf(f, 1, 0x99, 3, 4, 3, true));
            Seen rsp = onlySent(f, Opcode.TASK_MGMT_RESPONSE);
            assertThat(rsp.byte2()).isEqualTo(0); // Function Complete
            assertThat(f.core.tmfs).isEmpty();
            assertThat(lu.waiting()).isZero();
            assertThat(f.session().window().held()).isZero();
            assertThat(f.connection.tasks().find(3)).isNull();
            complete(f.core.submitted.get(0));
            f.sent().forEach(IscsiPdu::release);
            f.channel.runPendingTasks();
            assertThat(f.core.submittedTags).containsExactly(1L, 2L);
            assertThat(lu.outstanding()).isEqualTo(1);
        }
    }

    @Test
    void lunResetFromAnotherSessionDropsWaitingCommandsAndAnnouncesTheWindow() {
        LunQueueDepths depths = depth2();
        try (SessionFixture a = new SessionFixture(new FakeCore(), depths, ISID_A);
             SessionFixture b = new SessionFixture(new FakeCore(), depths, ISID_B)) {
            LunQueueDepth lu = depths.forTarget(SessionFixture.TARGET)[0];
            a.send(a.command(1, 1, false, false, 0, null, true));
            a.send(a.command(2, 2, false, false, 0, null, true));
            b.send(b.command(1, 1, false, false, 0, null, true)); // waits in session B
            assertThat(b.core.submitted).isEmpty();
            int heldB = b.session().window().maxCmdSn();

            a.send(tmf(a, 5, 0x99, 0, 3, 0, true)); // LOGICAL UNIT RESET
            assertThat(a.core.tmfs).hasSize(1);
            assertThat(lu.waiting()).isZero();
            b.channel.runPendingTasks();
            Seen update = onlySent(b, Opcode.NOP_IN);
            assertThat(update.initiatorTaskTag()).isEqualTo(IscsiPdu.RESERVED_TAG);
            assertThat(update.targetTransferTag()).isEqualTo(IscsiPdu.RESERVED_TAG);
            assertThat(update.maxCmdSn()).isEqualTo(heldB + 1);
            assertThat(b.connection.tasks().isEmpty()).isTrue();
            assertThat(b.core.submitted).isEmpty();
        }
    }

    @Test
    void immediateCommandsPastAWindowOfWaitersGetTaskSetFull() {
        LunQueueDepths depths = new LunQueueDepths().limit(SessionFixture.TARGET, 0, 1);
        try (SessionFixture f = new SessionFixture(new FakeCore(), depths, ISID_A)) {
            f.send(f.command(1, 1, false, false, 0, null, true));
            for (int i = 0; i < SessionFixture.WINDOW; i++) {
                IscsiPdu immediate = f.command(10 + i, 2, false, false, 0, null, true);
                immediate.immediate(true);
                f.send(immediate);
            }
            assertThat(f.sent()).isEmpty();
            IscsiPdu flood = f.command(20, 2, false, false, 0, null, true);
            flood.immediate(true);
            f.send(flood);
            Seen rsp = onlySent(f, Opcode.SCSI_RESPONSE);
            assertThat(rsp.initiatorTaskTag()).isEqualTo(20);
            assertThat(rsp.byte3()).isEqualTo(ScsiStatus.TASK_SET_FULL);
            assertThat(f.core.submitted).hasSize(1);
        }
    }

    @Test
    void connectionLossGivesBackEverySlot() {
        LunQueueDepths depths = depth2();
        try (SessionFixture a = new SessionFixture(new FakeCore(), depths, ISID_A);
             SessionFixture b = new SessionFixture(new FakeCore(), depths, ISID_B)) {
            LunQueueDepth lu = depths.forTarget(SessionFixture.TARGET)[0];
            a.send(a.command(1, 1, false, false, 0, null, true));
            a.send(a.command(2, 2, false, false, 0, null, true));
            a.send(a.command(3, 3, false, false, 0, null, true));
            b.send(b.command(1, 1, false, false, 0, null, true));
            assertThat(lu.waiting()).isEqualTo(2);
            a.channel.close(); // a's two submitted commands are aborted in the core, its waiter dropped
            a.channel.runPendingTasks();
            assertThat(lu.waiting()).isEqualTo(1);
            for (ScsiCommand cmd : a.core.submitted) {
                cmd.fabric().abortedTask(cmd); // the core ends them when their I/O returns
            }
            b.channel.runPendingTasks();
            assertThat(b.core.submitted).hasSize(1);
            complete(b.core.submitted.getFirst());
            b.sent().forEach(IscsiPdu::release);
            assertThat(lu.outstanding()).isZero();
            assertThat(lu.waiting()).isZero();
        }
    }

    static IscsiPdu tmf(SessionFixture f, int function, int itt, int refItt, int cmdSn, int refCmdSn,
                        boolean immediate) {
        IscsiPdu pdu = IscsiPdu.create(f.alloc(), Opcode.TASK_MGMT_REQUEST);
        pdu.flags(0x80 | function);
        pdu.immediate(immediate);
        pdu.initiatorTaskTag(itt);
        pdu.word20(refItt);
        pdu.cmdSn(cmdSn);
        pdu.maxCmdSn(refCmdSn); // word 32: RefCmdSN
        return pdu;
    }

    /**
     * The real core on a blocking store whose I/O the test runs by hand (the LU's I/O executor
     * only collects tasks): the LU never has more than 2 commands at the store, MaxCmdSN in the
     * responses stays put while commands wait, and moves on once the store has caught up.
     */
    @Test
    void realCoreOnAHandRunStoreHoldsMaxCmdSnWhileTheLuIsSaturated() {
        ArrayDeque<Runnable> storeIo = new ArrayDeque<>();
        TestStore store = new TestStore(512, 64, false, false);
        ScsiTargetCore core = new ScsiTargetCore(SessionFixture.TARGET,
                List.of(new LogicalUnitDefinition(0, store, false, false)), new LunIoExecutors(name -> storeIo::add));
        try (SessionFixture f = new SessionFixture(core, depth2(), ISID_A)) {
            f.send(f.command(1, 1, false, false, 0, null, true)); // TEST UNIT READY: ends at once
            assertThat(onlySent(f, Opcode.SCSI_RESPONSE).byte3()).isEqualTo(ScsiStatus.GOOD);
            for (int i = 2; i <= 5; i++) {
                f.send(read10(f, i, i));
            }
            assertThat(storeIo).as("two commands at the store, two waiting").hasSize(2);
            int held = f.session().window().maxCmdSn();
            assertThat(held).isEqualTo(5);

            for (int done = 1; done <= 2; done++) {
                storeIo.poll().run(); // the store finishes one read; a waiting one takes its place
                f.channel.runPendingTasks();
                Seen dataIn = onlySent(f, Opcode.SCSI_DATA_IN);
                assertThat(dataIn.byte3()).isEqualTo(ScsiStatus.GOOD);
                assertThat(dataIn.maxCmdSn()).as("held while a command waits").isEqualTo(held);
                assertThat(storeIo).hasSize(2);
            }
            assertThat(f.session().window().held()).isZero();
            storeIo.poll().run();
            f.channel.runPendingTasks();
            assertThat(onlySent(f, Opcode.SCSI_DATA_IN).maxCmdSn()).as("reopened").isEqualTo(held + 3);
            storeIo.poll().run();
            f.channel.runPendingTasks();
            assertThat(onlySent(f, Opcode.SCSI_DATA_IN).maxCmdSn()).isEqualTo(5 + SessionFixture.WINDOW);
            assertThat(store.calls).containsExactly("read 2 1", "read 3 1", "read 4 1", "read 5 1");
        }
    }

    /** READ(10) of one 512-byte block at LBA {@code itt}. */
    private static IscsiPdu read10(SessionFixture f, int itt, int cmdSn) {
        IscsiPdu pdu = f.command(itt, cmdSn, true, false, 512, null, true);
        pdu.bhs().setInt(IscsiPdu.CDB_OFFSET + 2, itt);
        pdu.bhs().setShort(IscsiPdu.CDB_OFFSET + 7, 1);
        return pdu;
    }
}
