package org.jtarget.scsi.sbc;

import io.netty.buffer.ByteBuf;
import org.jtarget.scsi.cdb.Cdb;
import org.jtarget.scsi.dispatch.CommandContext;
import org.jtarget.scsi.dispatch.CommandHandler;
import org.jtarget.scsi.lun.LogicalUnit;
import org.jtarget.scsi.sense.SenseReason;

import java.io.IOException;

/**
 * ORWRITE (16) (SBC-4 5.12): ORs the data-out into the medium, block range by block range, as one
 * read-modify-write. The dispatcher holds the range exclusively in the LU's range lock
 * ({@code RANGE_EXCLUSIVE}), so no other command sees or changes the range in between.
 * <pre>
 * 1 ORPROTECT(7..5) DPO(4) FUA(3) FUA_NV(1) | 2..9 LBA | 10..13 TRANSFER LENGTH | 14 GROUP NUMBER | 15 control
 * </pre>
 * Only ORWRITE(16) exists here; its 32-byte form (with BMOP and PREVIOUS GENERATION PROCESSING,
 * for the generation-based modes) is not in the command table.
 */
public final class SbcOrWrite implements CommandHandler {

    private static final int FLAGS_OFFSET = 1;
    private static final int ORPROTECT_MASK = 0xE0;
    private static final int FUA = 0x08;
    private static final int LENGTH_OFFSET = 10;

    @Override
    public SenseReason parse(CommandContext ctx) {
        byte[] cdb = ctx.cdb();
        if ((cdb[FLAGS_OFFSET] & ORPROTECT_MASK) != 0) {
            // SBC-4 4.22: no protection information, so ORPROTECT must be zero
            return ctx.invalidCdbField(FLAGS_OFFSET, 7);
        }
        long lba = Cdb.u64(cdb, 2);
        long blocks = Cdb.u32(cdb, LENGTH_OFFSET);
        SenseReason bad = SbcLimits.checkTransfer(ctx, lba, blocks, LENGTH_OFFSET);
        if (bad != null) {
            return bad;
        }
        ctx.lba(lba);
        ctx.blocks((int) blocks);
        ctx.fua((cdb[FLAGS_OFFSET] & FUA) != 0);
        if (blocks > 0) {
            ctx.blockDataOut((int) blocks * ctx.lu().blockSize());
        }
        return null;
    }

    @Override
    public void execute(CommandContext ctx) throws IOException {
        ByteBuf data = ctx.cmd().dataOut();
        LogicalUnit lu = ctx.lu();
        int bytes = ctx.blockDataOutBytes();
        if (!SbcReadWrite.dataOutArrived(ctx, data == null ? 0 : data.readableBytes()) || bytes == 0) {
            return;
        }
        int blocks = (bytes + lu.blockSize() - 1) / lu.blockSize(); // the last may be partly sent
        ByteBuf medium = ctx.cmd().alloc().directBuffer(blocks * lu.blockSize());
        try {
            lu.store().read(ctx.lba(), blocks, medium);
            int src = data.readerIndex();
            int i = 0;
            for (; i + Long.BYTES <= bytes; i += Long.BYTES) {
                medium.setLong(i, medium.getLong(i) | data.getLong(src + i));
            }
            for (; i < bytes; i++) { // an EDTL that ends inside a block, off an 8-byte boundary
                medium.setByte(i, medium.getByte(i) | data.getByte(src + i));
            }
            // SBC-4 6.5.5: with WCE=0 every write must reach the medium before status, like FUA
            lu.store().write(ctx.lba(), medium, ctx.fua() || !lu.modes().writeCacheEnabled());
        } finally {
            medium.release();
        }
    }
}
