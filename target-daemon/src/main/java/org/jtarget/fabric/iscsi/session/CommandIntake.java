package org.jtarget.fabric.iscsi.session;

import io.netty.buffer.ByteBuf;
import org.jtarget.fabric.iscsi.login.NegotiatedParameters;
import org.jtarget.fabric.iscsi.pdu.IscsiPdu;
import org.jtarget.fabric.iscsi.pdu.RejectReason;
import org.jtarget.fabric.iscsi.pdu.ScsiWireCodes;
import org.jtarget.scsi.spi.DataDirection;
import org.jtarget.scsi.spi.LunAddress;
import org.jtarget.scsi.spi.ScsiCommand;

/**
 * SCSI Command intake of one connection (RFC 7143 11.3): validates the PDU, fills a pooled
 * {@link IscsiTask}'s {@link ScsiCommand}, and submits it to the core.
 *
 * <p>LU queue depth is the core's: a command past it is parked there (its CmdSN consumed, no R2T
 * sent, only unsolicited data kept; task management finds it in the core) and, while any task of
 * the session is parked, the session's window is held ({@link CmdSnWindow#hold()}). NOP, Text,
 * task management, Data-Out, R2T and Data-In are never parked: only new SCSI commands are.
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
            session.core().submit(task.cmd); // may park it: TaskSequencer.commandParked
        } finally {
            pdu.release();
        }
    }

    // ------------------------------------------------------------------ parked by the LU's queue depth

    /**
     * The core parked the task (its LU is at its queue depth): MaxCmdSN stops advancing
     * (RFC 7143 4.2.2.1) until the session's last parked task is unparked.
     *
     * @return false to have the core end it with TASK SET FULL
     */
    boolean parked(IscsiTask task) {
        CmdSnWindow<IscsiSession.QueuedCommand> window = session.window();
        if (task.immediate && window.held() >= window.size()) {
            // immediate commands bypass the window; past a window's worth of parked commands the
            // initiator ignores back-pressure: SAM-5 5.3.1 TASK SET FULL is the last resort
            return false;
        }
        task.parked = true;
        window.hold();
        return true;
    }

    /**
     * The core admitted the task, or ended it while parked: the window may move again. An ended
     * one gets no response that would carry the new MaxCmdSN, so {@link #abortedWhileParked}
     * announces it.
     */
    void unparked(IscsiTask task) {
        if (!task.parked) {
            return; // refused by parked(): it held nothing
        }
        task.parked = false;
        if (task.cmd.isAborted()) {
            task.announceWindowFrom = session.window().maxCmdSn();
            task.announceWindowAtEnd = true;
        }
        session.window().unhold(); // an admitted task's R2T or status carries the reopened MaxCmdSN
    }

    /**
     * After an aborted task ended: one that was parked and freed the window announces it, since
     * no status will, unless a task management response of the session is on its way (the
     * session's own ABORT TASK, ABORT TASK SET or reset: its response carries MaxCmdSN).
     */
    void abortedWhileParked(boolean announce, int maxCmdSnBefore) {
        if (announce && session.window().maxCmdSn() != maxCmdSnBefore && !taskManagementAnswerPending()) {
            connection.announceWindow();
        }
    }

    private boolean taskManagementAnswerPending() {
        for (IscsiConnection c : session.connections()) {
            if (c.tasks().taskManagement().answerPending()) {
                return true;
            }
        }
        return false;
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
        cmd.alloc(connection.transport().dataAlloc());
        cmd.fabricContext(task);
        if (write) {
            tasks.dataOut().immediateData(task, pdu);
        }
        return task;
    }
}
