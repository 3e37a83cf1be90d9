package org.jtarget.scsi.spc;

import io.netty.buffer.ByteBuf;
import org.jtarget.scsi.cdb.Cdb;
import org.jtarget.scsi.dispatch.CommandContext;
import org.jtarget.scsi.dispatch.CommandHandler;
import org.jtarget.scsi.spi.LunAddress;
import org.jtarget.scsi.sense.SenseBuilder;
import org.jtarget.scsi.sense.SenseReason;

/**
 * REPORT LUNS (SPC-4 6.33): allowed on any LUN, exempt from unit attentions.
 * <pre>CDB: 2 SELECT REPORT | 6..9 ALLOCATION LENGTH | 11 control
 * data: 0..3 LUN LIST LENGTH | 4..7 reserved | 8.. one 8-byte LUN each</pre>
 */
public final class SpcReportLuns implements CommandHandler {

    private static final int SELECT_REPORT_OFFSET = 2;
    private static final int ALLOCATION_LENGTH_OFFSET = 6;
    private static final int MIN_ALLOCATION_LENGTH = 16;

    @Override
    public SenseReason parse(CommandContext ctx) {
        int select = Cdb.u8(ctx.cdb(), SELECT_REPORT_OFFSET);
        // 00h all LUs, 01h well-known LUs only (we have none), 02h all
        if (select > 2) {
            return ctx.invalidCdbField(SELECT_REPORT_OFFSET, SenseBuilder.NONE);
        }
        long alloc = Cdb.u32(ctx.cdb(), ALLOCATION_LENGTH_OFFSET);
        if (alloc < MIN_ALLOCATION_LENGTH) {
            // SPC-4 6.33: an ALLOCATION LENGTH below 16 is INVALID FIELD IN CDB
            return ctx.invalidCdbField(ALLOCATION_LENGTH_OFFSET, SenseBuilder.NONE);
        }
        ctx.lba(alloc);
        ctx.mode(select);
        return null;
    }

    @Override
    public void execute(CommandContext ctx) {
        // the LUNs this initiator's ACL entry maps (every LUN when it maps none)
        int[] luns = ctx.mode() == 1 ? new int[0] : ctx.target().lunsOf(ctx.cmd().nexus()).lunNumbers();
        ByteBuf b = ctx.cmd().alloc().directBuffer(8 + 8 * luns.length);
        b.writeInt(8 * luns.length);
        b.writeInt(0);
        for (int lun : luns) {
            b.writeLong(LunAddress.encode(lun));
        }
        ctx.respond(b, ctx.lba());
    }
}
