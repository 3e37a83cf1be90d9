package org.jtarget.scsi.spc;

import org.jtarget.scsi.dispatch.CommandContext;
import org.jtarget.scsi.dispatch.CommandHandler;
import org.jtarget.scsi.sense.SenseReason;

/** TEST UNIT READY (SPC-4 6.47): the medium is always ready; the gate already reported any UA. */
public final class SpcTestUnitReady implements CommandHandler {

    @Override
    public SenseReason parse(CommandContext ctx) {
        return null;
    }

    @Override
    public void execute(CommandContext ctx) {
        // GOOD
    }
}
