package org.jtarget.scsi.sbc;

import org.jtarget.scsi.dispatch.CommandContext;
import org.jtarget.scsi.dispatch.CommandHandler;
import org.jtarget.scsi.sense.SenseReason;

/**
 * PREVENT ALLOW MEDIUM REMOVAL (SBC-4 5.15):
 * <pre>0 1Eh | 1..3 reserved | 4 PREVENT(1..0) | 5 control</pre>
 * PREVENT 00b allows and 01b prevents removal for the sending I_T nexus; removal stays prevented
 * while any nexus prevents it, and a nexus's prevention ends with its I_T nexus loss, a logical
 * unit reset or a hard reset ({@link org.jtarget.scsi.lun.MediumState}). 10b and 11b are obsolete:
 * INVALID FIELD IN CDB. On a non-removable LU (RMB = 0) there is nothing to prevent, so 01b is
 * INVALID FIELD IN CDB and 00b a no-op.
 */
public final class SbcPreventAllowMediumRemoval implements CommandHandler {

    private static final int PREVENT_OFFSET = 4;

    @Override
    public SenseReason parse(CommandContext ctx) {
        int prevent = ctx.cdb()[PREVENT_OFFSET] & 0x03;
        if (prevent > 1 || prevent == 1 && !ctx.lu().removable()) {
            return ctx.invalidCdbField(PREVENT_OFFSET, prevent > 1 ? 1 : 0);
        }
        ctx.mode(prevent);
        return null;
    }

    @Override
    public void execute(CommandContext ctx) {
        ctx.lu().medium().prevent(ctx.cmd().nexus(), ctx.mode() == 1);
    }
}
