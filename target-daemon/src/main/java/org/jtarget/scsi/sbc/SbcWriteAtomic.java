package org.jtarget.scsi.sbc;

import io.netty.buffer.ByteBuf;
import org.jtarget.scsi.cdb.Cdb;
import org.jtarget.scsi.dispatch.CommandContext;
import org.jtarget.scsi.dispatch.CommandHandler;
import org.jtarget.scsi.lun.LogicalUnit;
import org.jtarget.scsi.sense.SenseBuilder;
import org.jtarget.scsi.sense.SenseReason;

import java.io.IOException;

/**
 * WRITE ATOMIC (16) (SBC-4 5.46): a WRITE whose blocks are all written or none, never a mix seen
 * by another command. The table row holds the LBA range EXCLUSIVE, so no read or write of an
 * overlapping range runs between the first and last block, and the blocks go to the store in one
 * call; data-out shorter than the transfer writes nothing.
 * <pre>0 9Ch | 1 WRPROTECT(7..5) DPO(4) FUA(3) | 2..9 LBA | 10..11 ATOMIC BOUNDARY | 12..13 TRANSFER LENGTH
 *       | 14 GROUP NUMBER(4..0) | 15 control</pre>
 * Limits (Block Limits VPD, SBC-4 6.6.4, {@link SbcLimits#maxAtomicTransferBlocks}): MAXIMUM
 * ATOMIC TRANSFER LENGTH = the maximum transfer length (at most FFFFh, the field's size), ATOMIC
 * ALIGNMENT and ATOMIC TRANSFER LENGTH GRANULARITY 0 (any LBA, any length), no atomic boundaries
 * (MAXIMUM ATOMIC BOUNDARY SIZE 0), so a non-zero ATOMIC BOUNDARY or a longer transfer is INVALID
 * FIELD IN CDB (SBC-4 5.46). TRANSFER LENGTH 0 writes nothing and is not an error.
 */
public final class SbcWriteAtomic implements CommandHandler {

    private static final int FLAGS_OFFSET = 1;
    private static final int WRPROTECT_MASK = 0xE0;
    private static final int FUA = 0x08;
    private static final int LBA_OFFSET = 2;
    private static final int ATOMIC_BOUNDARY_OFFSET = 10;
    private static final int TRANSFER_LENGTH_OFFSET = 12;

    @Override
    public SenseReason parse(CommandContext ctx) {
        byte[] cdb = ctx.cdb();
        if ((cdb[FLAGS_OFFSET] & WRPROTECT_MASK) != 0) {
            return ctx.invalidCdbField(FLAGS_OFFSET, 7); // SBC-4 4.22: no protection information
        }
        long lba = Cdb.u64(cdb, LBA_OFFSET);
        int blocks = Cdb.u16(cdb, TRANSFER_LENGTH_OFFSET);
        SenseReason bad = SbcLimits.checkTransfer(ctx, lba, blocks, TRANSFER_LENGTH_OFFSET);
        if (bad != null) {
            return bad;
        }
        if (Cdb.u16(cdb, ATOMIC_BOUNDARY_OFFSET) != 0) {
            return ctx.invalidCdbField(ATOMIC_BOUNDARY_OFFSET, SenseBuilder.NONE);
        }
        if (blocks > SbcLimits.maxAtomicTransferBlocks(ctx.lu())) {
            return ctx.invalidCdbField(TRANSFER_LENGTH_OFFSET, SenseBuilder.NONE);
        }
        ctx.lba(lba);
        ctx.blocks(blocks);
        ctx.fua((cdb[FLAGS_OFFSET] & FUA) != 0); // DPO is a cache hint we accept and ignore
        return blocks > 0 ? ctx.wholeBlockDataOut(blocks * ctx.lu().blockSize()) : null;
    }

    @Override
    public void execute(CommandContext ctx) throws IOException {
        if (ctx.blocks() == 0) {
            return;
        }
        LogicalUnit lu = ctx.lu();
        ByteBuf data = ctx.cmd().dataOut();
        int bytes = ctx.blocks() * lu.blockSize();
        if (data == null || data.readableBytes() < bytes) {
            // all or nothing: a partial data-out must not leave a partial write
            ctx.fail(SenseReason.PARAMETER_LIST_LENGTH_ERROR);
            return;
        }
        ByteBuf src = bytes == data.readableBytes() ? data : data.slice(data.readerIndex(), bytes);
        // SBC-4 6.5.5: with WCE=0 every write must reach the medium before status, like FUA
        lu.store().write(ctx.lba(), src, ctx.fua() || !lu.modes().writeCacheEnabled());
    }
}
