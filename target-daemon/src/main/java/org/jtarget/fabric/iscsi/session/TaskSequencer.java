package org.jtarget.fabric.iscsi.session;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.collection.IntObjectHashMap;
import org.jtarget.buffer.ScatterList;
import org.jtarget.fabric.iscsi.login.NegotiatedParameters;
import org.jtarget.fabric.iscsi.pdu.IscsiPdu;
import org.jtarget.fabric.iscsi.pdu.Opcode;
import org.jtarget.fabric.iscsi.pdu.RejectReason;
import org.jtarget.io.LunQueueDepth;
import org.jtarget.scsi.sense.SenseBuilder;
import org.jtarget.scsi.sense.SenseReason;
import org.jtarget.scsi.spi.DataDirection;
import org.jtarget.scsi.spi.FabricOps;
import org.jtarget.scsi.spi.LunAddress;
import org.jtarget.scsi.spi.ScsiCommand;
import org.jtarget.scsi.spi.ScsiStatus;
import org.jtarget.scsi.spi.TargetCore;
import org.jtarget.fabric.iscsi.pdu.ScsiWireCodes;
import org.jtarget.scsi.spi.TmfRequest;
import org.slf4j.Logger;
import io.netty.util.concurrent.EventExecutor;
import org.slf4j.LoggerFactory;

import java.util.ArrayDeque;

/**
 * The SCSI tasks of one connection and the {@link FabricOps} the core calls for them
 * (RFC 7143 10.2-10.8): SCSI Command → {@link ScsiCommand}, immediate / unsolicited / solicited
 * (R2T) Data-Out collected as retained slices, Data-In split at the initiator's
 * MaxRecvDataSegmentLength with the status in the last PDU, SCSI Response with sense and
 * residuals, and task management. Every method runs on the session's loop.
 *
 * <p>LU queue depth: a command whose LU has a {@link LunQueueDepth} is submitted to the core only
 * once it holds a slot; until then it waits (its CmdSN consumed, no R2T sent, only unsolicited
 * data kept) and the session's window is held ({@link CmdSnWindow#hold()}). NOP, Text, task
 * management, Data-Out, R2T and Data-In never wait: only new SCSI commands do. Task management
 * ends waiting tasks itself, since the core has not seen them.
 */
final class TaskSequencer implements FabricOps {

    private static final Logger LOG = LoggerFactory.getLogger(TaskSequencer.class);

    /** SCSI Command byte 1 (RFC 7143 11.3.1). */
    static final int CMD_READ_BIT = 0x40;
    static final int CMD_WRITE_BIT = 0x20;
    static final int CMD_ATTR_MASK = 0x07;
    /** SCSI Response / Data-In byte 1 (RFC 7143 11.4.1, 11.7.1). */
    static final int OVERFLOW_BIT = 0x04;
    static final int UNDERFLOW_BIT = 0x02;
    static final int STATUS_BIT = 0x01;
    /** AHS type 1: Extended CDB (RFC 7143 11.3.5). */
    static final int AHS_EXTENDED_CDB = 1;
    static final int AHS_HEADER_LENGTH = 4;
    static final int BHS_CDB_LENGTH = 16;
    /** TMF Request: RefCmdSN at word 32 (RFC 7143 11.5.5). */
    static final int TMF_FUNCTION_MASK = 0x7f;

    private final IscsiConnection connection;
    private final IscsiSession session;
    private final NegotiatedParameters params;
    private final IntObjectHashMap<IscsiTask> byItt = new IntObjectHashMap<>();
    private final ArrayDeque<IscsiTask> pool = new ArrayDeque<>();

    /** What the TMF response needs (the TmfRequest's fabric context). */
    record TmfContext(TaskSequencer sequencer, int itt) {
    }

    TaskSequencer(IscsiConnection connection, IscsiSession session) {
        this.connection = connection;
        this.session = session;
        this.params = connection.parameters();
    }

    boolean isEmpty() {
        return byItt.isEmpty();
    }

    IscsiTask find(int itt) {
        return byItt.get(itt);
    }

    // ------------------------------------------------------------------ SCSI Command

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
            byItt.put(task.itt, task);
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
            sendResponse(task, 0);
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

    /** The session's loop, where waiting tasks are handed back. */
    EventExecutor sessionLoop() {
        return session.loop();
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
        finish(task);
        if (session.window().maxCmdSn() != before) {
            connection.announceWindow();
        }
    }

    /** Ends a task that waits for its LU without telling the core (which never saw it). */
    private void abortWaiting(IscsiTask task) {
        if (task.queueDepth.cancel(task)) {
            task.lunState = IscsiTask.LU_NONE;
            session.window().unhold();
            finish(task);
        } else {
            // admitted() is already on its way to this loop: it drops the task and its slot
            task.abortedWhileWaiting = true;
            forget(task);
        }
    }

    /** Ends this connection's waiting tasks for {@code lun} (every LU if negative). */
    void abortWaitingFor(int lun) {
        for (IscsiTask task : byItt.values().toArray(new IscsiTask[0])) {
            if (task.lunState == IscsiTask.LU_WAITING && !task.abortedWhileWaiting
                    && (lun < 0 || task.cmd.lun() == lun)) {
                abortWaiting(task);
            }
        }
    }

    /** @return 0, or the Reject reason for a command this connection cannot accept */
    private int validate(IscsiPdu pdu) {
        if (session.discovery()) {
            return RejectReason.PROTOCOL_ERROR; // RFC 7143 4.3: discovery sessions carry no SCSI commands
        }
        if (byItt.containsKey(pdu.initiatorTaskTag())) {
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
        IscsiTask task = pool.isEmpty() ? new IscsiTask(this) : pool.pop();
        ScsiCommand cmd = task.cmd;
        task.itt = pdu.initiatorTaskTag();
        task.cmdSn = pdu.cmdSn();
        task.immediate = immediate;
        task.lunField = pdu.lunField();
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
        cmd.lun(LunAddress.decode(task.lunField));
        cmd.tag(task.itt & 0xffff_ffffL);
        cmd.taskAttribute(ScsiWireCodes.taskAttribute(flags & CMD_ATTR_MASK));
        cmd.expectedDataTransferLength(pdu.expectedDataTransferLength());
        cmd.nexus(session.nexus());
        cmd.fabric(this);
        cmd.eventLoop(session.loop());
        cmd.alloc(connection.alloc());
        cmd.fabricContext(task);
        if (write) {
            fillImmediateData(task, pdu);
        }
        return task;
    }

    private void fillImmediateData(IscsiTask task, IscsiPdu pdu) {
        ByteBuf data = pdu.data();
        if (data.isReadable()) {
            appendDataOut(task, pdu);
            task.received = data.readableBytes();
        }
        // RFC 7143 11.3.1: F=1 means no unsolicited Data-Out follows; InitialR2T=Yes forbids it.
        if ((pdu.flags() & IscsiPdu.FINAL_BIT) != 0 || params.initialR2T() || task.received >= unsolicitedLimit(task)) {
            unsolicitedDone(task);
        }
    }

    private ScatterList dataOutBuffer(IscsiTask task) {
        ScatterList list = task.cmd.dataOutSegments();
        if (list == null) {
            list = task.dataOutSegments;
            task.cmd.dataOut(list);
        }
        return list;
    }

    /** Appends a PDU's data segment to the task's data-out (the PDU keeps its own reference). */
    private void appendDataOut(IscsiTask task, IscsiPdu pdu) {
        ByteBuf data = pdu.data();
        ByteBuf root = pdu.dataRoot();
        if (root != null) {
            dataOutBuffer(task).add(data.retain(), root, pdu.dataRootIndex());
        } else {
            dataOutBuffer(task).add(data.retain());
        }
    }

    private int unsolicitedLimit(IscsiTask task) {
        return Math.min(params.firstBurstLength(), task.cmd.expectedDataTransferLength());
    }

    private static void unsolicitedDone(IscsiTask task) {
        task.unsolicitedDone = true;
        task.r2tBase = task.received;
        task.r2tNext = task.received;
        task.expectedDataSn = 0;
    }

    // ------------------------------------------------------------------ Data-Out

    /** A SCSI Data-Out PDU (consumes it). RFC 7143 11.7: offsets in order, DataSN per sequence. */
    void dataOut(IscsiPdu pdu) {
        try {
            IscsiTask task = byItt.get(pdu.initiatorTaskTag());
            if (task == null || task.dataOutDone || task.cmd.direction() == DataDirection.READ
                    || task.cmd.direction() == DataDirection.NONE) {
                LOG.debug("Data-Out for no waiting task (itt 0x{}): dropped", Integer.toHexString(pdu.initiatorTaskTag()));
                return;
            }
            if (!acceptDataOut(task, pdu, pdu.data().readableBytes(), pdu.data())) {
                rejectDataOut(task, pdu);
                return;
            }
            advance(task);
        } finally {
            pdu.release();
        }
    }

    /**
     * A Data-Out the decoder discarded for a data digest error; the connection already sent the
     * Reject (reason 0x02). RFC 7143 7.8: the target must then either ask for the data again with
     * a recovery R2T (ErrorRecoveryLevel 1 and up) or, as here at level 0, end the task with CHECK
     * CONDITION and the iSCSI condition "protocol service CRC error" (11.4.7.2) once the
     * outstanding transfers are over. The header is intact (it passed the HeaderDigest if any),
     * so the lost bytes still count for the sequence and the initiator's following Data-Out fit.
     *
     * @param header the discarded PDU's BHS (borrowed)
     */
    void dataOutDigestError(IscsiPdu header) {
        IscsiTask task = byItt.get(header.initiatorTaskTag());
        if (task == null || task.dataOutDone) {
            return;
        }
        LOG.info("Data-Out for itt 0x{} (offset {}) lost to a data digest error: the task will end with "
                + "PROTOCOL SERVICE CRC ERROR", Integer.toHexString(task.itt), header.bufferOffset());
        task.dataDigestError = true;
        if (!acceptDataOut(task, header, header.dataSegmentLength(), null)) {
            abortDataOut(task); // the lost PDU did not even fit the sequence: nothing more can be placed
            return;
        }
        advance(task);
    }

    /**
     * A Data-Out with a wrong DataSN, offset or TTT: Reject it (RFC 7143 11.17.1, the initiator then
     * fails the task it refers to) and abort the task, whose remaining data can no longer be
     * placed. The connection stays up so the initiator's other tasks are unaffected.
     */
    private void rejectDataOut(IscsiTask task, IscsiPdu pdu) {
        LOG.info("Data-Out out of sequence for itt 0x{} (DataSN {}, offset {}): rejected, task aborted",
                Integer.toHexString(task.itt), pdu.dataSn(), pdu.bufferOffset());
        connection.sendReject(RejectReason.PROTOCOL_ERROR, pdu.bhs());
        connection.flush();
        abortDataOut(task);
    }

    private void abortDataOut(IscsiTask task) {
        task.cmd.markAborted();
        boolean handBack = task.writePending && !task.dataOutDone;
        task.dataOutDone = true; // later Data-Out for this task is dropped; writePending sees the abort
        if (handBack) {
            session.core().dataOutComplete(task.cmd);
        }
    }

    /**
     * Checks a Data-Out against the task's sequence and counts its {@code len} bytes.
     *
     * @param data the payload to keep, or null when it is lost (data digest error) or useless
     *             (the task already lost some)
     */
    private boolean acceptDataOut(IscsiTask task, IscsiPdu pdu, int len, ByteBuf data) {
        int offset = pdu.bufferOffset();
        boolean solicited = pdu.targetTransferTag() != IscsiPdu.RESERVED_TAG;
        if (offset != task.received) {
            return false; // DataPDUInOrder=Yes and DataSequenceInOrder=Yes
        }
        if (solicited) {
            if (!task.unsolicitedDone || pdu.targetTransferTag() != task.ttt || offset + len > task.r2tNext) {
                return false;
            }
            if ((offset - task.r2tBase) % params.maxBurstLength() == 0) {
                task.expectedDataSn = 0; // a new R2T sequence starts its own DataSN numbering
            }
        } else if (task.unsolicitedDone || offset + len > unsolicitedLimit(task)) {
            return false;
        }
        if (pdu.dataSn() != task.expectedDataSn) {
            return false;
        }
        task.expectedDataSn++;
        if (len > 0 && data != null && !task.dataDigestError) {
            appendDataOut(task, pdu);
        }
        task.received += len;
        if (!solicited && (pdu.finalFlag() || task.received >= unsolicitedLimit(task))) {
            unsolicitedDone(task);
        } else if (solicited && (task.received == task.r2tNext
                || (task.received - task.r2tBase) % params.maxBurstLength() == 0)) {
            task.outstandingR2t--; // this R2T's sequence is complete
        }
        return true;
    }

    /** Completes the data-out phase or sends the R2Ts the window allows (RFC 7143 10.8). */
    private void advance(IscsiTask task) {
        if (!task.writePending || task.dataOutDone || !task.unsolicitedDone) {
            return;
        }
        if (task.dataDigestError) {
            if (task.outstandingR2t == 0) {
                endWithCrcError(task); // every outstanding transfer is over; ask for nothing more
            }
            return;
        }
        if (task.received >= task.wanted) {
            task.dataOutDone = true;
            session.core().dataOutComplete(task.cmd);
            return;
        }
        boolean sent = false;
        while (task.outstandingR2t < params.maxOutstandingR2T() && task.r2tNext < task.wanted) {
            int len = Math.min(params.maxBurstLength(), task.wanted - task.r2tNext);
            sendR2t(task, task.r2tNext, len);
            task.r2tNext += len;
            task.outstandingR2t++;
            sent = true;
        }
        if (sent) {
            connection.flush();
        }
    }

    /** The core ends the aborted command through {@link #abortedTask}, which sends the status. */
    private void endWithCrcError(IscsiTask task) {
        task.dataOutDone = true;
        task.endWithCrcError = !task.cmd.isAborted();
        task.cmd.markAborted();
        session.core().dataOutComplete(task.cmd);
    }

    private void sendR2t(IscsiTask task, int offset, int length) {
        if (task.ttt == 0) {
            task.ttt = connection.nextTtt();
        }
        IscsiPdu r2t = connection.response(Opcode.R2T, Unpooled.EMPTY_BUFFER, false);
        r2t.finalFlag(true);
        r2t.lunField(task.lunField);
        r2t.initiatorTaskTag(task.itt);
        r2t.targetTransferTag(task.ttt);
        r2t.word36(task.inPduSn++); // R2TSN
        r2t.bufferOffset(offset);
        r2t.word44(length); // Desired Data Transfer Length
        connection.write(r2t);
    }

    @Override
    public void writePending(ScsiCommand cmd) {
        IscsiTask task = (IscsiTask) cmd.fabricContext();
        task.writePending = true;
        task.wanted = Math.max(0, Math.min(cmd.expectedDataTransferLength(), cmd.dataOutLength()));
        dataOutBuffer(task);
        if (connection.isClosed() || cmd.isAborted()) {
            cmd.markAborted();
            task.dataOutDone = true;
            session.core().dataOutComplete(cmd);
            return;
        }
        advance(task);
    }

    // ------------------------------------------------------------------ Data-In and status

    @Override
    public void queueDataIn(ScsiCommand cmd) {
        IscsiTask task = (IscsiTask) cmd.fabricContext();
        ByteBuf dataIn = cmd.dataIn();
        int total = dataIn == null ? 0 : dataIn.readableBytes();
        int edtl = cmd.expectedDataTransferLength();
        int n = Math.min(edtl, total);
        if (connection.isClosed() || n == 0) {
            sendResponse(task, total); // EDTL 0: no Data-In, but the residual still counts what the CDB asked for
            return;
        }
        boolean statusInData = cmd.status() == ScsiStatus.GOOD || cmd.status() == ScsiStatus.CONDITION_MET;
        int mrdsl = params.initiatorMaxRecvDataSegmentLength();
        int maxBurst = params.maxBurstLength();
        int base = dataIn.readerIndex();
        for (int off = 0; off < n; ) {
            int burstEnd = Math.min(n, (off / maxBurst + 1) * maxBurst);
            int len = Math.min(mrdsl, burstEnd - off);
            boolean last = off + len == n;
            boolean withStatus = last && statusInData;
            if (withStatus) {
                releaseWindowSlot(task);
            }
            IscsiPdu pdu = connection.response(Opcode.SCSI_DATA_IN, dataIn.retainedSlice(base + off, len), withStatus);
            // RFC 7143 11.7.1: F ends each burst (sequence); S carries the status on the last PDU
            pdu.flags((off + len == burstEnd ? IscsiPdu.FINAL_BIT : 0)
                    | (withStatus ? STATUS_BIT | residualFlags(edtl, total) : 0));
            pdu.initiatorTaskTag(task.itt);
            pdu.targetTransferTag(IscsiPdu.RESERVED_TAG);
            pdu.dataSn(task.inPduSn++);
            pdu.bufferOffset(off);
            if (withStatus) {
                pdu.byte3(cmd.status());
                pdu.residualCount(Math.abs(total - edtl));
            } else {
                pdu.statSn(0); // RFC 7143 11.7.4: StatSN is reserved unless S is set (jSCSI checks it is 0)
            }
            connection.write(pdu);
            off += len;
        }
        if (statusInData) {
            connection.flush();
            finish(task);
        } else {
            sendResponse(task, total);
        }
    }

    @Override
    public void queueStatus(ScsiCommand cmd) {
        IscsiTask task = (IscsiTask) cmd.fabricContext();
        int transferred = switch (cmd.direction()) {
            // ScsiCommand.dataOutLength(): residuals of a data-out command compare the CDB's length with EDTL
            case WRITE, BIDIRECTIONAL -> cmd.dataOutLength();
            default -> 0;
        };
        sendResponse(task, transferred);
    }

    /** RFC 7143 11.4: SCSI Response with status, sense (SenseLength + bytes) and residual. */
    private void sendResponse(IscsiTask task, int transferred) {
        ScsiCommand cmd = task.cmd;
        if (!connection.isClosed()) {
            int edtl = cmd.expectedDataTransferLength();
            ByteBuf sense = Unpooled.EMPTY_BUFFER;
            if (cmd.senseLength() > 0) {
                sense = connection.alloc().buffer(2 + cmd.senseLength());
                sense.writeShort(cmd.senseLength());
                sense.writeBytes(cmd.sense(), 0, cmd.senseLength());
            }
            releaseWindowSlot(task);
            IscsiPdu rsp = connection.response(Opcode.SCSI_RESPONSE, sense, true);
            rsp.flags(IscsiPdu.FINAL_BIT | residualFlags(edtl, transferred));
            rsp.byte2(0); // Command Completed at Target
            rsp.byte3(cmd.status());
            rsp.initiatorTaskTag(task.itt);
            rsp.word36(task.inPduSn); // ExpDataSN: Data-In and R2T PDUs sent for this task
            rsp.residualCount(transferred == edtl ? 0 : Math.abs(transferred - edtl));
            connection.writeAndFlush(rsp);
        }
        finish(task);
    }

    /** RFC 7143 11.4.5: O when more than the EDTL was wanted, U when less arrived. */
    private static int residualFlags(int edtl, int actual) {
        return actual > edtl ? OVERFLOW_BIT : actual < edtl ? UNDERFLOW_BIT : 0;
    }

    @Override
    public void abortedTask(ScsiCommand cmd) {
        IscsiTask task = (IscsiTask) cmd.fabricContext();
        if (task.endWithCrcError) {
            // RFC 7143 11.4.7.2: ABORTED COMMAND, PROTOCOL SERVICE CRC ERROR; the data never reached the medium
            int n = SenseBuilder.build(cmd.sense(), SenseReason.PROTOCOL_SERVICE_CRC_ERROR, false);
            cmd.checkCondition(cmd.sense(), n);
            sendResponse(task, cmd.dataOutLength());
            return;
        }
        finish(task); // SAM-5 5.6: no status for an aborted task
    }

    /** Non-immediate tasks give their CmdSN window slot back when they end (MaxCmdSN moves). */
    private void releaseWindowSlot(IscsiTask task) {
        if (!task.immediate) {
            task.immediate = true; // released once
            session.window().completed();
        }
    }

    /** The task is over: forget it, release its buffers and recycle it. */
    private void finish(IscsiTask task) {
        forget(task);
        if (task.lunState == IscsiTask.LU_ENTERED) {
            task.lunState = IscsiTask.LU_NONE;
            task.queueDepth.exit(); // may admit a waiting task of any session
        }
        releaseWindowSlot(task);
        task.cmd.releaseBuffers();
        task.reset();
        pool.push(task);
        connection.taskEnded();
    }

    // ------------------------------------------------------------------ connection loss

    /**
     * The connection is gone (ERL 0): every task is aborted; those waiting for Data-Out are
     * handed back to the core, which ends each with {@link #abortedTask} (or a status we drop).
     */
    void abortAll() {
        abortWaitingFor(-1);
        for (IscsiTask task : byItt.values().toArray(new IscsiTask[0])) {
            task.cmd.markAborted();
        }
        failAbortedTransfers();
    }

    /** Tasks marked aborted while waiting for Data-Out will get none: complete their transfer. */
    void failAbortedTransfers() {
        for (IscsiTask task : byItt.values().toArray(new IscsiTask[0])) {
            if (task.cmd.isAborted() && task.writePending && !task.dataOutDone) {
                task.dataOutDone = true;
                session.core().dataOutComplete(task.cmd);
            }
        }
    }

    // ------------------------------------------------------------------ task management

    /** RFC 7143 11.5: a Task Management Function Request (consumes it). */
    void taskManagement(IscsiPdu pdu, boolean immediate) {
        try {
            int itt = pdu.initiatorTaskTag();
            TmfRequest.Function function = ScsiWireCodes.tmfFunction(pdu.flags() & TMF_FUNCTION_MASK);
            if (function == null || session.discovery()) {
                sendTmResponse(itt, TmfRequest.Response.FUNCTION_REJECTED);
                return;
            }
            if (function == TmfRequest.Function.TASK_REASSIGN) {
                sendTmResponse(itt, TmfRequest.Response.TASK_ALLEGIANCE_REASSIGNMENT_NOT_SUPPORTED); // ERL 0
                return;
            }
            if (function == TmfRequest.Function.ABORT_TASK && (abortedWaitingTask(pdu) || !abortTaskKnownToCore(pdu))) {
                return;
            }
            clearWaitingTasks(function, LunAddress.decode(pdu.lunField()));
            TmfRequest tmf = new TmfRequest(function, LunAddress.decode(pdu.lunField()), pdu.word20() & 0xffff_ffffL,
                    session.nexus(), this, session.loop(), new TmfContext(this, itt));
            session.core().submitTmf(tmf);
            for (IscsiConnection c : session.connections()) {
                c.tasks().failAbortedTransfers();
            }
        } finally {
            pdu.release();
        }
    }

    /** The task stays in the pool's hands only: another task may reuse its ITT from now on. */
    private void forget(IscsiTask task) {
        if (byItt.get(task.itt) == task) {
            byItt.remove(task.itt);
        }
    }

    /** ABORT TASK of a task that waits for its LU: ended here (Function Complete); true if it was one. */
    private boolean abortedWaitingTask(IscsiPdu pdu) {
        int refItt = pdu.word20();
        for (IscsiConnection c : session.connections()) {
            IscsiTask task = c.tasks().find(refItt);
            if (task != null && task.lunState == IscsiTask.LU_WAITING && !task.abortedWhileWaiting) {
                c.tasks().abortWaiting(task);
                sendTmResponse(pdu.initiatorTaskTag(), TmfRequest.Response.FUNCTION_COMPLETE);
                return true;
            }
        }
        return false;
    }

    /**
     * Tasks waiting for their LU are not in the core's task set: a function that aborts tasks
     * ends them here first (SAM-5 7.2 ABORT TASK SET: this nexus; 7.4 CLEAR TASK SET and 7.7
     * LOGICAL UNIT RESET: every nexus of the LU; 7.9 target reset: every LU), before the core
     * runs it, so none of them starts after the function's response.
     */
    private void clearWaitingTasks(TmfRequest.Function function, int lun) {
        boolean allNexuses = function == TmfRequest.Function.CLEAR_TASK_SET
                || function == TmfRequest.Function.LOGICAL_UNIT_RESET;
        boolean target = function == TmfRequest.Function.TARGET_WARM_RESET
                || function == TmfRequest.Function.TARGET_COLD_RESET;
        if (!target && (lun < 0 || !allNexuses && function != TmfRequest.Function.ABORT_TASK_SET)) {
            return; // a LUN that cannot exist has no waiting tasks
        }
        for (IscsiConnection c : session.connections()) {
            c.tasks().abortWaitingFor(target ? -1 : lun);
        }
        if (allNexuses) {
            LunQueueDepth depth = session.queueDepth(lun);
            if (depth != null) {
                depth.cancelAll();
            }
        } else if (target) {
            for (LunQueueDepth depth : session.queueDepths()) {
                if (depth != null) {
                    depth.cancelAll();
                }
            }
        }
    }

    /**
     * ABORT TASK for a task the core never saw (RFC 7143 11.5.1): if it waits in the CmdSN queue
     * or has not arrived yet (RefCmdSN within the window), it is dropped and marked received, and
     * the answer is Function Complete; if it already ended, Task Does Not Exist.
     *
     * @return true if the core must handle the request
     */
    private boolean abortTaskKnownToCore(IscsiPdu pdu) {
        int refItt = pdu.word20();
        for (IscsiConnection c : session.connections()) {
            if (c.tasks().find(refItt) != null) {
                return true;
            }
        }
        int refCmdSn = pdu.maxCmdSn(); // word 32: RefCmdSN
        CmdSnWindow<IscsiSession.QueuedCommand> window = session.window();
        if (window.isQueued(refCmdSn) || window.inWindow(refCmdSn)) {
            IscsiSession.QueuedCommand dropped = window.consume(refCmdSn);
            if (dropped != null) {
                dropped.pdu().release();
            }
            sendTmResponse(pdu.initiatorTaskTag(), TmfRequest.Response.FUNCTION_COMPLETE);
            connection.deliverQueued();
            return false;
        }
        sendTmResponse(pdu.initiatorTaskTag(), TmfRequest.Response.TASK_DOES_NOT_EXIST);
        return false;
    }

    @Override
    public void queueTmResponse(TmfRequest tmf) {
        TmfContext context = (TmfContext) tmf.fabricContext();
        context.sequencer().sendTmResponse(context.itt(), tmf.response());
        for (IscsiConnection c : session.connections()) {
            c.tasks().failAbortedTransfers();
        }
    }

    private void sendTmResponse(int itt, TmfRequest.Response response) {
        if (connection.isClosed()) {
            return;
        }
        IscsiPdu rsp = connection.response(Opcode.TASK_MGMT_RESPONSE, Unpooled.EMPTY_BUFFER, true);
        rsp.finalFlag(true);
        rsp.byte2(ScsiWireCodes.tmfResponse(response));
        rsp.initiatorTaskTag(itt);
        connection.writeAndFlush(rsp);
    }
}
