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
 * no logical unit, SANITIZE IN PROGRESS with the progress indication while a sanitize runs, the
 * medium condition (no medium, offline, sanitize failed), else NO SENSE.
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
        boolean desc = (ctx.cdb()[1] & DESC) != 0;
        int n;
        if (reason == SenseReason.NO_SENSE && ctx.lu() != null && ctx.lu().medium().sanitizing()) {
            // SBC-4 4.11.4 / SPC-4 4.5.2.4.4: sanitize progress in the sense-key specific field
            // (SKSV = 1, PROGRESS INDICATION in bytes 1..2: the field-pointer layout with C/D = 0)
            n = SenseBuilder.build(sense, SenseReason.SANITIZE_IN_PROGRESS, desc, SenseBuilder.NONE,
                    ctx.lu().medium().sanitizeProgress(), SenseBuilder.NONE, false);
        } else {
            if (reason == SenseReason.NO_SENSE && ctx.lu() != null) {
                SenseReason medium = ctx.lu().medium().accessError();
                reason = medium != null ? medium : reason; // SPC-4 6.39: the current condition
            }
            n = SenseBuilder.build(sense, reason, desc);
        }
        ByteBuf b = cmd.alloc().directBuffer(n);
        b.writeBytes(sense, 0, n);
        ctx.respond(b, Cdb.u8(ctx.cdb(), 4));
    }
}
