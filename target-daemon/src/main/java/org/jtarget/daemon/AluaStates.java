package org.jtarget.daemon;

import org.jtarget.config.AluaSetting;
import org.jtarget.scsi.alua.AluaState;

/** Maps the config's {@code alua-state:} setting to the SCSI core's asymmetric access state. */
final class AluaStates {

    private AluaStates() {
    }

    /** The state a portal's target port group starts in (a switch, so a new setting cannot go unmapped). */
    static AluaState of(AluaSetting setting) {
        return switch (setting) {
            case ACTIVE_OPTIMIZED -> AluaState.ACTIVE_OPTIMIZED;
            case ACTIVE_NON_OPTIMIZED -> AluaState.ACTIVE_NON_OPTIMIZED;
            case STANDBY -> AluaState.STANDBY;
            case UNAVAILABLE -> AluaState.UNAVAILABLE;
        };
    }
}
