package org.jtarget.fabric.iscsi.session;

import org.jtarget.fabric.iscsi.pdu.IscsiPdu;
import org.jtarget.fabric.iscsi.pdu.Opcode;
import org.jtarget.io.LunIoExecutors;
import org.jtarget.scsi.lun.LogicalUnitDefinition;
import org.jtarget.scsi.lun.LunQueueDepth;
import org.jtarget.scsi.lun.ScsiTargetCore;
import org.jtarget.scsi.lun.TestStore;
import org.jtarget.scsi.spi.ScsiStatus;
import org.junit.jupiter.api.Test;

import java.util.ArrayDeque;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * LU queue depth as the iSCSI engine sees it: the core parks commands past the LU's depth and
 * tells the engine (FabricOps.commandParked / commandUnparked), which holds the session's MaxCmdSN
 * while any of its commands is parked (RFC 7143 4.2.2.1) and releases it after the last one; a
 * parked write gets no R2T; NOP and task management flow. The real core runs on a blocking store
 * whose I/O the test runs by hand ({@link #storeIo}), so "a slow store" is I/O not run yet.
 * Window 4, queue depth 2 on LUN 0 unless said otherwise.
 */
class TaskSequencerQueueDepthTest {

    private static final long ISID_A = 0x23d000000001L;
    private static final long ISID_B = 0x23d000000002L;

    private final ArrayDeque<Runnable> storeIo = new ArrayDeque<>();
    private final TestStore store = new TestStore(512, 64, false, false);

    private ScsiTargetCore core(int queueDepth) {
        return new ScsiTargetCore(SessionFixture.TARGET,
                List.of(new LogicalUnitDefinition(0, store, false, false, 0, null, queueDepth)),
                new LunIoExecutors(name -> storeIo::add));
    }

    private LunQueueDepth depth(ScsiTargetCore core) {
        return core.logicalUnit(0).queueDepth();
    }

    /** The header fields of a PDU the target sent. */
    record Seen(int opcode, int itt, int ttt, int maxCmdSn, int byte2, int byte3) {
    }

    /** Every PDU sent since the last call (released). */
    private static List<Seen> sent(SessionFixture f) {
        List<IscsiPdu> out = f.sent();
        List<Seen> seen = out.stream().map(p -> new Seen(p.opcode(), p.initiatorTaskTag(), p.targetTransferTag(),
                p.maxCmdSn(), p.byte2(), p.byte3())).toList();
        SessionFixture.release(out);
        return seen;
    }

    /** The single PDU sent since the last call, checked to be {@code opcode}. */
    private static Seen onlySent(SessionFixture f, int opcode) {
        List<Seen> out = sent(f);
        assertThat(out).hasSize(1);
        assertThat(out.getFirst().opcode()).isEqualTo(opcode);
        return out.getFirst();
    }

    /** The store finishes its oldest I/O; the session's loop runs what that brings (completion, admission). */
    private void storeFinishesOne(SessionFixture... sessions) {
        storeIo.poll().run();
        for (SessionFixture f : sessions) {
            f.channel.runPendingTasks();
        }
    }

    @Test
    void maxCmdSnIsHeldWhileACommandIsParkedAndMovesOnAfterTheLast() {
        ScsiTargetCore core = core(2);
        try (SessionFixture f = new SessionFixture(core, ISID_A)) {
            f.send(f.command(1, 1, false, false, 0, null, true)); // TEST UNIT READY: ends at once
            assertThat(onlySent(f, Opcode.SCSI_RESPONSE).byte3()).isEqualTo(ScsiStatus.GOOD);
            for (int i = 2; i <= 5; i++) {
                f.send(read10(f, i, i));
            }
            assertThat(storeIo).as("two commands at the store, two parked").hasSize(2);
            assertThat(f.session().window().held()).isEqualTo(2);
            int held = f.session().window().maxCmdSn();
            assertThat(held).isEqualTo(5);

            for (int done = 1; done <= 2; done++) {
                storeFinishesOne(f); // a parked one takes the slot
                Seen dataIn = onlySent(f, Opcode.SCSI_DATA_IN);
                assertThat(dataIn.byte3()).isEqualTo(ScsiStatus.GOOD);
                assertThat(dataIn.maxCmdSn()).as("held while a command is parked").isEqualTo(held);
                assertThat(storeIo).hasSize(2);
            }
            assertThat(f.session().window().held()).isZero();
            storeFinishesOne(f);
            assertThat(onlySent(f, Opcode.SCSI_DATA_IN).maxCmdSn()).as("reopened").isEqualTo(held + 3);
            storeFinishesOne(f);
            assertThat(onlySent(f, Opcode.SCSI_DATA_IN).maxCmdSn()).isEqualTo(5 + SessionFixture.WINDOW);
            assertThat(store.calls).containsExactly("read 2 1", "read 3 1", "read 4 1", "read 5 1");
            assertThat(depth(core).outstanding()).isZero();
        }
    }

    @Test
    void aParkedWriteGetsNoR2tUntilAdmittedWhileNopsFlow() {
        ScsiTargetCore core = core(2);
        try (SessionFixture f = new SessionFixture(core, ISID_A)) {
            f.send(read10(f, 1, 1));
            f.send(read10(f, 2, 2));
            f.send(write10(f, 3, 3));
            assertThat(f.sent()).as("no R2T for the parked write").isEmpty();
            f.send(f.nopOut(0x77, IscsiPdu.RESERVED_TAG, 4, false, io.netty.buffer.Unpooled.EMPTY_BUFFER));
            assertThat(onlySent(f, Opcode.NOP_IN).itt()).isEqualTo(0x77);

            storeFinishesOne(f);
            List<Seen> out = sent(f);
            assertThat(out).extracting(Seen::opcode).containsExactly(Opcode.SCSI_DATA_IN, Opcode.R2T);
            Seen r2t = out.get(1);
            assertThat(r2t.itt()).isEqualTo(3);
            f.send(f.dataOut(3, r2t.ttt(), 0, 0, SessionFixture.bytes(512, 1), true));
            storeFinishesOne(f);
            storeFinishesOne(f);
            f.sent().forEach(IscsiPdu::release);
            assertThat(store.calls).containsExactly("read 1 1", "read 2 1", "write 3 1");
        }
    }

    @Test
    void abortTaskOfAParkedCommandIsAnsweredAfterItEndedAndReleasesTheWindow() {
        ScsiTargetCore core = core(2);
        try (SessionFixture f = new SessionFixture(core, ISID_A)) {
            f.send(read10(f, 1, 1));
            f.send(read10(f, 2, 2));
            f.send(read10(f, 3, 3));
            assertThat(f.session().window().held()).isEqualTo(1);
            f.send(tmf(f, 1, 0x99, 3, 4, 3, true)); // ABORT TASK of the parked read
            f.channel.runPendingTasks();
            Seen rsp = onlySent(f, Opcode.TASK_MGMT_RESPONSE); // no NOP-In: the response carries MaxCmdSN
            assertThat(rsp.byte2()).isEqualTo(0); // Function Complete
            assertThat(rsp.maxCmdSn()).isEqualTo(3 + SessionFixture.WINDOW - 2);
            assertThat(f.session().window().held()).isZero();
            assertThat(f.connection.tasks().find(3)).isNull();
            assertThat(depth(core).waiting()).isZero();
            storeFinishesOne(f);
            storeFinishesOne(f);
            f.sent().forEach(IscsiPdu::release);
            assertThat(store.calls).containsExactly("read 1 1", "read 2 1");
            assertThat(depth(core).outstanding()).isZero();
        }
    }

    @Test
    void lunResetFromAnotherSessionEndsParkedCommandsAndAnnouncesTheWindow() {
        ScsiTargetCore core = core(2);
        try (SessionFixture a = new SessionFixture(core, ISID_A);
             SessionFixture b = new SessionFixture(core, ISID_B)) {
            a.send(read10(a, 1, 1));
            a.send(read10(a, 2, 2));
            b.send(read10(b, 3, 1)); // parked in session B
            assertThat(b.session().window().held()).isEqualTo(1);
            int heldB = b.session().window().maxCmdSn();

            a.send(tmf(a, 5, 0x99, 0, 3, 0, true)); // LOGICAL UNIT RESET
            b.channel.runPendingTasks();
            Seen update = onlySent(b, Opcode.NOP_IN);
            assertThat(update.itt()).isEqualTo(IscsiPdu.RESERVED_TAG);
            assertThat(update.ttt()).isEqualTo(IscsiPdu.RESERVED_TAG);
            assertThat(update.maxCmdSn()).isEqualTo(heldB + 1);
            assertThat(b.connection.tasks().isEmpty()).isTrue();
            assertThat(depth(core).waiting()).isZero();

            storeFinishesOne(a); // a's aborted reads end when their I/O returns; then the reset is answered
            storeFinishesOne(a);
            assertThat(onlySent(a, Opcode.TASK_MGMT_RESPONSE).byte2()).isEqualTo(0);
            assertThat(store.calls).isEmpty();
            assertThat(depth(core).outstanding()).isZero();
        }
    }

    @Test
    void immediateCommandsPastAWindowOfParkedOnesGetTaskSetFull() {
        ScsiTargetCore core = core(1);
        try (SessionFixture f = new SessionFixture(core, ISID_A)) {
            f.send(read10(f, 1, 1));
            for (int i = 0; i < SessionFixture.WINDOW; i++) {
                IscsiPdu immediate = read10(f, 10 + i, 2);
                immediate.immediate(true);
                f.send(immediate);
            }
            assertThat(f.sent()).isEmpty();
            IscsiPdu flood = read10(f, 20, 2);
            flood.immediate(true);
            f.send(flood);
            Seen rsp = onlySent(f, Opcode.SCSI_RESPONSE);
            assertThat(rsp.itt()).isEqualTo(20);
            assertThat(rsp.byte3()).isEqualTo(ScsiStatus.TASK_SET_FULL);
            assertThat(depth(core).waiting()).isEqualTo(SessionFixture.WINDOW);
        }
    }

    @Test
    void aSessionThatEndsGivesBackEverySlotAndItsParkedCommandsNeverRun() {
        ScsiTargetCore core = core(2);
        try (SessionFixture a = new SessionFixture(core, ISID_A);
             SessionFixture b = new SessionFixture(core, ISID_B)) {
            a.send(read10(a, 1, 1));
            a.send(read10(a, 2, 2));
            a.send(read10(a, 3, 3));
            b.send(read10(b, 4, 1));
            assertThat(depth(core).waiting()).isEqualTo(2);
            a.channel.close(); // the session ends: the core aborts its commands and drops its parked one
            a.channel.runPendingTasks();
            assertThat(depth(core).waiting()).isEqualTo(1);
            storeFinishesOne(a, b); // a's aborted reads end; b's parked read gets a slot
            storeFinishesOne(a, b);
            assertThat(storeIo).hasSize(1);
            storeFinishesOne(a, b);
            assertThat(onlySent(b, Opcode.SCSI_DATA_IN).itt()).isEqualTo(4);
            assertThat(store.calls).containsExactly("read 4 1");
            assertThat(depth(core).outstanding()).isZero();
            assertThat(depth(core).waiting()).isZero();
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

    /** READ(10) of one 512-byte block at LBA {@code itt}. */
    private static IscsiPdu read10(SessionFixture f, int itt, int cmdSn) {
        return oneBlockAtItt(f.command(itt, cmdSn, true, false, 512, null, true), itt);
    }

    /** WRITE(10) of one 512-byte block at LBA {@code itt}, all its data solicited. */
    private static IscsiPdu write10(SessionFixture f, int itt, int cmdSn) {
        return oneBlockAtItt(f.command(itt, cmdSn, false, true, 512, null, true), itt);
    }

    private static IscsiPdu oneBlockAtItt(IscsiPdu pdu, int itt) {
        pdu.bhs().setInt(IscsiPdu.CDB_OFFSET + 2, itt);
        pdu.bhs().setShort(IscsiPdu.CDB_OFFSET + 7, 1);
        return pdu;
    }
}
