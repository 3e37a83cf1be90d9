package org.jtarget.scsi.dispatch;

import io.netty.util.concurrent.FastThreadLocal;
import org.jtarget.scsi.lun.LbaRangeLock;
import org.jtarget.scsi.lun.LogicalUnit;
import org.jtarget.scsi.lun.LunQueueDepth;
import org.jtarget.scsi.lun.ScsiTargetCore;
import org.jtarget.scsi.sense.SenseBuilder;
import org.jtarget.scsi.sense.SenseReason;
import org.jtarget.scsi.spi.ScsiCommand;
import org.jtarget.scsi.tmf.TmfCompletion;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The core's per-command state, hung on {@link ScsiCommand#coreContext()}: the parsed CDB, the
 * logical unit, the error to report and the task-set slot. Pooled per event-loop thread
 * (acquired in submit, released when the command ends on the same loop), so the hot path does
 * not allocate one per I/O. It is also the Runnable handed to the LU's I/O executor, and
 * {@link #completion()} the Runnable that brings the result back to the event loop.
 */
public final class CommandContext implements Runnable, LunQueueDepth.Waiter, org.jtarget.backstore.spi.AsyncWriter.Done {

    /** States of the command within the core. */
    public static final int STATE_NEW = 0;
    public static final int STATE_WRITE_PENDING = 1;
    public static final int STATE_EXECUTING = 2;
    public static final int STATE_DONE = 3;
    /** Waiting for an overlapping COMPARE AND WRITE / ORWRITE (or for others, if it is one). */
    public static final int STATE_RANGE_WAIT = 4;
    /** Parked by its LU's queue depth: in the task set, not yet gated (see {@link LunQueueDepth}). */
    public static final int STATE_PARKED = 5;

    private static final int POOL_CAP = 1024;
    private static final FastThreadLocal<ArrayDeque<CommandContext>> POOL = new FastThreadLocal<>() {
        @Override
        protected ArrayDeque<CommandContext> initialValue() {
            return new ArrayDeque<>();
        }
    };

    private final Runnable completion = this::complete;
    private final Runnable asyncCompletion = this::asyncDone;
    private volatile java.io.IOException asyncFailure;
    private final Runnable resume = this::resume;
    private final Runnable unpark = this::unpark;
    private final LbaRangeLock.Holder rangeHolder = new LbaRangeLock.Holder(this::rangeGranted);

    private ScsiCommand cmd;
    private LogicalUnit lu;
    /** The initiator's ACL maps the LU read-only (set with lu by the gate). */
    private boolean readOnlyMapping;
    private OpcodeEntry entry;
    private CommandDispatcher dispatcher;
    private ScsiTargetCore target;

    // parsed CDB fields (meaning per handler)
    private long lba;
    private int blocks;
    private boolean fua;
    private int mode;

    // error to report
    private SenseReason error;
    private long information;
    private int fieldPointer;
    private int bitPointer;
    private boolean fieldInCdb;
    private int specialStatus;
    private boolean exclusiveRange;

    private Runnable detachedStart;
    /** When the command reached the core (System.nanoTime), for its LU's latency statistics. */
    private long arrived;
    private int state;
    private int generation;
    private int taskSlot = -1;
    /** Holds a slot of its LU's queue depth, given back when the command ends. */
    private boolean admittedToLu;
    private List<TmfCompletion> waiters;

    /** Takes a context from this thread's pool. */
    static CommandContext acquire() {
        CommandContext c = POOL.get().pollFirst();
        return c != null ? c : new CommandContext();
    }

    /** Returns this context to the current thread's pool; it must not be used afterwards. */
    void recycle() {
        cmd = null;
        lu = null;
        entry = null;
        dispatcher = null;
        target = null;
        waiters = null;
        taskSlot = -1;
        admittedToLu = false;
        generation++;
        ArrayDeque<CommandContext> pool = POOL.get();
        if (pool.size() < POOL_CAP) {
            pool.addFirst(this);
        }
    }

    void bind(ScsiCommand cmd, CommandDispatcher dispatcher, ScsiTargetCore target) {
        this.cmd = cmd;
        this.dispatcher = dispatcher;
        this.target = target;
        lba = 0;
        blocks = 0;
        fua = false;
        mode = 0;
        error = null;
        information = SenseBuilder.NONE;
        fieldPointer = SenseBuilder.NONE;
        bitPointer = SenseBuilder.NONE;
        fieldInCdb = true;
        specialStatus = 0;
        exclusiveRange = false;
        detachedStart = null;
        arrived = System.nanoTime();
        state = STATE_NEW;
    }

    long arrived() { return arrived; }

    // ---- I/O executor entry: run the handler off the loop, then hop back ----
    @Override
    public void run() {
        dispatcher.executeHandler(this);
        if (!startDetached()) {
            cmd.eventLoop().execute(completion);
        }
    }

    private void complete() {
        dispatcher.finish(this);
    }

    /** A parked command got its LU slot (on the thread that freed it): continue on its event loop. */
    @Override
    public void admitted() {
        cmd.eventLoop().execute(unpark);
    }

    private void unpark() {
        dispatcher.admittedFromPark(this);
    }

    /** Range lock granted (on the releasing thread): continue on this command's event loop. */
    private void rangeGranted() {
        cmd.eventLoop().execute(resume);
    }

    private void resume() {
        dispatcher.resumeAfterRangeLock(this);
    }

    /** This command's node in its LU's {@link LbaRangeLock}. */
    LbaRangeLock.Holder rangeHolder() { return rangeHolder; }

    /**
     * Called by a handler's execute phase that continues asynchronously (EXTENDED COPY: its I/O
     * runs chunk by chunk on the LUs' I/O executors): the dispatcher does not end the command;
     * once it no longer touches this context it runs {@code start}, which must eventually run
     * {@link #completion()} on the command's event loop exactly once (after {@link #fail} if
     * the work failed).
     */
    public void detach(Runnable start) { this.detachedStart = start; }

    /**
     * If the handler detached, runs its continuation and returns true; this context must not be
     * touched afterwards (it may already be ended and recycled).
     */
    boolean startDetached() {
        Runnable s = detachedStart;
        if (s == null) {
            return false;
        }
        detachedStart = null;
        s.run();
        return true;
    }

    /**
     * The end of this command's asynchronous write ({@link org.jtarget.backstore.spi.AsyncWriter}):
     * any thread; the failure, if any, becomes sense on the command's event loop, which then ends it.
     */
    @Override
    public void done(java.io.IOException failure) {
        asyncFailure = failure;
        cmd.eventLoop().execute(asyncCompletion);
    }

    private void asyncDone() {
        java.io.IOException failure = asyncFailure;
        asyncFailure = null;
        if (failure != null) {
            dispatcher.asyncFailed(this, failure);
        }
        complete();
    }

    /** The handler goes on asynchronously and {@link #done} ends the command: nothing to start here. */
    public void detachUntilDone() {
        detach(NOTHING);
    }

    private static final Runnable NOTHING = () -> { };

    /** The Runnable that ends this command on its event loop. */
    public Runnable completion() { return completion; }

    // ---- accessors for handlers ----
    public ScsiCommand cmd() { return cmd; }
    public byte[] cdb() { return cmd.cdb(); }
    public LogicalUnit lu() { return lu; }

    /** The LU this command addresses, and whether the initiator's ACL maps it read-only. */
    void lu(LogicalUnit l, boolean readOnlyMapped) {
        this.lu = l;
        this.readOnlyMapping = readOnlyMapped;
    }

    /**
     * Why this command may not modify the medium, or null: the initiator's read-only mapping
     * (WRITE PROTECTED, as a read-only LU answers), else the LU's own protection.
     */
    public SenseReason writeProtection() {
        if (readOnlyMapping) {
            return SenseReason.WRITE_PROTECTED;
        }
        return lu == null ? null : lu.writeProtection();
    }
    public OpcodeEntry entry() { return entry; }
    void entry(OpcodeEntry e) { this.entry = e; }
    public ScsiTargetCore target() { return target; }

    public long lba() { return lba; }
    public void lba(long v) { this.lba = v; }
    public int blocks() { return blocks; }
    public void blocks(int v) { this.blocks = v; }
    public boolean fua() { return fua; }
    public void fua(boolean v) { this.fua = v; }
    /** A handler-specific small value (BYTCHK, select report...). */
    public int mode() { return mode; }
    public void mode(int v) { this.mode = v; }

    /**
     * Sets parameter data as the command's data-in, cut to the ALLOCATION LENGTH (SPC-4 4.2.5.6:
     * the device returns min(allocation length, available) bytes). Consumes {@code data}.
     */
    public void respond(io.netty.buffer.ByteBuf data, long allocationLength) {
        if (data.readableBytes() > allocationLength) {
            data.writerIndex(data.readerIndex() + (int) allocationLength);
        }
        cmd.dataIn(data);
    }

    /** Rejects with INVALID FIELD IN CDB pointing at {@code byteIndex} (and {@code bit}, or NONE). */
    public SenseReason invalidCdbField(int byteIndex, int bit) {
        fieldPointer = byteIndex;
        bitPointer = bit;
        fieldInCdb = true;
        return SenseReason.INVALID_FIELD_IN_CDB;
    }

    /**
     * Declares the data-out of a command that writes or compares logical blocks: {@code bytes}
     * is what its CDB's transfer length implies. With a shorter expected data transfer length
     * (SPDTL > EDTL) the command is processed normally on the data the initiator sends and no
     * more is requested (FCP-4 9.4.2 choice a, the model iSCSI targets follow; the fabric reports
     * the overflow residual, RFC 7143 11.4.5.2): every byte sent is written or compared, so GOOD
     * is true, and the medium beyond it is left as it was ({@link #blockDataOutBytes()}). When
     * the EDTL ends inside a block, that block is read, modified and written, so the command
     * holds its LBA range exclusively ({@link #exclusiveRange()}) and no other write can slip in
     * between the read and the write. A longer EDTL (underflow) is not an error: the CDB's blocks
     * are transferred. libiscsi's iSCSIResiduals tests check these cases.
     */
    public void blockDataOut(int bytes) {
        cmd.dataOutLength(bytes);
        if (blockDataOutBytes() % lu.blockSize() != 0) {
            exclusiveRange = true;
        }
    }

    /** True if the command must hold its LBA range exclusively whatever its table row says. */
    public boolean exclusiveRange() { return exclusiveRange; }

    /**
     * Like {@link #blockDataOut} for a command that must act on all of its blocks or none (WRITE
     * ATOMIC): any EDTL shorter than the CDB's transfer length is refused before data moves with
     * ILLEGAL REQUEST / INVALID FIELD IN COMMAND INFORMATION UNIT (FCP-4 9.4.2 choice b).
     */
    public SenseReason wholeBlockDataOut(int bytes) {
        cmd.dataOutLength(bytes);
        return cmd.expectedDataTransferLength() < bytes
                ? SenseReason.INVALID_FIELD_IN_COMMAND_INFORMATION_UNIT : null;
    }

    /**
     * The bytes of data-out a block command acts on: the CDB's length, or the expected data
     * transfer length where that is shorter (see {@link #blockDataOut}); may end inside a block.
     */
    public int blockDataOutBytes() {
        return Math.min(cmd.dataOutLength(), Math.max(0, cmd.expectedDataTransferLength()));
    }

    /** Rejects with INVALID FIELD IN PARAMETER LIST pointing at {@code byteIndex}. */
    public SenseReason invalidParameterField(int byteIndex, int bit) {
        fieldPointer = byteIndex;
        bitPointer = bit;
        fieldInCdb = false;
        return SenseReason.INVALID_FIELD_IN_PARAMETER_LIST;
    }

    /** Ends the command with CHECK CONDITION for {@code reason}. */
    public void fail(SenseReason reason) {
        this.error = reason;
    }

    /** Ends the command with CHECK CONDITION for {@code reason} and the INFORMATION field set. */
    public void fail(SenseReason reason, long info) {
        this.error = reason;
        this.information = info;
    }

    /** Ends the command with a status other than CHECK CONDITION (BUSY, TASK SET FULL). */
    void failWithStatus(int status) {
        this.specialStatus = status;
    }

    /**
     * Ends the command with RESERVATION CONFLICT status (SAM-5 5.3.1), no sense data: the
     * reservation checks of RESERVE, RELEASE and PERSISTENT RESERVE OUT (SPC-2, SPC-4 5.13).
     */
    public void reservationConflict() {
        this.specialStatus = org.jtarget.scsi.spi.ScsiStatus.RESERVATION_CONFLICT;
    }

    public SenseReason error() { return error; }
    long information() { return information; }
    int fieldPointer() { return fieldPointer; }
    int bitPointer() { return bitPointer; }
    boolean fieldInCdb() { return fieldInCdb; }
    int specialStatus() { return specialStatus; }

    // ---- task set / task management ----
    public int state() { return state; }
    /** True while the command holds a slot of its LU's queue depth. */
    boolean admittedToLu() { return admittedToLu; }
    void admittedToLu(boolean admitted) { this.admittedToLu = admitted; }
    void state(int s) { this.state = s; }
    public int generation() { return generation; }
    public int taskSlot() { return taskSlot; }
    public void taskSlot(int s) { this.taskSlot = s; }
    public CommandDispatcher dispatcher() { return dispatcher; }

    /** Called under the task set's lock: the command's end must be reported to {@code w}. */
    public void addWaiter(TmfCompletion w) {
        if (waiters == null) {
            waiters = new ArrayList<>(2);
        }
        waiters.add(w);
    }

    /** Called under the task set's lock when the command leaves it. */
    public List<TmfCompletion> takeWaiters() {
        List<TmfCompletion> w = waiters;
        waiters = null;
        return w;
    }
}
