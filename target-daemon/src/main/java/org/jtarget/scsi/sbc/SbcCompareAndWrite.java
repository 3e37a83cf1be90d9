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
 * COMPARE AND WRITE (SBC-4 5.3): the data-out holds 2n blocks, n of verify data then n of write
 * data. The medium's n blocks are compared with the verify data; only if all are equal is the
 * write data written. The dispatcher holds the range exclusively in the LU's range lock
 * ({@code RANGE_EXCLUSIVE}) for the whole read-compare-write, which runs on the LU's I/O executor
 * (or inline for a non-blocking store), so it is atomic against every command on those LBAs.
 * <pre>
 * 1 WRPROTECT(7..5) DPO(4) FUA(3) FUA_NV(1) | 2..9 LBA | 13 NUMBER OF LOGICAL BLOCKS | 14 GROUP | 15 control
 * </pre>
 * On a mismatch: MISCOMPARE / MISCOMPARE DURING VERIFY OPERATION, INFORMATION = offset of the
 * first differing byte in the data-out, VALID = 1.
 */
public final class SbcCompareAndWrite implements CommandHandler {

    private static final int FLAGS_OFFSET = 1;
    private static final int WRPROTECT_MASK = 0xE0;
    private static final int FUA = 0x08;
    static final int NUMBER_OF_BLOCKS_OFFSET = 13;

    @Override
    public SenseReason parse(CommandContext ctx) {
        byte[] cdb = ctx.cdb();
        if ((cdb[FLAGS_OFFSET] & WRPROTECT_MASK) != 0) {
            return ctx.invalidCdbField(FLAGS_OFFSET, 7); // SBC-4 4.22: no protection information
        }
        long lba = Cdb.u64(cdb, 2);
        int blocks = Cdb.u8(cdb, NUMBER_OF_BLOCKS_OFFSET);
        LogicalUnit lu = ctx.lu();
        if (blocks > SbcLimits.maxCompareAndWriteBlocks(lu)) {
            // SBC-4 5.3: above MAXIMUM COMPARE AND WRITE LENGTH (VPD B0h) is INVALID FIELD IN CDB
            return ctx.invalidCdbField(NUMBER_OF_BLOCKS_OFFSET, SenseBuilder.NONE);
        }
        if (!SbcLimits.inRange(lu, lba, blocks)) {
            return SenseReason.LBA_OUT_OF_RANGE;
        }
        ctx.lba(lba);
        ctx.blocks(blocks);
        ctx.fua((cdb[FLAGS_OFFSET] & FUA) != 0);
        int bytes = 2 * blocks * lu.blockSize();
        if (ctx.cmd().expectedDataTransferLength() != bytes) {
            // The data-out must be exactly verify + write data, else the halves would be misread.
            // Also for zero blocks: data sent with NUMBER OF LOGICAL BLOCKS 0 means the initiator
            // meant a count the one-byte field cannot hold (libiscsi's 256-block case).
            return ctx.invalidCdbField(NUMBER_OF_BLOCKS_OFFSET, SenseBuilder.NONE);
        }
        if (blocks == 0) {
            return null; // SBC-4 5.3: zero blocks is not an error; nothing is compared or written
        }
        ctx.cmd().dataOutLength(bytes);
        return null;
    }

    @Override
    public void execute(CommandContext ctx) throws IOException {
        if (ctx.blocks() == 0) {
            return;
        }
        LogicalUnit lu = ctx.lu();
        int half = ctx.blocks() * lu.blockSize();
        ByteBuf data = ctx.cmd().dataOut();
        if (data == null || data.readableBytes() < 2 * half) {
            ctx.fail(ctx.invalidCdbField(NUMBER_OF_BLOCKS_OFFSET, SenseBuilder.NONE));
            return;
        }
        ByteBuf medium = ctx.cmd().alloc().directBuffer(half);
        try {
            lu.store().read(ctx.lba(), ctx.blocks(), medium);
            int mismatch = SbcReadWrite.firstMismatch(medium, data, data.readerIndex(), half);
            if (mismatch >= 0) {
                ctx.fail(SenseReason.MISCOMPARE_DURING_VERIFY, mismatch);
                return;
            }
        } finally {
            medium.release();
        }
        ByteBuf write = data.slice(data.readerIndex() + half, half);
        // SBC-4 6.5.5: with WCE=0 every write must reach the medium before status, like FUA
        lu.store().write(ctx.lba(), write, ctx.fua() || !lu.modes().writeCacheEnabled());
    }
}
