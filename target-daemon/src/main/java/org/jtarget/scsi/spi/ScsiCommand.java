package org.jtarget.scsi.spi;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.concurrent.EventExecutor;
import org.jtarget.buffer.ScatterList;

/**
 * One SCSI command (a task, SAM-5 4.6) on its way through the core. Reusable: a fabric may pool
 * these per connection and {@link #reset()} them, so the hot path allocates no command objects.
 *
 * <p>Field ownership: the fabric fills the "request" fields before {@link TargetCore#submit};
 * the core fills the "response" fields before it calls back through {@link FabricOps}.
 * Buffers: the data-out segments ({@link #dataOutSegments()}) and {@link #dataIn()} are owned by
 * the command; whoever ends the command (the fabric, after the final {@link FabricOps} call)
 * releases them via {@link #releaseBuffers()}.
 */
public final class ScsiCommand {

    /** SPC-4 4.3.4: the largest CDB (variable length, 260 bytes). */
    public static final int MAX_CDB_LENGTH = 260;
    /** SPC-4 4.5.1: sense data is at most 252 bytes. */
    public static final int MAX_SENSE_LENGTH = 252;

    // ---- request: filled by the fabric ----
    private final byte[] cdb = new byte[MAX_CDB_LENGTH];
    private int cdbLength;
    private int lun;
    private long tag;
    private TaskAttribute taskAttribute = TaskAttribute.SIMPLE;
    private DataDirection direction = DataDirection.NONE;
    private int expectedDataTransferLength;
    private ITNexus nexus;
    private FabricOps fabric;
    private EventExecutor eventLoop;
    private ByteBufAllocator alloc;
    private Object fabricContext;
    private ScatterList dataOut;
    private volatile boolean aborted;

    // ---- response: filled by the core ----
    private int dataOutLength;
    private ByteBuf dataIn;
    private int status = ScsiStatus.GOOD;
    private final byte[] sense = new byte[MAX_SENSE_LENGTH];
    private int senseLength;

    // ---- core-private execution state ----
    private Object coreContext;

    /** Clears every field so the command can be reused; buffers must have been released. */
    public void reset() {
        cdbLength = 0;
        lun = 0;
        tag = 0;
        taskAttribute = TaskAttribute.SIMPLE;
        direction = DataDirection.NONE;
        expectedDataTransferLength = 0;
        nexus = null;
        fabric = null;
        eventLoop = null;
        alloc = null;
        fabricContext = null;
        dataOut = null;
        aborted = false;
        dataOutLength = 0;
        dataIn = null;
        status = ScsiStatus.GOOD;
        senseLength = 0;
        coreContext = null;
    }

    /** Releases dataIn and dataOut if present (idempotent). */
    public void releaseBuffers() {
        if (dataIn != null) {
            dataIn.release();
            dataIn = null;
        }
        if (dataOut != null) {
            dataOut.clear(); // the list object is the fabric's and is reused; its segments are ours
            dataOut = null;
        }
    }

    /** Copies the CDB bytes (consumes nothing). */
    public void cdb(byte[] src, int offset, int length) {
        System.arraycopy(src, offset, cdb, 0, length);
        cdbLength = length;
    }

    /**
     * Copies {@code length} CDB bytes from {@code src} at {@code index} (borrows src). Eight bytes
     * at a time with {@code getLong}, not {@code getBytes(int, byte[], ...)}: without
     * {@code sun.misc.Unsafe} a pooled direct buffer copies to an array through an NIO view, and a
     * header buffer that has none yet (a recycled one whose view was dropped) makes a new one,
     * ~70 bytes per command.
     */
    public void cdb(ByteBuf src, int index, int length) {
        int i = 0;
        for (; i + Long.BYTES <= length; i += Long.BYTES) {
            long v = src.getLong(index + i);
            for (int b = 0; b < Long.BYTES; b++) {
                cdb[i + b] = (byte) (v >>> (56 - 8 * b));
            }
        }
        for (; i < length; i++) {
            cdb[i] = src.getByte(index + i);
        }
        cdbLength = length;
    }

    /** The CDB array: valid bytes are [0, cdbLength); do not keep a reference across commands. */
    public byte[] cdb() { return cdb; }
    public int cdbLength() { return cdbLength; }
    public int opcode() { return cdb[0] & 0xff; }

    public int lun() { return lun; }
    public void lun(int lun) { this.lun = lun; }
    /** The initiator's task tag (iSCSI Initiator Task Tag). */
    public long tag() { return tag; }
    public void tag(long tag) { this.tag = tag; }
    public TaskAttribute taskAttribute() { return taskAttribute; }
    public void taskAttribute(TaskAttribute a) { this.taskAttribute = a; }
    public DataDirection direction() { return direction; }
    public void direction(DataDirection d) { this.direction = d; }
    /** The fabric's Expected Data Transfer Length in bytes. */
    public int expectedDataTransferLength() { return expectedDataTransferLength; }
    public void expectedDataTransferLength(int n) { this.expectedDataTransferLength = n; }
    public ITNexus nexus() { return nexus; }
    public void nexus(ITNexus n) { this.nexus = n; }
    public FabricOps fabric() { return fabric; }
    public void fabric(FabricOps f) { this.fabric = f; }
    /** The event loop every {@link FabricOps} call for this command runs on. */
    public EventExecutor eventLoop() { return eventLoop; }
    public void eventLoop(EventExecutor e) { this.eventLoop = e; }
    /** The pooled allocator to take data-in buffers from (the fabric's channel allocator). */
    public ByteBufAllocator alloc() { return alloc; }
    public void alloc(ByteBufAllocator a) { this.alloc = a; }
    public Object fabricContext() { return fabricContext; }
    public void fabricContext(Object c) { this.fabricContext = c; }

    /**
     * Data-out collected so far (immediate data, then Data-Out payloads) as one buffer, for the
     * paths that parse or compare it; null if the command has no data-out list. Borrowed: valid
     * until {@link #releaseBuffers()}; do not release it. WRITE moves
     * {@link #dataOutSegments()} to the store instead (no view, no copy).
     */
    public ByteBuf dataOut() { return dataOut == null ? null : dataOut.asByteBuf(); }
    /** The data-out segments as they arrived (the fabric's receive buffers); may be null. */
    public ScatterList dataOutSegments() { return dataOut; }
    /**
     * Sets the list that collects data-out. The command releases its segments in
     * {@link #releaseBuffers()} and leaves the list object to its owner (the fabric) for reuse.
     */
    public void dataOut(ScatterList segments) { this.dataOut = segments; }

    /** True once the task was aborted: the core then ends it with {@link FabricOps#abortedTask}. */
    public boolean isAborted() { return aborted; }
    public void markAborted() { this.aborted = true; }

    /**
     * Bytes of data-out the CDB implies (its transfer length in bytes), set by the core before
     * {@link FabricOps#writePending}. The fabric transfers min(expected data transfer length,
     * dataOutLength) bytes and reports the difference as a residual (overflow if the CDB wants
     * more than the EDTL, underflow if less); the core then uses only the whole blocks that
     * arrived (libiscsi's iSCSIResiduals tests check exactly this).
     */
    public int dataOutLength() { return dataOutLength; }
    public void dataOutLength(int n) { this.dataOutLength = n; }

    /** Data-in to send, readable bytes only; the command owns it. May be null. */
    public ByteBuf dataIn() { return dataIn; }
    /** Sets the data-in buffer; the command takes ownership (a previous one is released). */
    public void dataIn(ByteBuf b) {
        if (dataIn != null && dataIn != b) {
            dataIn.release();
        }
        this.dataIn = b;
    }

    public int status() { return status; }
    public void status(int s) { this.status = s; }
    /** Sense data array: valid bytes are [0, senseLength). */
    public byte[] sense() { return sense; }
    public int senseLength() { return senseLength; }
    public void senseLength(int n) { this.senseLength = n; }

    /** Sets CHECK CONDITION with the given sense bytes (copied). */
    public void checkCondition(byte[] senseBytes, int length) {
        status = ScsiStatus.CHECK_CONDITION;
        int n = Math.min(length, MAX_SENSE_LENGTH);
        System.arraycopy(senseBytes, 0, sense, 0, n);
        senseLength = n;
    }

    /** The core's own per-command state (parsed CDB, logical unit...). Fabrics do not touch it. */
    public Object coreContext() { return coreContext; }
    public void coreContext(Object c) { this.coreContext = c; }
}
