package org.jtarget.scsi.sbc;

import org.jtarget.scsi.dispatch.CommandContext;
import org.jtarget.scsi.dispatch.CommandHandler;
import org.jtarget.scsi.lun.LogicalUnit;
import org.jtarget.scsi.lun.MediumState;
import org.jtarget.scsi.sense.SenseReason;

import java.io.IOException;

/**
 * START STOP UNIT (SBC-4 5.25):
 * <pre>1 IMMED(0) | 3 POWER CONDITION MODIFIER(3..0) | 4 POWER CONDITION(7..4) NO_FLUSH(2) LOEJ(1) START(0)</pre>
 * With POWER CONDITION 0h (START_VALID):
 * <ul>
 * <li>LOEJ = 1 on a removable LU unloads (START = 0) or loads (START = 1) the medium; while any
 *     I_T nexus prevents removal (SBC-4 5.15) both are refused with MEDIUM REMOVAL PREVENTED
 *     (libiscsi PreventAllow.Simple checks the load too). LOEJ = 1 on a non-removable LU is
 *     INVALID FIELD IN CDB: there is no medium to unload (RMB = 0).</li>
 * <li>LOEJ = 0: START = 0 stops the LU (medium access then gets NOT READY, INITIALIZING COMMAND
 *     REQUIRED, SBC-4 4.20), START = 1 makes it active again.</li>
 * <li>Stopping or unloading with NO_FLUSH = 0 first writes the cache to the medium.</li>
 * </ul>
 * Other power conditions only change the (emulated, instant) power state: nothing to do.
 * Loading raises NOT READY TO READY CHANGE for the other I_T nexuses (SPC-4 table D.1).
 * IMMED does not matter: every transition is instant.
 */
public final class SbcStartStopUnit implements CommandHandler {

    private static final int POWER_CONDITION_OFFSET = 4;
    private static final int NO_FLUSH = 0x04;
    private static final int LOEJ = 0x02;
    private static final int START = 0x01;

    @Override
    public SenseReason parse(CommandContext ctx) {
        int b4 = ctx.cdb()[POWER_CONDITION_OFFSET];
        int pc = (b4 & 0xF0) >> 4;
        // SBC-4 table: 0h START_VALID, 1h ACTIVE, 2h IDLE, 3h STANDBY, 7h LU_CONTROL, Ah/Bh FORCE_*
        if (pc == 4 || pc == 5 || pc == 6 || pc == 8 || pc == 9 || pc > 0xB) {
            return ctx.invalidCdbField(POWER_CONDITION_OFFSET, 7);
        }
        if (pc == 0 && (b4 & LOEJ) != 0) {
            if (!ctx.lu().removable()) {
                return ctx.invalidCdbField(POWER_CONDITION_OFFSET, 1);
            }
            if (ctx.lu().medium().removalPrevented()) {
                return SenseReason.MEDIUM_REMOVAL_PREVENTED;
            }
        }
        ctx.mode(pc == 0 ? b4 & (NO_FLUSH | LOEJ | START) : -1);
        return null;
    }

    @Override
    public void execute(CommandContext ctx) throws IOException {
        int bits = ctx.mode();
        if (bits < 0) {
            return; // a power condition: nothing to emulate
        }
        LogicalUnit lu = ctx.lu();
        MediumState medium = lu.medium();
        boolean start = (bits & START) != 0;
        if (!start && (bits & NO_FLUSH) == 0 && !medium.ejected()) {
            lu.store().flush(0, 0);
        }
        if ((bits & LOEJ) == 0) {
            medium.started(start);
        } else if (!start) {
            medium.eject();
        } else if (medium.load()) {
            lu.unitAttentions().raiseAllExcept(ctx.cmd().nexus(), SenseReason.NOT_READY_TO_READY_CHANGE);
        }
    }
}
