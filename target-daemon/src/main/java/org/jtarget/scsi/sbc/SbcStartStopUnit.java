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
 * <li>Stopping or unloading with NO_FLUSH = 0 first writes the cache to the medium, so that an
 *     initiator that stops a unit before powering down loses nothing.</li>
 * </ul>
 * <b>A virtual LU has no spindle and one power condition: active.</b> START = 0 with LOEJ = 0
 * flushes (as above) and leaves the LU ready; any other POWER CONDITION value is accepted and
 * changes nothing. This is a deliberate choice, made with SBC-4 4.20 in hand: a stopped power
 * condition would let one initiator of a shared LU make it NOT READY (INITIALIZING COMMAND
 * REQUIRED) for every other initiator and multipath path, for no benefit, and libiscsi's suite
 * (StartStopUnit.NoLoej, StartStopUnit.PwrCnd) and tgt expect exactly this: GOOD, and TEST UNIT
 * READY still GOOD afterwards, for every POWER CONDITION value 1h..Fh. The one departure from
 * the letter of SPC-4 is that reserved POWER CONDITION values (4h, 6h, 8h, 9h, Ch..Fh) are
 * accepted as no-ops instead of INVALID FIELD IN CDB.
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
            return; // a power condition: the LU is always active
        }
        LogicalUnit lu = ctx.lu();
        MediumState medium = lu.medium();
        boolean start = (bits & START) != 0;
        if (!start && (bits & NO_FLUSH) == 0 && !medium.ejected()) {
            lu.store().flush(0, 0);
        }
        if ((bits & LOEJ) == 0) {
            return; // START = 0 / 1 without LOEJ: the LU stays ready (see the class comment)
        }
        if (!start) {
            medium.eject();
        } else if (medium.load()) {
            lu.unitAttentions().raiseAllExcept(ctx.cmd().nexus(), SenseReason.NOT_READY_TO_READY_CHANGE);
        }
    }
}
