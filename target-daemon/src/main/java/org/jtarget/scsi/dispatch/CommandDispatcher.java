package org.jtarget.scsi.dispatch;

import org.jtarget.backstore.spi.StoreException;
import org.jtarget.scsi.cdb.Opcodes;
import org.jtarget.scsi.lun.LogicalUnit;
import org.jtarget.scsi.lun.LuStatistics;
import org.jtarget.scsi.lun.LunQueueDepth;
import org.jtarget.scsi.lun.LunTable;
import org.jtarget.scsi.lun.ScsiTargetCore;
import org.jtarget.scsi.sense.SenseBuilder;
import org.jtarget.scsi.sense.SenseReason;
import org.jtarget.scsi.spi.FabricOps;
import org.jtarget.scsi.spi.ScsiCommand;
import org.jtarget.scsi.spi.ScsiStatus;
import org.jtarget.scsi.tmf.TmfCompletion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;

/**
 * Runs every command through its LU's queue depth (admitted, or parked until a slot frees:
 * {@link LunQueueDepth}, {@link FabricOps#commandParked}), then the fixed gate, its parser and its
 * executor (DESIGN 3 "Dispatch"): control byte → LUN exists → unit attention → reservation
 * conflict → ALUA state → parse (range checks, write protect) → {@link FabricOps#writePending}
 * for data-out → execute → exactly one final FabricOps call.
 *
 * <p>Aborts: a command in data-out transfer that task management aborts is ended here with
 * {@link FabricOps#abortedTask} on its event loop; the fabric must then drop the task's
 * outstanding data-out and never call {@code dataOutComplete} for it. A fabric that itself
 * marks a command aborted and calls {@code dataOutComplete} gets the same abortedTask.
 * Commands in store I/O end with abortedTask when the I/O returns.
 */
public final class CommandDispatcher {

    private static final Logger log = LoggerFactory.getLogger(CommandDispatcher.class);

    private final ScsiTargetCore target;
    private final CommandTable table;
    private volatile boolean bugLogged;

    public CommandDispatcher(ScsiTargetCore target, CommandTable table) {
        this.target = target;
        this.table = table;
    }

    /** The command table this dispatcher serves (REPORT SUPPORTED OPERATION CODES reads it). */
    public CommandTable table() {
        return table;
    }

    /** Admit (or park), gate, parse and start a command (on the fabric's event loop). */
    public void submit(ScsiCommand cmd) {
        CommandContext ctx = CommandContext.acquire();
        ctx.bind(cmd, this, target);
        cmd.coreContext(ctx);
        LunTable luns = target.lunsOf(cmd.nexus()); // what this initiator may see (node ACL), lock-free
        LogicalUnit lu = luns.get(cmd.lun());
        ctx.lu(lu, luns.readOnly(cmd.lun()));
        LunQueueDepth depth = lu == null ? null : lu.queueDepth();
        if (depth != null) {
            if (!depth.enter(ctx)) {
                park(ctx, depth);
                return;
            }
            ctx.admittedToLu(true);
        }
        start(ctx);
    }

    /**
     * The LU is at its queue depth: the command waits in its task set (task management aborts it
     * there) with no data-out and no store I/O, until {@link #admittedFromPark} or an abort.
     */
    private void park(CommandContext ctx, LunQueueDepth depth) {
        ScsiCommand cmd = ctx.cmd();
        ctx.state(CommandContext.STATE_PARKED);
        ctx.lu().taskSet().add(ctx);
        if (!cmd.fabric().commandParked(cmd) && depth.cancel(ctx)) {
            // the initiator ignores the fabric's flow control: SAM-5 5.3.1, the last resort
            ctx.failWithStatus(ScsiStatus.TASK_SET_FULL);
            endParked(ctx);
        }
    }

    /** On the event loop: a parked command holds a slot of its LU now; it goes on (or ends, if aborted meanwhile). */
    void admittedFromPark(CommandContext ctx) {
        ctx.admittedToLu(true);
        ScsiCommand cmd = ctx.cmd();
        cmd.fabric().commandUnparked(cmd);
        if (cmd.isAborted()) {
            finish(ctx); // SAM-5 5.6: no status; finish passes the slot on
            return;
        }
        start(ctx);
    }

    /** Task management aborted a parked command: out of the LU's queue and ended, unless admitted meanwhile. */
    private void abortParked(CommandContext ctx) {
        if (ctx.lu().queueDepth().cancel(ctx)) {
            endParked(ctx);
        } // else its admission is on the way to this loop: admittedFromPark ends it
    }

    /** Ends a command that never got a slot (aborted, or TASK SET FULL). */
    private void endParked(CommandContext ctx) {
        ScsiCommand cmd = ctx.cmd();
        cmd.fabric().commandUnparked(cmd);
        finish(ctx);
    }

    /** Gate, parse and start a command that holds its LU slot (or whose LU has no queue depth). */
    private void start(CommandContext ctx) {
        ScsiCommand cmd = ctx.cmd();
        try {
            SenseReason rejected = gateAndParse(ctx);
            if (rejected != null || ctx.specialStatus() != 0) {
                if (rejected != null) {
                    ctx.fail(rejected);
                }
                finish(ctx);
                return;
            }
            int dataOut = cmd.dataOutLength();
            if (dataOut > 0) {
                ctx.state(CommandContext.STATE_WRITE_PENDING);
                cmd.fabric().writePending(cmd);
                return;
            }
            execute(ctx);
        } catch (RuntimeException e) {
            internalError(ctx, e);
            finish(ctx);
        }
    }

    /** The data-out asked for has arrived (or the command was aborted); on the event loop. */
    public void dataOutComplete(ScsiCommand cmd) {
        Object o = cmd.coreContext();
        if (!(o instanceof CommandContext ctx) || ctx.state() != CommandContext.STATE_WRITE_PENDING) {
            log.debug("dataOutComplete for a command the core no longer owns (tag {})", cmd.tag());
            return;
        }
        if (cmd.isAborted()) {
            finish(ctx);
            return;
        }
        try {
            execute(ctx);
        } catch (RuntimeException e) {
            internalError(ctx, e);
            finish(ctx);
        }
    }

    private SenseReason gateAndParse(CommandContext ctx) {
        ScsiCommand cmd = ctx.cmd();
        OpcodeEntry entry = table.lookup(cmd.cdb());
        LogicalUnit lu = ctx.lu(); // looked up by submit
        ctx.entry(entry);
        if (entry == null && lu != null && table.row(cmd.opcode()) != null) {
            // SPC-4 4.2.5.x: a supported opcode with an unsupported service action is INVALID FIELD IN CDB
            return ctx.invalidCdbField(1, 4);
        }
        if (entry != null && (cmd.cdb()[entry.cdbLength() - 1] & CONTROL_NACA_LINK) != 0) {
            // SAM-5 5.2: NACA (bit 2) and LINK (bit 0, obsolete) are not supported
            return ctx.invalidCdbField(entry.cdbLength() - 1, SenseBuilder.NONE);
        }
        if (lu == null && (entry == null || !entry.has(OpcodeEntry.NO_LUN_OK))) {
            return SenseReason.LOGICAL_UNIT_NOT_SUPPORTED;
        }
        if (entry == null) {
            return SenseReason.INVALID_COMMAND_OPERATION_CODE;
        }
        if (lu != null) {
            if (!entry.has(OpcodeEntry.UA_EXEMPT)) {
                SenseReason ua = lu.unitAttentions().poll(cmd.nexus());
                if (ua != null) {
                    return ua;
                }
            }
            if (lu.reservations().conflicts(cmd.nexus(), entry.reservation(), cmd.cdb())) {
                ctx.reservationConflict(); // SPC-4 5.13.1 table 72, SBC-4 4.17, SPC-2 5.5.1
                return null;
            }
            if (cmd.nexus() != null) {
                // SPC-4 5.15.2.4: the access state of the group the command came through
                SenseReason inaccessible = target.portGroups().stateOf(cmd.nexus().targetPortGroup()).refusal(entry);
                if (inaccessible != null) {
                    return inaccessible;
                }
            }
            if (ctx.taskSlot() < 0) {
                lu.taskSet().add(ctx); // a command that was parked is there already
            }
            if (lu.removed()) {
                return SenseReason.LOGICAL_UNIT_NOT_SUPPORTED; // removed since the lookup; its store may be closing
            }
            if (!entry.supportedOn(lu, ctx.target().portGroups().explicitChanges())) {
                // backstore capability (DESIGN 3): e.g. UNMAP on a fully provisioned LU; a service
                // action missing on this LU is INVALID FIELD IN CDB like any unsupported one
                return entry.isServiceAction() ? ctx.invalidCdbField(1, 4)
                        : SenseReason.INVALID_COMMAND_OPERATION_CODE;
            }
            SenseReason notReady = mediumCheck(lu, entry);
            if (notReady != null) {
                return notReady;
            }
        }
        SenseReason bad = entry.handler().parse(ctx);
        if (bad == null && lu != null && entry.has(OpcodeEntry.WRITES_MEDIUM)) {
            // a read-only mapping of the initiator protects like a read-only LU (LIO: mapped LUN write protect)
            bad = ctx.writeProtection();
        }
        return bad;
    }

    private static final int CONTROL_NACA_LINK = 0x05;

    /**
     * Medium state gate, before any data moves: SBC-4 4.11.4 (while sanitizing only INQUIRY,
     * REPORT LUNS and REQUEST SENSE are served), 4.15 (no medium), and an offline LU.
     */
    private static SenseReason mediumCheck(LogicalUnit lu, OpcodeEntry entry) {
        if (entry.has(OpcodeEntry.NEEDS_MEDIUM)) {
            return lu.medium().accessError();
        }
        if (!entry.has(OpcodeEntry.NO_LUN_OK) && lu.medium().sanitizing()) {
            return SenseReason.SANITIZE_IN_PROGRESS;
        }
        return null;
    }

    private void execute(CommandContext ctx) {
        LogicalUnit lu = ctx.lu();
        OpcodeEntry entry = ctx.entry();
        if (lu != null && ctx.blocks() > 0 && entry.has(OpcodeEntry.RANGE_SHARED | OpcodeEntry.RANGE_EXCLUSIVE)) {
            ctx.state(CommandContext.STATE_RANGE_WAIT);
            if (!lu.rangeLock().acquire(ctx.rangeHolder(), ctx.lba(), ctx.blocks(),
                    entry.has(OpcodeEntry.RANGE_EXCLUSIVE) || ctx.exclusiveRange())) {
                return; // resumeAfterRangeLock runs on the event loop once the range is free
            }
        }
        executeInRange(ctx);
    }

    /** The command's LBA range became free: execute it (on its event loop). */
    void resumeAfterRangeLock(CommandContext ctx) {
        try {
            executeInRange(ctx);
        } catch (RuntimeException e) {
            internalError(ctx, e);
            finish(ctx);
        }
    }

    private void executeInRange(CommandContext ctx) {
        ctx.state(CommandContext.STATE_EXECUTING);
        LogicalUnit lu = ctx.lu();
        OpcodeEntry entry = ctx.entry();
        if (lu != null && (entry.has(OpcodeEntry.OFF_LOOP)
                || entry.has(OpcodeEntry.MEDIUM_IO) && !lu.store().isNonBlocking())) {
            if (!entry.has(OpcodeEntry.OFF_LOOP) && executedNonBlocking(ctx)) {
                if (!ctx.startDetached()) {
                    finish(ctx); // served from memory on the event loop: no I/O thread round trip
                } // else an asynchronous write (AsyncWriter) ends it later
                return;
            }
            try {
                lu.ioExecutor().execute(ctx);
            } catch (RejectedExecutionException e) {
                // DESIGN 4.4: a full I/O queue is TASK SET FULL, never an unbounded queue
                ctx.failWithStatus(ScsiStatus.TASK_SET_FULL);
                finish(ctx);
            }
            return;
        }
        executeHandler(ctx);
        if (!ctx.startDetached()) {
            finish(ctx);
        }
    }

    /** The handler's non-blocking attempt (a cached READ); false on any doubt, the normal path decides. */
    private boolean executedNonBlocking(CommandContext ctx) {
        if (ctx.cmd().isAborted()) {
            return false;
        }
        try {
            return ctx.entry().handler().executeNonBlocking(ctx);
        } catch (RuntimeException e) {
            internalError(ctx, e);
            return true;
        }
    }

    /** Runs the handler's execute phase, mapping failures to sense; any thread. */
    void executeHandler(CommandContext ctx) {
        if (ctx.cmd().isAborted()) {
            return;
        }
        try {
            ctx.entry().handler().execute(ctx);
        } catch (StoreException e) {
            storeFailed(ctx, e.kind(), e);
        } catch (IOException e) {
            log.debug("store I/O failed for {}", ctx.entry().name(), e);
            storeFailed(ctx, writes(ctx) ? StoreException.Kind.WRITE_ERROR : StoreException.Kind.READ_ERROR, e);
        } catch (RuntimeException e) {
            internalError(ctx, e);
        }
    }

    /** An asynchronous store call failed (on the command's event loop): sense as for a blocking one. */
    void asyncFailed(CommandContext ctx, IOException e) {
        if (e instanceof StoreException se) {
            storeFailed(ctx, se.kind(), se);
        } else {
            log.debug("store I/O failed for {}", ctx.entry().name(), e);
            storeFailed(ctx, writes(ctx) ? StoreException.Kind.WRITE_ERROR : StoreException.Kind.READ_ERROR, e);
        }
    }

    /** A command whose failure loses written data: a write, or a flush (SBC-4 5.22: SYNCHRONIZE CACHE). */
    private static boolean writes(CommandContext ctx) {
        int op = ctx.cmd().opcode();
        return ctx.entry().has(OpcodeEntry.WRITES_MEDIUM)
                || op == Opcodes.SYNCHRONIZE_CACHE_10 || op == Opcodes.SYNCHRONIZE_CACHE_16;
    }

    /**
     * A store error becomes sense data ({@link StoreErrors}); the command fails, never with GOOD,
     * and the daemon keeps serving. A vanished medium also takes the LU offline (logged once);
     * other faults are logged at WARN once per kind and LU.
     */
    private static void storeFailed(CommandContext ctx, StoreException.Kind kind, IOException e) {
        LogicalUnit lu = ctx.lu();
        if (lu != null) {
            if (kind == StoreException.Kind.MEDIUM_GONE) {
                lu.takeOffline(e.getMessage());
            } else {
                lu.storeFault(kind, e.getMessage());
            }
        }
        ctx.fail(StoreErrors.reasonFor(kind, ctx));
    }

    private void internalError(CommandContext ctx, RuntimeException e) {
        String name = ctx.entry() == null ? "opcode " + ctx.cmd().opcode() : ctx.entry().name();
        if (!bugLogged) {
            bugLogged = true;
            log.error("bug: {} failed; answering HARDWARE ERROR / INTERNAL TARGET FAILURE (logged once)", name, e);
        } else {
            log.debug("bug: {} failed", name, e);
        }
        ctx.fail(SenseReason.INTERNAL_TARGET_FAILURE);
    }

    /**
     * Ends a command on its event loop: leaves the task set, builds sense, makes the one final
     * FabricOps call and releases the context; then tells waiting task management functions.
     */
    void finish(CommandContext ctx) {
        ScsiCommand cmd = ctx.cmd();
        LogicalUnit lu = ctx.lu();
        boolean heldLuSlot = ctx.admittedToLu();
        ctx.state(CommandContext.STATE_DONE);
        if (lu != null) {
            lu.rangeLock().release(ctx.rangeHolder()); // may schedule commands waiting for the range
        }
        List<TmfCompletion> waiters = lu == null ? null : lu.taskSet().remove(ctx);
        boolean aborted = cmd.isAborted();
        if (!aborted) {
            setStatus(ctx, cmd, lu);
            if (lu != null) {
                count(ctx, cmd, lu);
            }
        }
        FabricOps fabric = cmd.fabric();
        cmd.coreContext(null);
        ctx.recycle();
        if (aborted) {
            fabric.abortedTask(cmd);
        } else if (cmd.status() == ScsiStatus.GOOD && cmd.dataIn() != null) {
            fabric.queueDataIn(cmd);
        } else {
            fabric.queueStatus(cmd);
        }
        if (heldLuSlot) {
            lu.queueDepth().exit(); // may admit the oldest parked command of the LU, on its own loop
        }
        if (waiters != null) {
            for (int i = 0; i < waiters.size(); i++) {
                waiters.get(i).taskEnded();
            }
        }
    }

    /** Adds the ended command to its LU's statistics (no allocation: striped counters). */
    private static void count(CommandContext ctx, ScsiCommand cmd, LogicalUnit lu) {
        LuStatistics.Op op = LuStatistics.op(cmd.cdb()[0] & 0xFF);
        SenseReason error = ctx.error();
        lu.statistics().record(op, cmd.status(), error == null ? 0 : error.senseKey(),
                (long) ctx.blocks() * lu.blockSize(), System.nanoTime() - ctx.arrived());
    }

    private static void setStatus(CommandContext ctx, ScsiCommand cmd, LogicalUnit lu) {
        SenseReason error = ctx.error();
        if (error != null) {
            boolean descriptor = lu != null && lu.modes().descriptorSense();
            int n = SenseBuilder.build(cmd.sense(), error, descriptor, ctx.information(),
                    ctx.fieldPointer(), ctx.bitPointer(), ctx.fieldInCdb());
            cmd.senseLength(n);
            cmd.status(ScsiStatus.CHECK_CONDITION);
        } else if (ctx.specialStatus() != 0) {
            cmd.status(ctx.specialStatus());
        }
        if (cmd.status() != ScsiStatus.GOOD || (cmd.dataIn() != null && !cmd.dataIn().isReadable())) {
            cmd.dataIn(null);
        }
    }

    /**
     * Task management marked {@code ctx}'s command aborted (under the task set lock): end it on
     * its event loop if it is waiting for data-out or parked; otherwise it ends where it is running.
     */
    public void scheduleAbort(CommandContext ctx) {
        ScsiCommand cmd = ctx.cmd();
        int generation = ctx.generation();
        cmd.eventLoop().execute(() -> {
            if (ctx.generation() != generation) {
                return;
            }
            if (ctx.state() == CommandContext.STATE_WRITE_PENDING) {
                finish(ctx);
            } else if (ctx.state() == CommandContext.STATE_PARKED) {
                abortParked(ctx);
            }
        });
    }
}
