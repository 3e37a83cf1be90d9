package org.jtarget.scsi.tmf;

import org.jtarget.scsi.lun.LogicalUnit;
import org.jtarget.scsi.lun.ScsiTargetCore;
import org.jtarget.scsi.sense.SenseReason;
import org.jtarget.scsi.spi.ITNexus;
import org.jtarget.scsi.spi.TmfRequest;
import org.jtarget.scsi.spi.TmfRequest.Response;

import java.util.Set;

/**
 * Task management functions (SAM-5 7). Each function marks the affected tasks aborted; the
 * response is queued only after every one of them has ended with {@code abortedTask}
 * (SAM-5 7.1), through {@link TmfCompletion}.
 *
 * <p>ABORT TASK for a tag the core does not hold answers TASK DOES NOT EXIST; RFC 7143 11.6.1's
 * RefCmdSN rule (answer FUNCTION COMPLETE for a command not yet received) is the fabric's job.
 */
public final class TaskManagement {

    private final ScsiTargetCore target;

    public TaskManagement(ScsiTargetCore target) {
        this.target = target;
    }

    /** Runs {@code tmf}; the answer goes to {@code tmf.fabric().queueTmResponse} on its event loop. */
    public void submit(TmfRequest tmf) {
        TmfCompletion completion = new TmfCompletion(tmf);
        switch (tmf.function()) {
            case TARGET_WARM_RESET, TARGET_COLD_RESET -> {
                for (LogicalUnit lu : target.logicalUnits()) {
                    resetLogicalUnit(lu, completion);
                }
            }
            default -> {
                if (supports(tmf.function())) {
                    runOnLogicalUnit(tmf, completion);
                } else {
                    tmf.response(Response.FUNCTION_NOT_SUPPORTED);
                }
            }
        }
        completion.scanDone();
    }

    /**
     * True if this core carries out {@code f} (REPORT SUPPORTED TASK MANAGEMENT FUNCTIONS reports
     * exactly these). CLEAR ACA: NACA is never accepted, so there is no ACA to clear; TASK
     * REASSIGN: connection recovery (ErrorRecoveryLevel 2) is not implemented.
     */
    public static boolean supports(TmfRequest.Function f) {
        return f != TmfRequest.Function.CLEAR_ACA && f != TmfRequest.Function.TASK_REASSIGN;
    }

    private void runOnLogicalUnit(TmfRequest tmf, TmfCompletion completion) {
        LogicalUnit lu = target.lunsOf(tmf.nexus()).get(tmf.lun()); // a LUN masked from the initiator does not exist for it
        if (lu == null) {
            tmf.response(Response.LUN_DOES_NOT_EXIST);
            return;
        }
        ITNexus nexus = tmf.nexus();
        switch (tmf.function()) {
            case ABORT_TASK -> {
                Set<ITNexus> hit = lu.taskSet().abort(nexus, true, tmf.referencedTag(), completion);
                if (hit.isEmpty()) {
                    tmf.response(Response.TASK_DOES_NOT_EXIST);
                }
            }
            case ABORT_TASK_SET -> lu.taskSet().abort(nexus, false, 0, completion);
            case CLEAR_TASK_SET -> {
                Set<ITNexus> hit = lu.taskSet().abort(null, false, 0, completion);
                // SAM-5 7.4 with TAS=0: other nexuses learn their tasks were cleared
                for (ITNexus other : hit) {
                    if (!other.equals(nexus)) {
                        lu.unitAttentions().raise(other, SenseReason.COMMANDS_CLEARED_BY_ANOTHER_INITIATOR);
                    }
                }
            }
            case LOGICAL_UNIT_RESET -> resetLogicalUnit(lu, completion);
            default -> tmf.response(Response.FUNCTION_NOT_SUPPORTED);
        }
    }

    /**
     * SAM-5 6.3.3 logical unit reset: abort every task, return mode parameters to their defaults,
     * release the SPC-2 reservation (SPC-2 5.5.1; persistent reservations stay, SPC-4 5.13.1),
     * clear medium removal prevention (SBC-4 5.15)
     * and raise BUS DEVICE RESET FUNCTION OCCURRED for every I_T nexus.
     */
    private static void resetLogicalUnit(LogicalUnit lu, TmfCompletion completion) {
        lu.taskSet().abort(null, false, 0, completion);
        lu.modes().writeCacheEnabled(lu.modes().defaultWriteCacheEnabled());
        lu.modes().descriptorSense(false);
        lu.reservations().reset();
        lu.medium().reset(); // SBC-4 5.15: a reset ends every medium removal prevention
        lu.unitAttentions().raiseAll(SenseReason.BUS_DEVICE_RESET_FUNCTION_OCCURRED);
    }

    /** The I_T nexus is gone (SAM-5 6.3.4): abort its tasks on every LU; nobody waits for them. */
    public void nexusLost(ITNexus nexus) {
        for (LogicalUnit lu : target.logicalUnits()) {
            lu.taskSet().abort(nexus, false, 0, null);
        }
    }
}
