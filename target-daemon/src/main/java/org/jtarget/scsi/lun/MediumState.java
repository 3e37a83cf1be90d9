package org.jtarget.scsi.lun;

import org.jtarget.scsi.sense.SenseReason;
import org.jtarget.scsi.spi.ITNexus;

import java.util.HashSet;
import java.util.Set;

/**
 * The state of a logical unit's medium that decides whether medium-access commands may run:
 * present or ejected (removable LUs, SBC-4 4.15; a virtual LU has no stopped power condition,
 * see SbcStartStopUnit), the per-I_T-nexus medium removal prevention (PREVENT ALLOW MEDIUM REMOVAL, SBC-4 5.15),
 * a sanitize operation in progress or failed (SBC-4 4.11), and offline: the backing store is gone
 * (its file deleted or replaced), which no command can undo.
 *
 * <p>The per-command check ({@link #accessError}) is one volatile read while the medium is ready;
 * changes are control-path events under this object's lock.
 */
public final class MediumState {

    /** 0 while everything is ready: the fast path. */
    private volatile int notReady;
    private static final int EJECTED = 1;
    private static final int SANITIZING = 1 << 2;
    private static final int SANITIZE_FAILED = 1 << 3;
    private static final int OFFLINE = 1 << 4;

    private final Set<ITNexus> preventing = new HashSet<>();
    private volatile int sanitizeProgress;
    private boolean failedRestricted;

    /**
     * Why a command that needs the medium cannot run now, or null. Sanitize comes first (SBC-4
     * 4.11.4: everything but the exempt commands gets SANITIZE IN PROGRESS), then failure mode,
     * then the medium. An offline LU comes before all of them: its medium is gone
     * for good, and no command (START STOP UNIT, SANITIZE) can bring it back.
     */
    public SenseReason accessError() {
        int s = notReady;
        if (s == 0) {
            return null;
        }
        if ((s & OFFLINE) != 0) {
            // SPC-4 4.5.6 table 27: NOT READY, "the logical unit is not accessible; operator
            // intervention may be required"; 04/00 CAUSE NOT REPORTABLE rather than 3A/00 MEDIUM
            // NOT PRESENT, which belongs to removable media (SBC-4 4.15) and makes initiators
            // treat the LU as an empty drive waiting for a medium
            return SenseReason.NOT_READY_CAUSE_NOT_REPORTABLE;
        }
        if ((s & SANITIZING) != 0) {
            return SenseReason.SANITIZE_IN_PROGRESS;
        }
        if ((s & SANITIZE_FAILED) != 0) {
            return SenseReason.SANITIZE_COMMAND_FAILED;
        }
        return SenseReason.MEDIUM_NOT_PRESENT; // EJECTED
    }

    /** True while a sanitize operation runs (only INQUIRY, REPORT LUNS, REQUEST SENSE are served). */
    public boolean sanitizing() {
        return (notReady & SANITIZING) != 0;
    }

    /** True if the medium has been ejected. */
    public boolean ejected() {
        return (notReady & EJECTED) != 0;
    }

    /** True once the backing store is gone ({@link #goOffline}). */
    public boolean offline() {
        return (notReady & OFFLINE) != 0;
    }

    /**
     * The backing store is gone: every medium-access command gets NOT READY from now on.
     *
     * @return true if this call took the LU offline (false if it already was)
     */
    public synchronized boolean goOffline() {
        if (offline()) {
            return false;
        }
        set(OFFLINE, true);
        return true;
    }

    // ---- removal prevention (SBC-4 5.15) ----

    /** PREVENT = 01b from {@code nexus}: removal stays prevented until every nexus allows it. */
    public synchronized void prevent(ITNexus nexus, boolean prevent) {
        if (prevent) {
            preventing.add(nexus);
        } else {
            preventing.remove(nexus);
        }
    }

    /** True if any I_T nexus prevents medium removal. */
    public synchronized boolean removalPrevented() {
        return !preventing.isEmpty();
    }

    /** SBC-4 5.15: an I_T nexus loss clears that nexus's prevention. */
    public synchronized void nexusLost(ITNexus nexus) {
        preventing.remove(nexus);
    }

    /** SBC-4 5.15: a logical unit reset (and hard reset) clears every prevention. */
    public synchronized void reset() {
        preventing.clear();
    }

    // ---- load / eject (SBC-4 5.25) ----

    /** LOEJ = 1, START = 0: unloads the medium (the caller checked prevention). */
    public synchronized void eject() {
        set(EJECTED, true);
    }

    /** LOEJ = 1, START = 1: loads the medium. @return true if it was ejected */
    public synchronized boolean load() {
        boolean was = ejected();
        set(EJECTED, false);
        return was;
    }

    // ---- sanitize (SBC-4 4.11) ----

    /**
     * Enters the sanitize state if none is running.
     *
     * @return false if a sanitize operation is already in progress
     */
    public synchronized boolean beginSanitize() {
        if (sanitizing()) {
            return false;
        }
        sanitizeProgress = 0;
        set(SANITIZING, true);
        return true;
    }

    /** Progress of the running sanitize, 0..65535 (SPC-4 4.5.2.4.4 PROGRESS INDICATION). */
    public int sanitizeProgress() {
        return sanitizeProgress;
    }

    public void sanitizeProgress(long done, long total) {
        sanitizeProgress = total <= 0 ? 0 : (int) Math.min(65535, done * 65536 / total);
    }

    /**
     * Ends the sanitize operation. Success leaves failure mode (SBC-4 4.11.4: any later successful
     * sanitize exits it); failure enters it, restricted when AUSE was 0.
     */
    public synchronized void endSanitize(boolean ok, boolean ause) {
        set(SANITIZING, false);
        set(SANITIZE_FAILED, !ok);
        failedRestricted = !ok && !ause;
    }

    /** True if a failed sanitize with AUSE = 0 holds the LU (only a new sanitize may exit). */
    public synchronized boolean failedRestricted() {
        return (notReady & SANITIZE_FAILED) != 0 && failedRestricted;
    }

    /** EXIT FAILURE MODE (SBC-4 5.30.5): leaves an unrestricted failure mode. */
    public synchronized void exitFailureMode() {
        set(SANITIZE_FAILED, false);
        failedRestricted = false;
    }

    private void set(int bits, boolean on) {
        notReady = on ? notReady | bits : notReady & ~bits;
    }
}
