package org.jtarget.scsi.sbc;

import io.netty.buffer.ByteBuf;
import org.jtarget.scsi.cdb.Cdb;
import org.jtarget.scsi.dispatch.CommandContext;
import org.jtarget.scsi.dispatch.CommandHandler;
import org.jtarget.scsi.lun.LogicalUnit;
import org.jtarget.scsi.sense.SenseBuilder;
import org.jtarget.scsi.sense.SenseReason;

/**
 * READ CAPACITY (10) (SBC-4 5.19) and READ CAPACITY (16) (SBC-4 5.20, SERVICE ACTION IN(16)
 * service action 10h).
 *
 * <pre>
 * (10) CDB: 2..5 LBA (obsolete, must be 0) | 8 PMI (bit 0, obsolete)   data: 0..3 last LBA | 4..7 block length
 * (16) CDB: 10..13 ALLOCATION LENGTH        data: 0..7 last LBA | 8..11 block length | 12 P_TYPE/PROT_EN
 *                                                  13 exponents | 14..15 LBPME(15)/LBPRZ(14)/LALBA
 * </pre>
 */
public final class SbcReadCapacity implements CommandHandler {

    static final int RC16_DATA_LENGTH = 32;
    private static final int LBPME = 0x8000;
    private static final int LBPRZ = 0x4000;
    private final boolean sixteen;

    public SbcReadCapacity(boolean sixteen) {
        this.sixteen = sixteen;
    }

    @Override
    public SenseReason parse(CommandContext ctx) {
        byte[] cdb = ctx.cdb();
        if (!sixteen) {
            // SBC-4 5.19: LOGICAL BLOCK ADDRESS must be zero (PMI is obsolete)
            if (Cdb.u32(cdb, 2) != 0) {
                return ctx.invalidCdbField(2, SenseBuilder.NONE);
            }
            if ((cdb[8] & 0x01) != 0) {
                return ctx.invalidCdbField(8, 0);
            }
        } else {
            ctx.lba(Cdb.u32(cdb, 10)); // allocation length
        }
        return null;
    }

    @Override
    public void execute(CommandContext ctx) {
        LogicalUnit lu = ctx.lu();
        long last = lu.blockCount() - 1;
        if (!sixteen) {
            ByteBuf b = ctx.cmd().alloc().directBuffer(8);
            // SBC-4 5.19: FFFFFFFFh tells the initiator to use READ CAPACITY (16)
            b.writeInt(last > 0xFFFFFFFEL ? 0xFFFFFFFF : (int) last);
            b.writeInt(lu.blockSize());
            ctx.cmd().dataIn(b);
            return;
        }
        ByteBuf b = ctx.cmd().alloc().directBuffer(RC16_DATA_LENGTH);
        b.writeLong(last);
        b.writeInt(lu.blockSize());
        b.writeByte(0); // no protection information
        // LOGICAL BLOCKS PER PHYSICAL BLOCK EXPONENT (bits 3..0): 512e devices report 3
        b.writeByte(lu.info().logicalBlocksPerPhysicalBlockExponent() & 0x0F);
        // SBC-4 5.20.2: LBPME(15) = thin with UNMAP, LBPRZ(14) = deallocated blocks read as zeros;
        // LOWEST ALIGNED LOGICAL BLOCK ADDRESS 0
        b.writeShort((SbcProvisioning.lbpme(lu) ? LBPME : 0) | (SbcProvisioning.lbprz(lu) ? LBPRZ : 0));
        b.writeZero(RC16_DATA_LENGTH - b.writerIndex());
        ctx.respond(b, ctx.lba());
    }
}
