package org.jtarget.fabric.iscsi.session;

import org.jtarget.buffer.ScatterList;
import org.jtarget.fabric.iscsi.spi.TaskTransfer;
import org.jtarget.io.LunQueueDepth;
import org.jtarget.scsi.spi.ScsiCommand;

/**
 * The fabric side of one SCSI task on a connection: its command, its CmdSN, the Data-Out
 * collection state (RFC 7143 10.7-10.8) and, inherited, what its transport moves
 * ({@link TaskTransfer}). Pooled per connection and reused, so the hot path allocates neither
 * tasks nor commands.
 */
final class IscsiTask extends TaskTransfer implements LunQueueDepth.Waiter {

    /** {@link #lunState}: not counted by a queue depth (no limit on its LU, or not yet asked). */
    static final int LU_NONE = 0;
    /** {@link #lunState}: waiting for a slot of {@link #queueDepth}; not submitted to the core. */
    static final int LU_WAITING = 1;
    /** {@link #lunState}: holds a slot of {@link #queueDepth}, given back when the task ends. */
    static final int LU_ENTERED = 2;

    final ScsiCommand cmd = new ScsiCommand();
    private final Runnable onAdmitted;
    private final Runnable onCancelled;
    private final TaskSequencer sequencer;
    int cmdSn;
    boolean immediate;
    /** Submitted to the core (it will end the task through FabricOps). */
    boolean submitted;

    // ---- data-out ----
    /** Bytes of data-out received so far (immediate + unsolicited + solicited), in order. */
    int received;
    /** The initiator will send no more unsolicited data (F bit seen, or InitialR2T=Yes). */
    boolean unsolicitedDone;
    /** Expected DataSN of the next Data-Out of the current sequence. */
    int expectedDataSn;
    /** The core called writePending. */
    boolean writePending;
    /** dataOutComplete was called. */
    boolean dataOutDone;
    /** Start of the solicited range (bytes received when the unsolicited burst ended). */
    int r2tBase;
    /**
     * A Data-Out of this task was discarded for a data digest error (RFC 7143 7.8): once the
     * outstanding transfers end, the task ends with CHECK CONDITION, PROTOCOL SERVICE CRC ERROR.
     */
    boolean dataDigestError;
    /** This fabric aborted the command to end it with that CHECK CONDITION (not a TMF abort). */
    boolean endWithCrcError;

    // ---- LU queue depth ----
    LunQueueDepth queueDepth;
    int lunState;
    /** The queue's reset generation when this task began to wait. */
    long waitGeneration;
    /** Aborted while waiting but already admitted: drop it (and its slot) when the admission arrives. */
    boolean abortedWhileWaiting;

    /**
     * The list that collects this task's data-out, kept across commands so a WRITE allocates
     * nothing for it (DESIGN 4.2): {@link ScsiCommand#releaseBuffers()} releases the segments,
     * the list object stays.
     */
    final ScatterList dataOutSegments = new ScatterList();

    IscsiTask(TaskSequencer sequencer) {
        this.sequencer = sequencer;
        this.onAdmitted = () -> sequencer.intake().admitted(this);
        this.onCancelled = () -> sequencer.intake().cancelledWhileWaiting(this);
    }

    @Override
    public ScsiCommand command() {
        return cmd;
    }

    @Override
    public void statusSent() {
        sequencer.responses().releaseWindowSlot(this);
    }

    /** Any thread: hand the admission to the session's loop (allocation-free). */
    @Override
    public void admitted() {
        sequencer.sessionLoop().execute(onAdmitted);
    }

    /** Any thread: another nexus cleared the LU's task set while this task waited. */
    @Override
    public void cancelled() {
        sequencer.sessionLoop().execute(onCancelled);
    }

    void reset() {
        cmd.reset();
        resetTransfer();
        cmdSn = 0;
        immediate = false;
        submitted = false;
        received = 0;
        unsolicitedDone = false;
        expectedDataSn = 0;
        writePending = false;
        dataOutDone = false;
        r2tBase = 0;
        dataDigestError = false;
        endWithCrcError = false;
        queueDepth = null;
        lunState = LU_NONE;
        waitGeneration = 0;
        abortedWhileWaiting = false;
    }
}
