package org.jtarget.fabric.iscsi.session;

import org.jtarget.buffer.ScatterList;
import org.jtarget.fabric.iscsi.spi.TaskTransfer;
import org.jtarget.scsi.spi.ScsiCommand;

/**
 * The fabric side of one SCSI task on a connection: its command, its CmdSN, the Data-Out
 * collection state (RFC 7143 10.7-10.8) and, inherited, what its transport moves
 * ({@link TaskTransfer}). Pooled per connection and reused, so the hot path allocates neither
 * tasks nor commands.
 */
final class IscsiTask extends TaskTransfer {

    final ScsiCommand cmd = new ScsiCommand();
    private final TaskSequencer sequencer;
    int cmdSn;
    boolean immediate;

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
    /**
     * A Data-Out of this task was discarded for a data digest error (RFC 7143 7.8): once the
     * outstanding transfers end, the task ends with CHECK CONDITION, PROTOCOL SERVICE CRC ERROR.
     */
    boolean dataDigestError;
    /** This fabric aborted the command to end it with that CHECK CONDITION (not a TMF abort). */
    boolean endWithCrcError;

    // ---- parked by the core (LU queue depth) ----
    /** Parked by the core, holding the session's window (CommandIntake.parked). */
    boolean parked;
    /** Aborted while parked: once it ended, announce MaxCmdSN if it moved from {@link #announceWindowFrom}. */
    boolean announceWindowAtEnd;
    int announceWindowFrom;

    /**
     * The list that collects this task's data-out, kept across commands so a WRITE allocates
     * nothing for it (DESIGN 4.2): {@link ScsiCommand#releaseBuffers()} releases the segments,
     * the list object stays.
     */
    final ScatterList dataOutSegments = new ScatterList();

    IscsiTask(TaskSequencer sequencer) {
        this.sequencer = sequencer;
    }

    @Override
    public ScsiCommand command() {
        return cmd;
    }

    @Override
    public void statusSent() {
        sequencer.responses().releaseWindowSlot(this);
    }

    void reset() {
        cmd.reset();
        resetTransfer();
        cmdSn = 0;
        immediate = false;
        received = 0;
        unsolicitedDone = false;
        expectedDataSn = 0;
        writePending = false;
        dataOutDone = false;
        dataDigestError = false;
        endWithCrcError = false;
        parked = false;
        announceWindowAtEnd = false;
        announceWindowFrom = 0;
    }
}
