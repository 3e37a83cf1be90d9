package org.jtarget.scsi.sbc;

import org.jtarget.scsi.dispatch.CommandContext;
import org.jtarget.scsi.dispatch.CommandHandler;
import org.jtarget.scsi.sense.SenseReason;

import java.io.IOException;

/**
 * SYNCHRONIZE CACHE (10)/(16) (SBC-4 5.22/5.23): makes cached writes in the range stable.
 * IMMED (byte 1 bit 1) is accepted; status is still sent after the flush, which the standard
 * allows. NUMBER OF LOGICAL BLOCKS 0 means "to the end of the medium".
 */
public final class SbcSynchronizeCache implements CommandHandler {

    private final boolean sixteen;

    public SbcSynchronizeCache(boolean sixteen) {
        this.sixteen = sixteen;
    }

    @Override
    public SenseReason parse(CommandContext ctx) {
        return SbcLimits.parseRange(ctx, sixteen);
    }

    @Override
    public void execute(CommandContext ctx) throws IOException {
        ctx.lu().store().flush(ctx.lba(), ctx.blocks());
    }
}
