package org.jtarget.scsi.alua;

import org.jtarget.scsi.dispatch.OpcodeEntry;
import org.jtarget.scsi.sense.SenseReason;

/**
 * Asymmetric access states of a target port group (SPC-4 5.15.2.4, codes of table 180 in
 * REPORT TARGET PORT GROUPS). Each state names the {@link OpcodeEntry} flag a command needs to
 * run in it (none in the active states) and the NOT READY reason others are answered with.
 */
public enum AluaState {
    /** 0h: every command, the preferred path (SPC-4 5.15.2.4.2). */
    ACTIVE_OPTIMIZED(0x0, 0, null),
    /** 1h: every command, maybe slower (SPC-4 5.15.2.4.3). */
    ACTIVE_NON_OPTIMIZED(0x1, 0, null),
    /** 2h: only the commands of SPC-4 5.15.2.4.4, others 02/04/0B. */
    STANDBY(0x2, OpcodeEntry.ALUA_STANDBY_BIT, SenseReason.LU_NOT_ACCESSIBLE_TARGET_PORT_IN_STANDBY_STATE),
    /** 3h: only the commands of SPC-4 5.15.2.4.5, others 02/04/0C. */
    UNAVAILABLE(0x3, OpcodeEntry.ALUA_UNAVAILABLE_BIT,
            SenseReason.LU_NOT_ACCESSIBLE_TARGET_PORT_IN_UNAVAILABLE_STATE),
    /**
     * Fh: between two states (SPC-4 5.15.2.5), only the commands of 5.15.2.4.6, others 02/04/0A.
     * Only an implicit change (the management layer) enters it; never SET TARGET PORT GROUPS or
     * the configuration.
     */
    TRANSITIONING(0xF, OpcodeEntry.ALUA_TRANSITIONING_BIT,
            SenseReason.LU_NOT_ACCESSIBLE_ASYMMETRIC_ACCESS_STATE_TRANSITION);

    private final int code;
    private final int requiredFlag;
    private final SenseReason refusal;

    AluaState(int code, int requiredFlag, SenseReason refusal) {
        this.code = code;
        this.requiredFlag = requiredFlag;
        this.refusal = refusal;
    }

    /** The ASYMMETRIC ACCESS STATE code (4 bits). */
    public int code() { return code; }

    /**
     * Null if the command of {@code entry} may run in this state, else the NOT READY reason to
     * answer it with (SPC-4 5.15.2.4). One comparison in the active states (the hot path).
     */
    public SenseReason refusal(OpcodeEntry entry) {
        return requiredFlag == 0 || entry.has(requiredFlag) ? null : refusal;
    }

    /** True for the two active states, where every command runs. */
    public boolean active() { return requiredFlag == 0; }

    /**
     * The state SET TARGET PORT GROUPS may request with {@code code} (SPC-4 6.31: 0h..3h here; LBD,
     * offline and transitioning cannot be requested), or null.
     */
    public static AluaState settable(int code) {
        for (AluaState s : values()) {
            if (s != TRANSITIONING && s.code == code) {
                return s;
            }
        }
        return null;
    }
}
