package org.jtarget.scsi.sbc;

import org.jtarget.scsi.dispatch.CommandContext;
import org.jtarget.scsi.dispatch.CommandHandler;
import org.jtarget.scsi.sense.SenseReason;

/**
 * START STOP UNIT (SBC-4 5.25). The medium is always present and spinning, so START/LOEJ and
 * the power conditions only need validating: 
 * <pre>1 IMMED(0) | 3 POWER CONDITION MODIFIER(3..0) | 4 POWER CONDITION(7..4) NO_FLUSH(2) LOEJ(1) START(0)</pre>
 */
public final class SbcStartStopUnit implements CommandHandler {

    private static final int POWER_CONDITION_OFFSET = 4;

    @Override
    public SenseReason parse(CommandContext ctx) {
        int pc = (ctx.cdb()[POWER_CONDITION_OFFSET] & 0xF0) >> 4;
        // SBC-4 table: 0h START_VALID, 1h ACTIVE, 2h IDLE, 3h STANDBY, 7h LU_CONTROL, Ah/Bh FORCE_*
        if (pc == 4 || pc == 5 || pc == 6 || pc == 8 || pc == 9 || pc > 0xB) {
            return ctx.invalidCdbField(POWER_CONDITION_OFFSET, 7);
        }
        return null;
    }

    @Override
    public void execute(CommandContext ctx) {
        // Nothing to do: memory/file media cannot stop or be ejected (non-removable: just GOOD).
    }
}
