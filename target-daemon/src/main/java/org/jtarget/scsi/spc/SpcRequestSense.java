package org.jtarget.scsi.spc;

import io.netty.buffer.ByteBuf;
import org.jtarget.scsi.cdb.Cdb;
import org.jtarget.scsi.dispatch.CommandContext;
import org.jtarget.scsi.dispatch.CommandHandler;
import org.jtarget.scsi.sense.SenseBuilder;
import org.jtarget.scsi.sense.SenseReason;
import org.jtarget.scsi.spi.ScsiCommand;

/**
 * REQUEST SENSE (SPC-4 6.39): returns, as parameter data with GOOD status, the pending unit
 * attention of this nexus (clearing it, SAM-5 5.14), LOGICAL UNIT NOT SUPPORTED for a LUN with
 * no logical unit, else NO SENSE.
 * <pre>CDB: 1 DESC(0) | 4 ALLOCATION LENGTH | 5 control</pre>
 */
public final class SpcRequestSense implements CommandHandler {

    private static final int DESC = 0x01;

    @Override
    public SenseReason parse(CommandContext ctx) {
        return null;
    }

    @Override
    public void execute(CommandContext ctx) {
        ScsiCommand cmd = ctx.cmd();
        SenseReason reason;
        if (ctx.lu() == null) {
            reason = SenseReason.LOGICAL_UNIT_NOT_SUPPORTED;
        } else {
            SenseReason ua = ctx.lu().unitAttentions().poll(cmd.nexus());
            reason = ua != null ? ua : SenseReason.NO_SENSE;
        }
        byte[] sense = new byte[ScsiCommand.MAX_SENSE_LENGTH];
        int n = SenseBuilder.build(sense, reason, (ctx.cdb()[1] & DESC) != 0);
        ByteBuf b = cmd.alloc().directBuffer(n);
        b.writeBytes(sense, 0, n);
        ctx.respond(b, Cdb.u8(ctx.cdb(), 4));
    }
}
