package org.jtarget.scsi.spc;

import io.netty.buffer.ByteBuf;
import org.jtarget.scsi.cdb.Cdb;
import org.jtarget.scsi.dispatch.CommandContext;
import org.jtarget.scsi.dispatch.CommandHandler;
import org.jtarget.scsi.lun.LogicalUnit;
import org.jtarget.scsi.sense.SenseBuilder;
import org.jtarget.scsi.sense.SenseReason;

/**
 * MODE SENSE (6) and (10) (SPC-4 6.11/6.12).
 * <pre>
 * (6)  CDB: 1 DBD(3) | 2 PC(7..6) PAGE CODE(5..0) | 3 SUBPAGE | 4 ALLOCATION LENGTH
 * (10) CDB: 1 LLBAA(4) DBD(3) | 2 PC/PAGE | 3 SUBPAGE | 7..8 ALLOCATION LENGTH
 * header (6):  0 MODE DATA LENGTH | 1 medium type | 2 WP(7) DPOFUA(4) | 3 BLOCK DESCRIPTOR LENGTH
 * header (10): 0..1 MODE DATA LENGTH | 2 | 3 WP/DPOFUA | 4 LONGLBA(0) | 6..7 BLOCK DESCRIPTOR LENGTH
 * </pre>
 */
public final class SpcModeSense implements CommandHandler {

    private static final int DBD = 0x08;
    private static final int LLBAA = 0x10;
    private static final int WP = 0x80;
    private static final int DPOFUA = 0x10;
    private static final int ALL_SUBPAGES = 0xFF;

    private final boolean ten;

    public SpcModeSense(boolean ten) {
        this.ten = ten;
    }

    @Override
    public SenseReason parse(CommandContext ctx) {
        byte[] cdb = ctx.cdb();
        int pc = (cdb[2] & 0xC0) >> 6;
        int page = cdb[2] & 0x3F;
        int subpage = Cdb.u8(cdb, 3);
        if (pc == ModePages.PC_SAVED) {
            return SenseReason.SAVING_PARAMETERS_NOT_SUPPORTED;
        }
        if (page != ModePages.ALL_PAGES && !ModePages.supports(page)) {
            return ctx.invalidCdbField(2, 5);
        }
        if (subpage != 0 && !(subpage == ALL_SUBPAGES && page == ModePages.ALL_PAGES)) {
            return ctx.invalidCdbField(3, SenseBuilder.NONE); // no subpages implemented
        }
        return null;
    }

    @Override
    public void execute(CommandContext ctx) {
        byte[] cdb = ctx.cdb();
        LogicalUnit lu = ctx.lu();
        int pc = (cdb[2] & 0xC0) >> 6;
        int page = cdb[2] & 0x3F;
        boolean descriptors = (cdb[1] & DBD) == 0;
        boolean longLba = ten && (cdb[1] & LLBAA) != 0;
        int bdLength = !descriptors ? 0 : longLba ? 16 : 8;
        ByteBuf b = ctx.cmd().alloc().directBuffer(256);
        int deviceSpecific = (ctx.writeProtection() != null ? WP : 0) | DPOFUA; // the initiator's view (read-only mapping)
        if (ten) {
            b.writeShort(0).writeByte(0).writeByte(deviceSpecific);
            b.writeByte(longLba ? 1 : 0).writeByte(0).writeShort(bdLength);
        } else {
            b.writeByte(0).writeByte(0).writeByte(deviceSpecific).writeByte(bdLength);
        }
        if (descriptors) {
            writeBlockDescriptor(b, lu, longLba, pc == ModePages.PC_CHANGEABLE);
        }
        for (int code : ModePages.PAGE_CODES) {
            if (page == ModePages.ALL_PAGES || page == code) {
                b.writeBytes(ModePages.page(code, pc, lu));
            }
        }
        if (ten) {
            b.setShort(0, b.writerIndex() - 2);
        } else {
            b.setByte(0, b.writerIndex() - 1);
        }
        ctx.respond(b, ten ? Cdb.u16(cdb, 7) : Cdb.u8(cdb, 4));
    }

    /** SBC-4 6.5.2: short (8-byte) or long LBA (16-byte) block descriptor; nothing changeable. */
    private static void writeBlockDescriptor(ByteBuf b, LogicalUnit lu, boolean longLba, boolean changeable) {
        long blocks = changeable ? 0 : lu.blockCount();
        int blockLength = changeable ? 0 : lu.blockSize();
        if (longLba) {
            b.writeLong(blocks).writeInt(0).writeInt(blockLength);
        } else {
            b.writeInt(blocks > 0xFFFFFFFFL ? 0xFFFFFFFF : (int) blocks);
            b.writeByte(0).writeMedium(blockLength);
        }
    }
}
