package org.jtarget.fabric.srp;

import io.netty.buffer.ByteBuf;
import org.jtarget.buffer.ByteBufCopy;
import org.jtarget.fabric.rdma.Decoded;
import org.jtarget.fabric.srp.iu.SrpCommand;
import org.jtarget.fabric.srp.iu.SrpCommand.Direction;
import org.jtarget.fabric.srp.iu.SrpCredit;
import org.jtarget.fabric.srp.iu.SrpDescriptorFormat;
import org.jtarget.fabric.srp.iu.SrpIu;
import org.jtarget.fabric.srp.iu.SrpLogout;
import org.jtarget.fabric.srp.iu.SrpResponse;
import org.jtarget.fabric.srp.iu.SrpTaskManagement;
import org.jtarget.scsi.lun.TransferCounters;
import org.jtarget.scsi.sense.SenseBuilder;
import org.jtarget.scsi.sense.SenseReason;
import org.jtarget.scsi.spi.DataDirection;
import org.jtarget.scsi.spi.FabricOps;
import org.jtarget.scsi.spi.ITNexus;
import org.jtarget.scsi.spi.LunAddress;
import org.jtarget.scsi.spi.ScsiCommand;
import org.jtarget.scsi.spi.ScsiStatus;
import org.jtarget.scsi.spi.TargetCore;
import org.jtarget.scsi.spi.TmfRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayDeque;

/**
 * The SCSI side of one SRP channel: SRP_CMD and SRP_TSK_MGMT into the core, SRP_RSP out, and the
 * request limit (SRP r16a 5.5.2). Every call runs on the channel's loop.
 *
 * <p>Credits: each SRP_CMD and SRP_TSK_MGMT uses one of the credits granted at login; the target
 * gives it back in the REQ_LIM_DELTA of the request's SRP_RSP. A request that ends without a
 * response (an aborted command, SAM-5 5.6) leaves its credit to the next SRP_RSP, or to an
 * SRP_CRED_REQ when none is coming; the target has at most one SRP_CRED_REQ unanswered (Linux's
 * ib_srp keeps one send buffer for answering them).
 */
final class SrpCommands implements FabricOps {

    private static final Logger LOG = LoggerFactory.getLogger(SrpCommands.class);

    /** The tag of the target's SRP_CRED_REQs (at most one is unanswered, so one tag serves). */
    private static final long CREDIT_REQUEST_TAG = 0x5350_5243_5245_4451L;
    /** An SRP_RSP of a command: no response data. */
    private static final int NO_RESPONSE_CODE = -1;

    private final SrpChannel channel;
    private final SrpLimits limits;
    private final int immediateDataOffset;
    private final ITNexus nexus;
    private final TransferCounters counters = new TransferCounters();
    private final TransferCounters portalCounters;
    private final TargetCore core;
    private final SrpTask[] tasks;
    private final int[] freeTasks;
    private int freeTaskCount;
    private final SrpCommand iu = new SrpCommand();
    private final byte[] sense = new byte[ScsiCommand.MAX_SENSE_LENGTH];
    /** Responses that found every send buffer in flight, in order: tasks and task management answers. */
    private final ArrayDeque<Object> waitingResponses = new ArrayDeque<>();
    /** Requests (SRP_CMD, SRP_TSK_MGMT) received whose credit has not gone back yet. */
    private int creditsInUse;
    /** Credits of requests that ended, not yet given back. */
    private int creditsToReturn;
    private boolean creditRequestOutstanding;
    private boolean creditCheckScheduled;

    /**
     * @param portalCounters what the channels of this one's portal carried (this channel counts into them too)
     */
    SrpCommands(SrpChannel channel, SrpLimits limits, int immediateDataOffset, ITNexus nexus, TargetCore core,
                TransferCounters portalCounters) {
        this.channel = channel;
        this.portalCounters = portalCounters;
        this.limits = limits;
        this.immediateDataOffset = immediateDataOffset;
        this.nexus = nexus;
        this.core = core;
        this.tasks = new SrpTask[limits.credits()];
        this.freeTasks = new int[limits.credits()];
        for (int i = limits.credits() - 1; i >= 0; i--) {
            tasks[i] = new SrpTask(i);
            freeTasks[freeTaskCount++] = i;
        }
    }

    ITNexus nexus() {
        return nexus;
    }

    /** What this channel carried: commands, data bytes, failures. */
    TransferCounters counters() {
        return counters;
    }

    // ------------------------------------------------------------------ IUs in

    /** One IU the initiator SENT ({@code length} bytes from index 0 of {@code ring}, borrowed). */
    void received(ByteBuf ring, int length) {
        int opcode = length > 0 ? ring.getUnsignedByte(0) : -1;
        switch (opcode) {
            case SrpIu.CMD -> command(ring, length);
            case SrpIu.TSK_MGMT -> taskManagement(ring, length);
            case SrpIu.I_LOGOUT -> {
                LOG.info("SRP channel {}: initiator logout", channel.cmId().remoteAddress());
                channel.close();
            }
            case SrpIu.CRED_RSP, SrpIu.AER_RSP -> {
                creditRequestOutstanding = false;
                scheduleCreditCheck();
            }
            default -> {
                LOG.warn("SRP channel {}: IU with opcode 0x{} ({} bytes); logging the channel out",
                        channel.cmId().remoteAddress(), Integer.toHexString(opcode), length);
                channel.logout(SrpLogout.INVALID_IU_TYPE);
            }
        }
    }

    private void command(ByteBuf ring, int length) {
        SrpCommand.Outcome outcome = iu.decode(ring, 0, length,
                immediateDataOffset < 0 ? SrpCommand.NO_IMMEDIATE_DATA : immediateDataOffset);
        long tag = length >= 16 ? ring.getLong(8) : 0;
        if (!takeCredit(tag)) {
            return;
        }
        if (outcome != SrpCommand.Outcome.OK) {
            LOG.info("SRP channel {}: SRP_CMD (tag 0x{}) refused: {}", channel.cmId().remoteAddress(),
                    Long.toHexString(tag), iu.reason());
            answerInvalid(tag);
            return;
        }
        SrpTask task = tasks[freeTasks[--freeTaskCount]]; // a credit guarantees a free task
        task.inUse = true;
        task.tag = tag;
        String refused = describeData(task, ring, length);
        if (refused != null) {
            LOG.info("SRP channel {}: SRP_CMD (tag 0x{}) refused: {}", channel.cmId().remoteAddress(),
                    Long.toHexString(tag), refused);
            freeTask(task);
            answerInvalid(tag);
            return;
        }
        ScsiCommand cmd = task.cmd;
        cmd.cdb(ring, iu.cdbIndex(), iu.cdbLength());
        cmd.lun(LunAddress.decode(iu.lunField()));
        cmd.tag(tag);
        cmd.taskAttribute(iu.taskAttribute());
        cmd.nexus(nexus);
        cmd.fabric(this);
        cmd.eventLoop(channel.executor());
        cmd.alloc(channel.dataAllocator());
        cmd.fabricContext(task);
        cmd.dataOut(task.dataOutSegments);
        if (task.tableFetch != null) {
            SrpCommand.Direction d = task.tableFetch;
            channel.readTable(task, iu.tableVa(d), iu.tableKey(d), iu.tableLength(d)); // then tableFetched
            return;
        }
        core.submit(cmd);
    }

    /**
     * The whole indirect descriptor table arrived ({@code table}, released here): its entries
     * replace the partial list of the SRP_CMD, and the command goes to the core, or is refused if
     * they do not add up to its TOTAL LENGTH.
     */
    void tableFetched(SrpTask task, ByteBuf table) {
        RemoteBuffers into = task.tableFetch == Direction.DATA_OUT ? task.dataOutBuffers : task.dataInBuffers;
        into.clear();
        for (int at = table.readerIndex(); at + 16 <= table.writerIndex(); at += 16) {
            into.add(table.getLong(at), table.getInt(at + 8), table.getInt(at + 12));
        }
        table.release();
        task.tableFetch = null;
        if (into.total() != task.tableTotal) {
            LOG.info("SRP channel {}: SRP_CMD (tag 0x{}) refused: its descriptor table adds up to {} bytes, its TOTAL "
                    + "LENGTH says {}", channel.cmId().remoteAddress(), Long.toHexString(task.tag), into.total(),
                    task.tableTotal);
            long tag = task.tag;
            task.cmd.releaseBuffers();
            freeTask(task);
            answerInvalid(tag);
            return;
        }
        core.submit(task.cmd);
    }

    /**
     * Fills the task's direction, expected length, remote buffers and immediate data from the IU's
     * descriptors (SRP r16a 6.8); null, or why the command cannot be served.
     */
    private String describeData(SrpTask task, ByteBuf ring, int length) {
        boolean out = iu.format(Direction.DATA_OUT) != SrpDescriptorFormat.NONE;
        boolean in = iu.format(Direction.DATA_IN) != SrpDescriptorFormat.NONE;
        ScsiCommand cmd = task.cmd;
        cmd.direction(out && in ? DataDirection.BIDIRECTIONAL
                : out ? DataDirection.WRITE : in ? DataDirection.READ : DataDirection.NONE);
        String why = remoteBuffers(task, Direction.DATA_OUT, task.dataOutBuffers);
        if (why == null) {
            why = remoteBuffers(task, Direction.DATA_IN, task.dataInBuffers);
        }
        if (why == null && iu.format(Direction.DATA_OUT) == SrpDescriptorFormat.IMMEDIATE) {
            immediateData(task, ring);
        }
        if (why != null) {
            return why;
        }
        long expected = Integer.toUnsignedLong(iu.dataLength(out ? Direction.DATA_OUT : Direction.DATA_IN));
        if (expected > Integer.MAX_VALUE) {
            return "a transfer of " + expected + " bytes";
        }
        cmd.expectedDataTransferLength((int) expected);
        return null;
    }

    /** The longest indirect descriptor table fetched (4096 entries: 16 MiB in 4 KiB pages). */
    static final int MAX_TABLE_LENGTH = 4096 * 16;

    private String fetchTable(SrpTask task, Direction direction) {
        long length = Integer.toUnsignedLong(iu.tableLength(direction));
        if (task.tableFetch != null) {
            return "indirect descriptor tables in both directions only partly in the IU";
        }
        if (length > MAX_TABLE_LENGTH) {
            return "an indirect descriptor table of " + length + " bytes (at most " + MAX_TABLE_LENGTH + ")";
        }
        task.tableFetch = direction;
        task.tableTotal = Integer.toUnsignedLong(iu.totalLength(direction));
        return null;
    }

    private String remoteBuffers(SrpTask task, Direction direction, RemoteBuffers into) {
        switch (iu.format(direction)) {
            case DIRECT -> into.add(iu.va(direction), iu.key(direction), iu.length(direction));
            case INDIRECT -> {
                int inIu = iu.inIuCount(direction);
                if (!iu.tableComplete(direction)) {
                    // r16a: the rest of the table is in the initiator's memory (Linux sends such
                    // an IU only with allow_ext_sg): fetched by RDMA READ before the command runs
                    return fetchTable(task, direction);
                }
                for (int i = 0; i < inIu; i++) {
                    into.add(iu.descriptorVa(direction, i), iu.descriptorKey(direction, i),
                            iu.descriptorLength(direction, i));
                }
                if (task.tableFetch != direction && into.total() != Integer.toUnsignedLong(iu.totalLength(direction))) {
                    return "an indirect descriptor whose TOTAL LENGTH " + Integer.toUnsignedLong(iu.totalLength(direction))
                            + " is not the sum of its descriptors, " + into.total();
                }
            }
            default -> {
                // none, or immediate data (data-out only; the decoder checked where it lies)
            }
        }
        return null;
    }

    /**
     * SRP-2 immediate data: the data-out is in the IU, at the offset agreed at login (the decoder
     * checked that it lies there). Copied out, so that the receive goes back to the ring at once:
     * iWARP has no receiver-not-ready retry, and the store keeps data-out until the write is done.
     */
    private void immediateData(SrpTask task, ByteBuf ring) {
        int n = iu.immediateLength();
        if (n > 0) {
            ByteBuf copy = channel.dataAllocator().directBuffer(n);
            ByteBufCopy.append(ring, iu.immediateDataIndex(), copy, n);
            task.dataOutSegments.add(copy);
        }
        task.immediate = true;
    }

    private void taskManagement(ByteBuf ring, int length) {
        long tag = length >= 16 ? ring.getLong(8) : 0;
        if (!takeCredit(tag)) {
            return;
        }
        SrpTaskManagement tmf;
        switch (SrpTaskManagement.decode(ring, 0, length)) {
            case Decoded.Malformed<SrpTaskManagement> m -> {
                LOG.info("SRP channel {}: SRP_TSK_MGMT refused: {}", channel.cmId().remoteAddress(), m.reason());
                answerTaskManagement(tag, SrpResponse.REQUEST_FIELDS_INVALID);
                return;
            }
            case Decoded.Ok<SrpTaskManagement> ok -> tmf = ok.value();
        }
        TmfRequest.Function function = tmf.function();
        if (function == null) {
            answerTaskManagement(tag, SrpResponse.TASK_MANAGEMENT_NOT_SUPPORTED);
            return;
        }
        core.submitTmf(new TmfRequest(function, LunAddress.decode(tmf.lunField()), tmf.taskTag(), nexus, this,
                channel.executor(), tag));
    }

    /**
     * Counts the request's credit; a request beyond the request limit (r16a 5.5.2: the initiator
     * shall not send it) gets BUSY and no credit back, and the channel goes on.
     */
    private boolean takeCredit(long tag) {
        if (creditsInUse >= limits.credits()) {
            LOG.warn("SRP channel {}: request (tag 0x{}) beyond the request limit of {}",
                    channel.cmId().remoteAddress(), Long.toHexString(tag), limits.credits());
            sendResponse(tag, false, ScsiStatus.BUSY, 0, 0, 0, 0, 0, NO_RESPONSE_CODE, false);
            return false;
        }
        creditsInUse++;
        return true;
    }

    // ------------------------------------------------------------------ FabricOps

    @Override
    public void writePending(ScsiCommand cmd) {
        SrpTask task = (SrpTask) cmd.fabricContext();
        int wanted = Math.min(cmd.expectedDataTransferLength(), cmd.dataOutLength());
        if (task.immediate || wanted == 0 || !channel.isOpen()) {
            if (!channel.isOpen()) {
                cmd.markAborted();
            }
            core.dataOutComplete(cmd);
            return;
        }
        task.wanted = wanted;
        channel.readDataOut(task);
    }

    /** An RDMA READ of the task's data-out completed into {@code buf} (the task owns it now). */
    void dataOutFetched(SrpTask task, ByteBuf buf) {
        if (task.abandoned) {
            buf.release();
            if (task.outstanding == 0) {
                freeTask(task);
                creditReturned();
            }
            return;
        }
        task.received += buf.readableBytes();
        task.dataOutSegments.add(buf);
        if (task.received >= task.wanted && task.outstanding == 0) {
            task.wanted = 0;
            core.dataOutComplete(task.cmd);
        } else {
            channel.readDataOut(task);
        }
    }

    @Override
    public void queueDataIn(ScsiCommand cmd) {
        SrpTask task = (SrpTask) cmd.fabricContext();
        ByteBuf data = cmd.dataIn();
        int produced = data == null ? 0 : data.readableBytes();
        long room = task.dataInBuffers.total();
        int n = (int) Math.min(produced, room);
        count(cmd, n);
        if (n > 0 && channel.isOpen() && !channel.writeDataIn(data, data.readerIndex(), n, task.dataInBuffers)) {
            finish(task);
            return;
        }
        respond(task, produced);
    }

    @Override
    public void queueStatus(ScsiCommand cmd) {
        count(cmd, TransferCounters.dataOutBytes(cmd));
        respond((SrpTask) cmd.fabricContext(), 0);
    }

    /**
     * Counts a command whose response goes to the initiator now, for this channel and its portal
     * (aborted tasks get none and are not counted, as in the LU's statistics).
     */
    private void count(ScsiCommand cmd, long transferred) {
        counters.record(cmd, transferred);
        portalCounters.record(cmd, transferred);
    }

    /**
     * SAM-5 5.6: an aborted command gets no response; its credit goes back another way. A WRITE
     * aborted while RDMA READs of its data-out are in flight (the core does not wait for them)
     * keeps its task until they complete: only then is the task free for another command, and
     * only then does the credit go back.
     */
    @Override
    public void abortedTask(ScsiCommand cmd) {
        SrpTask task = (SrpTask) cmd.fabricContext();
        if (task.outstanding > 0) {
            task.cmd.releaseBuffers();
            task.abandoned = true;
            task.wanted = 0; // no further READ
            return;
        }
        finish(task);
        creditReturned();
    }

    /** A request ended without a response: its credit goes back with the next SRP_RSP or an SRP_CRED_REQ. */
    private void creditReturned() {
        creditsToReturn++;
        scheduleCreditCheck();
    }

    @Override
    public void queueTmResponse(TmfRequest tmf) {
        answerTaskManagement((Long) tmf.fabricContext(), switch (tmf.response()) {
            // SAM-5 7.2: ABORT TASK of a task that is not there completes
            case FUNCTION_COMPLETE, TASK_DOES_NOT_EXIST -> SrpResponse.NO_FAILURE;
            case FUNCTION_NOT_SUPPORTED, FUNCTION_REJECTED, TASK_ALLEGIANCE_REASSIGNMENT_NOT_SUPPORTED -> SrpResponse.TASK_MANAGEMENT_NOT_SUPPORTED;
            default -> SrpResponse.TASK_MANAGEMENT_FAILED;
        });
    }

    // ------------------------------------------------------------------ SRP_RSP out

    /**
     * The command's SRP_RSP: status, sense and the residuals of each direction against what its
     * descriptors offered (r16a 6.9: DIUNDER/DIOVER, DOUNDER/DOOVER); then the task ends.
     *
     * @param producedIn data-in bytes the command produced (0 without data-in)
     */
    private void respond(SrpTask task, int producedIn) {
        ScsiCommand cmd = task.cmd;
        if (!channel.isOpen()) {
            finish(task);
            return;
        }
        long inExpected = task.dataInBuffers.total();
        // data-out offered: the descriptors' bytes, or the immediate data's length (0 without a
        // data-out descriptor); what the CDB wanted is the core's dataOutLength, so a WRITE sent
        // with no data-out descriptor at all reports its whole length as DOOVER, as iSCSI reports
        // an EDTL of 0
        long outExpected = cmd.direction() != DataDirection.WRITE && cmd.direction() != DataDirection.BIDIRECTIONAL ? 0
                : task.immediate ? cmd.expectedDataTransferLength() : task.dataOutBuffers.total();
        long outTransferred = cmd.dataOutLength();
        int senseLength = cmd.senseLength();
        System.arraycopy(cmd.sense(), 0, sense, 0, senseLength);
        if (sendResponse(task.tag, true, cmd.status(), inExpected, producedIn, outExpected, outTransferred,
                senseLength, NO_RESPONSE_CODE, false)) {
            finish(task);
        } else {
            task.responseWaiting = true;
            waitingResponses.add(task);
        }
    }

    /** CHECK CONDITION, INVALID FIELD IN COMMAND INFORMATION UNIT (SAM-5), for an SRP_CMD the target cannot take. */
    private void answerInvalid(long tag) {
        int n = SenseBuilder.build(sense, SenseReason.INVALID_FIELD_IN_COMMAND_INFORMATION_UNIT, false);
        if (!sendResponse(tag, true, ScsiStatus.CHECK_CONDITION, 0, 0, 0, 0, n, NO_RESPONSE_CODE, false)) {
            creditReturned();
        }
    }

    private void answerTaskManagement(long tag, int code) {
        if (!sendTaskManagementResponse(tag, code)) {
            waitingResponses.add(new WaitingTmf(tag, code));
        }
    }

    private boolean sendTaskManagementResponse(long tag, int code) {
        // FENCE: the READs of the commands the function ended must be done before the initiator
        // has the answer and unregisters their memory
        return sendResponse(tag, true, ScsiStatus.GOOD, 0, 0, 0, 0, 0, code, true);
    }

    /**
     * Builds and SENDs one SRP_RSP; false when no send buffer is free (the caller queues it).
     *
     * @param credited     the request used a credit, which this response gives back (with any owed)
     * @param senseLength  sense bytes in {@link #sense}
     * @param responseCode a task management answer's RSP_CODE, or {@link #NO_RESPONSE_CODE}
     */
    private boolean sendResponse(long tag, boolean credited, int status, long inExpected, long inTransferred,
                                 long outExpected, long outTransferred, int senseLength, int responseCode,
                                 boolean fence) {
        if (!channel.canSend()) {
            return false;
        }
        int slot = channel.takeSend();
        int delta = creditsToReturn + (credited ? 1 : 0);
        creditsToReturn = 0;
        creditsInUse -= delta;
        ByteBuf b = channel.sendBuffer(slot);
        if (responseCode != NO_RESPONSE_CODE) {
            SrpResponse.encodeTaskManagement(b, 0, delta, tag, responseCode);
        } else {
            int flags = residualFlag(inExpected, inTransferred, SrpResponse.DIUNDER, SrpResponse.DIOVER)
                    | residualFlag(outExpected, outTransferred, SrpResponse.DOUNDER, SrpResponse.DOOVER);
            SrpResponse.encode(b, 0, delta, tag, status, flags, (int) Math.abs(outExpected - outTransferred),
                    (int) Math.abs(inExpected - inTransferred), sense, senseLength);
        }
        channel.postSend(slot, fence, "SRP_RSP");
        return true;
    }

    /**
     * r16a SRP_RSP: UNDER when fewer bytes moved than the descriptors offered (the residual is
     * the difference), OVER when the command wanted more than they offered.
     */
    private static int residualFlag(long offered, long moved, int under, int over) {
        return moved < offered ? under : moved > offered ? over : 0;
    }

    /** A send buffer came back: responses that waited for one go first. */
    void sendBufferFreed() {
        while (!waitingResponses.isEmpty() && channel.canSend()) {
            Object next = waitingResponses.poll();
            if (next instanceof SrpTask task) {
                task.responseWaiting = false;
                respond(task, task.cmd.dataIn() == null ? 0 : task.cmd.dataIn().readableBytes());
            } else if (next instanceof WaitingTmf t) {
                sendTaskManagementResponse(t.tag, t.code);
            }
        }
        if (waitingResponses.isEmpty()) {
            scheduleCreditCheck();
        }
    }

    private record WaitingTmf(long tag, int code) {
    }

    // ------------------------------------------------------------------ credits

    private void scheduleCreditCheck() {
        if (!creditCheckScheduled && creditsToReturn > 0) {
            creditCheckScheduled = true;
            channel.executor().execute(this::returnCredits);
        }
    }

    /**
     * Gives owed credits back in an SRP_CRED_REQ (r16a 6.10) when no response took them meanwhile
     * (a whole loop turn later, so that a burst of aborts and their task management answer share
     * one IU).
     */
    private void returnCredits() {
        creditCheckScheduled = false;
        if (creditsToReturn == 0 || creditRequestOutstanding || !waitingResponses.isEmpty() || !channel.canSend()) {
            return;
        }
        int slot = channel.takeSend();
        int delta = creditsToReturn;
        creditsToReturn = 0;
        creditsInUse -= delta;
        new SrpCredit.Request(0, delta, CREDIT_REQUEST_TAG).encode(channel.sendBuffer(slot));
        creditRequestOutstanding = true;
        channel.postSend(slot, false, "SRP_CRED_REQ");
    }

    // ------------------------------------------------------------------ end

    /** The task's command is over: its buffers go back and the task to the pool. */
    private void finish(SrpTask task) {
        task.cmd.releaseBuffers();
        freeTask(task);
    }

    private void freeTask(SrpTask task) {
        task.reset();
        freeTasks[freeTaskCount++] = task.index;
    }

    /**
     * The queue pair is gone: commands waiting for data-out RDMA READs end aborted (the core then
     * calls {@link #abortedTask}); the others finish in the core and send nothing.
     */
    void channelGone() {
        for (SrpTask task : tasks) {
            if (task.inUse && task.tableFetch != null) {
                finish(task); // never reached the core; its table's buffer went with the transfers
                continue;
            }
            if (task.inUse && task.wanted > 0 && !task.abandoned) {
                task.wanted = 0;
                task.cmd.markAborted();
                core.dataOutComplete(task.cmd);
            }
        }
        Object waiting;
        while ((waiting = waitingResponses.poll()) != null) {
            if (waiting instanceof SrpTask task) {
                finish(task);
            }
        }
    }
}
