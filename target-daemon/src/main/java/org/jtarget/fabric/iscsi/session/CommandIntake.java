package org.jtarget.fabric.iscsi.session;

import io.netty.buffer.ByteBuf;
import org.jtarget.fabric.iscsi.login.NegotiatedParameters;
import org.jtarget.fabric.iscsi.pdu.IscsiPdu;
import org.jtarget.fabric.iscsi.pdu.RejectReason;
import org.jtarget.fabric.iscsi.pdu.ScsiWireCodes;
import org.jtarget.io.LunQueueDepth;
import org.jtarget.scsi.spi.DataDirection;
import org.jtarget.scsi.spi.LunAddress;
import org.jtarget.scsi.spi.ScsiCommand;
import org.jtarget.scsi.spi.ScsiStatus;

/**
 * SCSI Command intake of one connection (RFC 7143 11.3): validates the PDU, fills a pooled
 * {@link IscsiTask}'s {@link ScsiCommand}, and admits it to its LU.
 *
 * <p>LU queue depth: a command whose LU has a {@link LunQueueDepth} is submitted to the core only
 * once it holds a slot; until then it waits (its CmdSN consumed, no R2T sent, only unsolicited
 * data kept) and the session's window is held ({@link CmdSnWindow#hold()}). NOP, Text, task
 * management, Data-Out, R2T and Data-In never wait: only new SCSI commands do. Task management
 * ends waiting tasks itself, since the core has not seen them.
 */
final class CommandIntake {

    /** SCSI Command byte 1 (RFC 7143 11.3.1). */
    static final int CMD_READ_BIT = 0x40;
    static final int CMD_WRITE_BIT = 0x20;
    static final int CMD_ATTR_MASK = 0x07;
    /** AHS type 1: Extended CDB (RFC 7143 11.3.5). */
    static final int AHS_EXTENDED_CDB = 1;
    static final int AHS_HEADER_LENGTH = 4;
    static final int BHS_CDB_LENGTH = 16;

    private final TaskSequencer tasks;
    private final IscsiConnection connection;
    private final IscsiSession session;
    private final NegotiatedParameters params;

    CommandIntake(TaskSequencer tasks) {
        this.tasks = tasks;
        this.connection = tasks.connection();
        this.session = tasks.session();
        this.params = tasks.params();
    }

    /** A SCSI Command PDU whose CmdSN turn has come (consumes it). */
    void command(IscsiPdu pdu, boolean immediate) {
        try {
            int reason = validate(pdu);
            if (reason != 0) {
                connection.sendReject(reason, pdu.bhs());
                if (!immediate) {
                    session.window().completed();
                }
                return;
            }
            IscsiTask task = fill(pdu, immediate);
            tasks.track(task);
            if (admit(task)) {
                task.submitted = true;
                session.core().submit(task.cmd);
            }
        } finally {
            pdu.release();
        }
    }

    // ------------------------------------------------------------------ LU queue depth

    /**
     * Asks the task's LU queue depth for a slot.
     *
     * @return true if the task may go to the core now; false if it waits (or was answered)
     */
    private boolean admit(IscsiTask task) {
        LunQueueDepth depth = session.queueDepth(task.cmd.lun());
        if (depth == null) {
            return true;
        }
        CmdSnWindow<IscsiSession.QueuedCommand> window = session.window();
        if (task.immediate && window.held() >= window.size()) {
            // immediate commands bypass the window; past a window's worth of waiting commands the
            // initiator ignores back-pressure: SAM-5 5.3.1 TASK SET FULL is the last resort
            task.cmd.status(ScsiStatus.TASK_SET_FULL);
            tasks.responses().sendResponse(task, 0);
            return false;
        }
        task.queueDepth = depth;
        long generation = depth.enter(task);
        if (generation == LunQueueDepth.ADMITTED) {
            task.lunState = IscsiTask.LU_ENTERED;
            return true;
        }
        task.lunState = IscsiTask.LU_WAITING;
        task.waitGeneration = generation;
        window.hold(); // RFC 7143 4.2.2.1: MaxCmdSN stops advancing while the LU is saturated
        return false;
    }

    /** On the session loop: a waiting task holds a slot of its LU now; submit it. */
    void admitted(IscsiTask task) {
        if (task.lunState != IscsiTask.LU_WAITING) {
            task.queueDepth.exit(); // cannot happen: give the slot back rather than leak it
            return;
        }
        task.lunState = IscsiTask.LU_ENTERED;
        if (task.abortedWhileWaiting || task.waitGeneration != task.queueDepth.generation()
                || connection.isClosed()) {
            dropWaiting(task); // aborted while it waited: SAM-5 5.6, no status; the slot goes on
            return;
        }
        session.window().unhold();
        task.submitted = true;
        session.core().submit(task.cmd); // its R2T or status carries the reopened MaxCmdSN
    }

    /** The task ends: the slot it holds in its LU goes back (which may admit a waiting task of any session). */
    void leaveLu(IscsiTask task) {
        if (task.lunState == IscsiTask.LU_ENTERED) {
            task.lunState = IscsiTask.LU_NONE;
            task.queueDepth.exit();
        }
    }

    /** On the session loop: another I_T nexus cleared the task set while this task waited. */
    void cancelledWhileWaiting(IscsiTask task) {
        if (task.lunState != IscsiTask.LU_WAITING) {
            return;
        }
        task.lunState = IscsiTask.LU_NONE;
        dropWaiting(task);
    }

    /** Ends a task that waited, with no status; a MaxCmdSN that moved is announced (no response may come soon). */
    private void dropWaiting(IscsiTask task) {
        int before = session.window().maxCmdSn();
        session.window().unhold();
        tasks.finish(task);
        if (session.window().maxCmdSn() != before) {
            connection.announceWindow();
        }
    }

    /** Ends a task that waits for its LU without telling the core (which never saw it). */
    void abortWaiting(IscsiTask task) {
        if (task.queueDepth.cancel(task)) {
            task.lunState = IscsiTask.LU_NONE;
            session.window().unhold();
            tasks.finish(task);
        } else {
            // admitted() is already on its way to this loop: it drops the task and its slot
            task.abortedWhileWaiting = true;
            tasks.forget(task);
        }
    }

    /** Ends this connection's waiting tasks for {@code lun} (every LU if negative). */
    void abortWaitingFor(int lun) {
        for (IscsiTask task : tasks.tasks()) {
            if (task.lunState == IscsiTask.LU_WAITING && !task.abortedWhileWaiting
                    && (lun < 0 || task.cmd.lun() == lun)) {
                abortWaiting(task);
            }
        }
    }

    /** Ends, on every nexus, the waiting tasks of {@code lun} (every LU if negative): they never reached the core. */
    void cancelAllWaiting(int lun) {
        if (lun >= 0) {
            LunQueueDepth depth = session.queueDepth(lun);
            if (depth != null) {
                depth.cancelAll();
            }
            return;
        }
        for (LunQueueDepth depth : session.queueDepths()) {
            if (depth != null) {
                depth.cancelAll();
            }
        }
    }

    // ------------------------------------------------------------------ the command

    /** @return 0, or the Reject reason for a command this connection cannot accept */
    private int validate(IscsiPdu pdu) {
        if (session.discovery()) {
            return RejectReason.PROTOCOL_ERROR; // RFC 7143 4.3: discovery sessions carry no SCSI commands
        }
        if (tasks.find(pdu.initiatorTaskTag()) != null) {
            return RejectReason.TASK_IN_PROGRESS;
        }
        int dsl = pdu.data().readableBytes();
        if (dsl > 0) {
            boolean write = (pdu.flags() & CMD_WRITE_BIT) != 0;
            // RFC 7143 13.11 / 13.14: immediate data only if negotiated, within FirstBurstLength and EDTL
            if (!write || !params.immediateData() || dsl > params.firstBurstLength()
                    || dsl > pdu.expectedDataTransferLength()) {
                return RejectReason.PROTOCOL_ERROR;
            }
        }
        int ahsLength = pdu.ahs().readableBytes();
        if (ahsLength > 0 && extendedCdbLength(pdu) < 0) {
            return RejectReason.INVALID_PDU_FIELD;
        }
        return 0;
    }

    /** Length of the Extended CDB AHS payload, 0 if none, -1 if malformed or too long. */
    private static int extendedCdbLength(IscsiPdu pdu) {
        ByteBuf ahs = pdu.ahs();
        int base = ahs.readerIndex();
        while (base + AHS_HEADER_LENGTH <= ahs.writerIndex()) {
            int len = ahs.getUnsignedShort(base);
            int type = ahs.getUnsignedByte(base + 2);
            if (type == AHS_EXTENDED_CDB) {
                int cdbBytes = len - 1; // AHSLength counts the reserved byte
                boolean ok = cdbBytes > 0 && base + AHS_HEADER_LENGTH + cdbBytes <= ahs.writerIndex()
                        && BHS_CDB_LENGTH + cdbBytes <= ScsiCommand.MAX_CDB_LENGTH;
                return ok ? cdbBytes : -1;
            }
            base += (3 + len + 3) & ~3; // RFC 7143 11.2.2: type, length, then AHSLength bytes, padded to 4
        }
        return 0;
    }

    private IscsiTask fill(IscsiPdu pdu, boolean immediate) {
        IscsiTask task = tasks.newTask();
        ScsiCommand cmd = task.cmd;
        task.itt(pdu.initiatorTaskTag());
        task.cmdSn = pdu.cmdSn();
        task.immediate = immediate;
        task.lunField(pdu.lunField());
        int extended = pdu.ahs().isReadable() ? extendedCdbLength(pdu) : 0;
        cmd.cdb(pdu.bhs(), IscsiPdu.CDB_OFFSET, BHS_CDB_LENGTH);
        if (extended > 0) {
            pdu.ahs().getBytes(pdu.ahs().readerIndex() + AHS_HEADER_LENGTH, cmd.cdb(), BHS_CDB_LENGTH, extended);
            cmd.cdb(cmd.cdb(), 0, BHS_CDB_LENGTH + extended);
        }
        int flags = pdu.flags();
        boolean read = (flags & CMD_READ_BIT) != 0;
        boolean write = (flags & CMD_WRITE_BIT) != 0;
        cmd.direction(read && write ? DataDirection.BIDIRECTIONAL
                : read ? DataDirection.READ : write ? DataDirection.WRITE : DataDirection.NONE);
        cmd.lun(LunAddress.decode(task.lunField()));
        cmd.tag(task.itt() & 0xffff_ffffL);
        cmd.taskAttribute(ScsiWireCodes.taskAttribute(flags & CMD_ATTR_MASK));
        cmd.expectedDataTransferLength(pdu.expectedDataTransferLength());
        cmd.nexus(session.nexus());
        cmd.fabric(tasks);
        cmd.eventLoop(session.loop());
        cmd.alloc(connection.alloc());
        cmd.fabricContext(task);
        if (write) {
            tasks.dataOut().immediateData(task, pdu);
        }
        return task;
    }
}
