package org.jtarget.fabric.iscsi.session;

import io.netty.buffer.ByteBuf;
import io.netty.util.collection.IntObjectHashMap;
import io.netty.util.concurrent.EventExecutor;
import org.jtarget.fabric.iscsi.login.NegotiatedParameters;
import org.jtarget.fabric.iscsi.pdu.IscsiPdu;
import org.jtarget.scsi.lun.TransferCounters;
import org.jtarget.scsi.spi.FabricOps;
import org.jtarget.scsi.spi.ScsiCommand;
import org.jtarget.scsi.spi.TmfRequest;

import java.util.ArrayDeque;

/**
 * The SCSI tasks of one connection and the {@link FabricOps} the core calls for them
 * (RFC 7143 10.2-10.8). It owns the tasks (by ITT, and a pool so the hot path allocates none)
 * and hands each job to its own class:
 * <ul>
 * <li>{@link CommandIntake}: SCSI Command → {@link ScsiCommand}, and LU queue-depth admission;</li>
 * <li>{@link DataOutCollector}: immediate, unsolicited and solicited Data-Out, with the
 *     transport asked for the solicited part ({@link org.jtarget.fabric.iscsi.spi.IscsiTransport#requestDataOut});</li>
 * <li>{@link ResponseSender}: Data-In through the transport, SCSI Response with sense and residuals;</li>
 * <li>{@link TaskManagementRequests}: task management functions.</li>
 * </ul>
 * Every method runs on the session's loop.
 */
final class TaskSequencer implements FabricOps {

    private final IscsiConnection connection;
    private final IscsiSession session;
    private final NegotiatedParameters params;
    private final IntObjectHashMap<IscsiTask> byItt = new IntObjectHashMap<>();
    private final ArrayDeque<IscsiTask> pool = new ArrayDeque<>();
    private final CommandIntake intake;
    private final DataOutCollector dataOut;
    private final ResponseSender responses;
    private final TaskManagementRequests taskManagement;

    TaskSequencer(IscsiConnection connection, IscsiSession session) {
        this.connection = connection;
        this.session = session;
        this.params = connection.parameters();
        this.intake = new CommandIntake(this);
        this.dataOut = new DataOutCollector(this);
        this.responses = new ResponseSender(this);
        this.taskManagement = new TaskManagementRequests(this);
    }

    IscsiConnection connection() { return connection; }
    IscsiSession session() { return session; }
    NegotiatedParameters params() { return params; }
    CommandIntake intake() { return intake; }
    TaskManagementRequests taskManagement() { return taskManagement; }
    DataOutCollector dataOut() { return dataOut; }
    ResponseSender responses() { return responses; }

    /** The session's loop, where waiting tasks are handed back. */
    EventExecutor sessionLoop() {
        return session.loop();
    }

    boolean isEmpty() {
        return byItt.isEmpty();
    }

    IscsiTask find(int itt) {
        return byItt.get(itt);
    }

    /** A pooled task, tracked under its ITT once {@link #track} is called. */
    IscsiTask newTask() {
        return pool.isEmpty() ? new IscsiTask(this) : pool.pop();
    }

    void track(IscsiTask task) {
        byItt.put(task.itt(), task);
    }

    // ------------------------------------------------------------------ from the connection

    /** A SCSI Command PDU whose CmdSN turn has come (consumes it). */
    void command(IscsiPdu pdu, boolean immediate) {
        intake.command(pdu, immediate);
    }

    /** A SCSI Data-Out PDU (consumes it). */
    void dataOut(IscsiPdu pdu) {
        dataOut.dataOut(pdu);
    }

    /** A Data-Out lost to a data digest error (the header is borrowed). */
    void dataOutDigestError(IscsiPdu header) {
        dataOut.dataOutDigestError(header);
    }

    /** A Task Management Function Request (consumes it). */
    void taskManagement(IscsiPdu pdu, boolean immediate) {
        taskManagement.request(pdu, immediate);
    }

    // ------------------------------------------------------------------ FabricOps

    @Override
    public void writePending(ScsiCommand cmd) {
        dataOut.writePending(cmd);
    }

    @Override
    public void queueDataIn(ScsiCommand cmd) {
        ByteBuf dataIn = cmd.dataIn();
        count(cmd, dataIn == null ? 0 : Math.min(cmd.expectedDataTransferLength(), dataIn.readableBytes()));
        responses.queueDataIn(cmd);
    }

    @Override
    public void queueStatus(ScsiCommand cmd) {
        count(cmd, TransferCounters.dataOutBytes(cmd));
        responses.queueStatus(cmd);
    }

    /**
     * Counts a command whose status goes to the initiator now, for its session and its
     * connection's portal (aborted tasks end without status and, as in the LU's statistics, are
     * not counted). {@code transferred}: the data bytes that crossed the wire (at most the EDTL).
     */
    private void count(ScsiCommand cmd, long transferred) {
        session.counters().record(cmd, transferred);
        connection.portalCounters().record(cmd, transferred);
    }

    @Override
    public void abortedTask(ScsiCommand cmd) {
        IscsiTask task = (IscsiTask) cmd.fabricContext();
        boolean wasParked = task.announceWindowAtEnd; // read before the task is recycled
        int maxCmdSnBefore = task.announceWindowFrom;
        responses.abortedTask(cmd);
        intake.abortedWhileParked(wasParked, maxCmdSnBefore);
    }

    @Override
    public boolean commandParked(ScsiCommand cmd) {
        return intake.parked((IscsiTask) cmd.fabricContext());
    }

    @Override
    public void commandUnparked(ScsiCommand cmd) {
        intake.unparked((IscsiTask) cmd.fabricContext());
    }

    @Override
    public void queueTmResponse(TmfRequest tmf) {
        taskManagement.response(tmf);
    }

    // ------------------------------------------------------------------ end of a task

    /** The task stays in the pool's hands only: another task may reuse its ITT from now on. */
    void forget(IscsiTask task) {
        if (byItt.get(task.itt()) == task) {
            byItt.remove(task.itt());
        }
    }

    /** The task is over: forget it, release its buffers and recycle it. */
    void finish(IscsiTask task) {
        forget(task);
        connection.transport().taskEnded(task); // before reset: the transport reads its ITT
        responses.releaseWindowSlot(task);
        task.cmd.releaseBuffers();
        task.reset();
        pool.push(task);
        connection.taskEnded();
    }

    /**
     * The connection is gone (ERL 0): every task is aborted; those waiting for Data-Out are
     * handed back to the core, which ends each with {@link #abortedTask} (or a status we drop).
     */
    void abortAll() {
        for (IscsiTask task : tasks()) {
            task.cmd.markAborted();
        }
        failAbortedTransfers();
    }

    /** Tasks marked aborted while waiting for Data-Out will get none: complete their transfer. */
    void failAbortedTransfers() {
        for (IscsiTask task : tasks()) {
            if (task.cmd.isAborted() && task.writePending && !task.dataOutDone) {
                task.dataOutDone = true;
                session.core().dataOutComplete(task.cmd);
            }
        }
    }

    /** A snapshot of the live tasks (control path: the caller may end some while iterating). */
    IscsiTask[] tasks() {
        return byItt.values().toArray(new IscsiTask[0]);
    }
}
