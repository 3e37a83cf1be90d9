package org.jtarget.scsi.sbc;

import io.netty.buffer.ByteBuf;
import org.jtarget.scsi.cdb.Cdb;
import org.jtarget.scsi.dispatch.CommandContext;
import org.jtarget.scsi.dispatch.CommandHandler;
import org.jtarget.scsi.sense.SenseReason;

/**
 * READ DEFECT DATA (10) and (12) (SBC-4 5.13, 5.14): memory and file media have no defects, so
 * the answer is the header alone: the lists asked for are valid (PLISTV/GLISTV) and empty, in
 * the format asked for (an empty list has the same form in every format).
 * <pre>
 * (10) CDB: 2 REQ_PLIST(4) REQ_GLIST(3) DEFECT LIST FORMAT(2..0) | 7..8 ALLOCATION LENGTH | 9 control
 *      data: 1 PLISTV(4) GLISTV(3) FORMAT(2..0) | 2..3 DEFECT LIST LENGTH
 * (12) CDB: 1 REQ_PLIST(4) REQ_GLIST(3) FORMAT(2..0) | 2..5 ADDRESS DESCRIPTOR INDEX | 6..9 ALLOCATION LENGTH
 *      data: 1 PLISTV(4) GLISTV(3) FORMAT(2..0) | 2..3 GENERATION CODE | 4..7 DEFECT LIST LENGTH
 * </pre>
 * DEFECT LIST FORMAT 111b is reserved: INVALID FIELD IN CDB.
 */
public final class SbcReadDefectData implements CommandHandler {

    private static final int LISTS_AND_FORMAT = 0x1F;
    private static final int FORMAT_MASK = 0x07;
    private static final int FORMAT_RESERVED = 0x07;

    private final boolean twelve;

    public SbcReadDefectData(boolean twelve) {
        this.twelve = twelve;
    }

    private int flagsOffset() {
        return twelve ? 1 : 2;
    }

    @Override
    public SenseReason parse(CommandContext ctx) {
        int flags = ctx.cdb()[flagsOffset()];
        if ((flags & FORMAT_MASK) == FORMAT_RESERVED) {
            return ctx.invalidCdbField(flagsOffset(), 2);
        }
        ctx.mode(flags & LISTS_AND_FORMAT);
        return null;
    }

    @Override
    public void execute(CommandContext ctx) {
        ByteBuf b = ctx.cmd().alloc().heapBuffer(8);
        b.writeByte(0);
        b.writeByte(ctx.mode()); // PLISTV/GLISTV mirror REQ_PLIST/REQ_GLIST; the requested format
        if (twelve) {
            b.writeShort(0); // GENERATION CODE: the list never changes
            b.writeInt(0);   // DEFECT LIST LENGTH
        } else {
            b.writeShort(0); // DEFECT LIST LENGTH
        }
        long allocation = twelve ? Cdb.u32(ctx.cdb(), 6) : Cdb.u16(ctx.cdb(), 7);
        ctx.respond(b, allocation);
    }
}
