package org.jtarget.scsi.sbc;

import org.jtarget.scsi.cdb.Cdb;
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
        byte[] cdb = ctx.cdb();
        long lba = sixteen ? Cdb.u64(cdb, 2) : Cdb.u32(cdb, 2);
        long blocks = sixteen ? Cdb.u32(cdb, 10) : Cdb.u16(cdb, 7);
        if (!SbcLimits.inRange(ctx.lu(), lba, blocks)) {
            return SenseReason.LBA_OUT_OF_RANGE;
        }
        ctx.lba(lba);
        ctx.blocks((int) Math.min(blocks, Integer.MAX_VALUE));
        return null;
    }

    @Override
    public void execute(CommandContext ctx) throws IOException {
        ctx.lu().store().flush(ctx.lba(), ctx.blocks());
    }
}
