package org.jtarget.scsi.sbc;

import io.netty.buffer.ByteBuf;
import org.jtarget.buffer.ByteBufCopy;
import org.jtarget.scsi.cdb.Cdb;
import org.jtarget.scsi.dispatch.CommandContext;
import org.jtarget.scsi.dispatch.CommandHandler;
import org.jtarget.scsi.lun.LogicalUnit;
import org.jtarget.scsi.sense.SenseBuilder;
import org.jtarget.scsi.sense.SenseReason;

import java.io.IOException;

/**
 * WRITE SAME (10) and (16) (SBC-4 5.48, 5.49): writes one block of data-out to every block of a
 * range, or deallocates the range (UNMAP bit).
 * <pre>
 * (10): 1 WRPROTECT(7..5) ANCHOR(4) UNMAP(3) PBDATA(2) LBDATA(1) | 2..5 LBA | 6 GROUP | 7..8 NUMBER OF BLOCKS | 9 control
 * (16): 1 WRPROTECT(7..5) ANCHOR(4) UNMAP(3) PBDATA(2) LBDATA(1) NDOB(0) | 2..9 LBA | 10..13 NUMBER OF BLOCKS
 *       | 14 GROUP | 15 control
 * </pre>
 * <ul>
 * <li>NUMBER OF BLOCKS 0 means through the last LBA (WSNZ = 0 in the Block Limits VPD page); more
 *     than MAXIMUM WRITE SAME LENGTH is INVALID FIELD IN CDB, checked after the LBA range so that
 *     a range past the capacity is LBA OUT OF RANGE first.</li>
 * <li>UNMAP = 1 on a thin LU deallocates the range whatever the data-out holds (SBC-4 table
 *     "ANCHOR bit, UNMAP bit, and ANC_SUP bit relationships", footnote e: a thin LU should
 *     deallocate each LBA); the blocks then read as zeros (LBPRZ = 1), which libiscsi's
 *     WriteSame*.UnmapUntilEnd checks after sending 0xFF data. On a fully provisioned LU
 *     (LBPWS = 0) it is INVALID FIELD IN CDB, so that WRITE SAME availability matches the VPD
 *     page.</li>
 * <li>ANCHOR = 1 is INVALID FIELD IN CDB (SBC-4 table "ANCHOR, UNMAP and ANC_SUP": ANC_SUP = 0);
 *     PBDATA/LBDATA (obsolete in SBC-4) and WRPROTECT (no protection information) likewise.</li>
 * <li>NDOB = 1 (16 only): no data-out, the block is zeros.</li>
 * </ul>
 * The pattern is repeated into one buffer of at most {@link #PATTERN_BUFFER_BYTES} and written
 * from it slice after slice.
 */
public final class SbcWriteSame implements CommandHandler {

    static final int PATTERN_BUFFER_BYTES = 1024 * 1024;
    private static final int FLAGS_OFFSET = 1;
    private static final int WRPROTECT_MASK = 0xE0;
    private static final int ANCHOR = 0x10;
    private static final int UNMAP = 0x08;
    private static final int PBDATA_LBDATA = 0x06;
    private static final int NDOB = 0x01;
    /** {@link CommandContext#mode()} bits: deallocate if the pattern allows, no data-out. */
    private static final int MODE_UNMAP = 1;
    private static final int MODE_NDOB = 2;

    private final boolean sixteen;

    public SbcWriteSame(boolean sixteen) {
        this.sixteen = sixteen;
    }

    @Override
    public SenseReason parse(CommandContext ctx) {
        byte[] cdb = ctx.cdb();
        SenseReason bad = parseFlags(ctx, cdb[FLAGS_OFFSET]);
        if (bad != null) {
            return bad;
        }
        LogicalUnit lu = ctx.lu();
        long lba = sixteen ? Cdb.u64(cdb, 2) : Cdb.u32(cdb, 2);
        int lengthOffset = sixteen ? 10 : 7;
        long blocks = sixteen ? Cdb.u32(cdb, lengthOffset) : Cdb.u16(cdb, lengthOffset);
        if (!SbcLimits.inRange(lu, lba, blocks)) {
            return SenseReason.LBA_OUT_OF_RANGE;
        }
        if (blocks == 0) {
            blocks = lu.blockCount() - lba; // SBC-4 5.48: 0 = through the last LBA (WSNZ = 0)
        }
        if (blocks > SbcProvisioning.maxWriteSameBlocks(lu)) {
            return ctx.invalidCdbField(lengthOffset, SenseBuilder.NONE); // SBC-4 6.6.4 MAXIMUM WRITE SAME LENGTH
        }
        ctx.lba(lba);
        ctx.blocks((int) blocks);
        if (blocks > 0 && (ctx.mode() & MODE_NDOB) == 0) {
            if (ctx.cmd().expectedDataTransferLength() != lu.blockSize()) {
                // SBC-4 5.48: the data-out is exactly one logical block; a shorter or longer
                // buffer means the initiator and the device disagree on the block size. On a
                // write-protected LU the protection is what the initiator must hear: the data
                // would never be used (libiscsi ReadOnly.ReadOnlySBC sends no data-out)
                SenseReason protection = ctx.writeProtection();
                return protection != null ? protection : ctx.invalidCdbField(lengthOffset, SenseBuilder.NONE);
            }
            ctx.cmd().dataOutLength(lu.blockSize());
        }
        return null;
    }

    private SenseReason parseFlags(CommandContext ctx, byte flags) {
        if ((flags & WRPROTECT_MASK) != 0) {
            return ctx.invalidCdbField(FLAGS_OFFSET, 7); // SBC-4 4.22: no protection information
        }
        if ((flags & ANCHOR) != 0) {
            return ctx.invalidCdbField(FLAGS_OFFSET, 4); // ANC_SUP = 0: nothing is ever anchored
        }
        if ((flags & PBDATA_LBDATA) != 0) {
            return ctx.invalidCdbField(FLAGS_OFFSET, (flags & 0x04) != 0 ? 2 : 1); // obsolete in SBC-4
        }
        if (!sixteen && (flags & NDOB) != 0) {
            return ctx.invalidCdbField(FLAGS_OFFSET, 0); // bit 0 is obsolete in WRITE SAME (10)
        }
        boolean unmap = (flags & UNMAP) != 0;
        if (unmap && !SbcProvisioning.lbpme(ctx.lu())) {
            return ctx.invalidCdbField(FLAGS_OFFSET, 3); // LBPWS/LBPWS10 = 0 on a fully provisioned LU
        }
        ctx.mode((unmap ? MODE_UNMAP : 0) | ((flags & NDOB) != 0 ? MODE_NDOB : 0));
        return null;
    }

    @Override
    public void execute(CommandContext ctx) throws IOException {
        if (ctx.blocks() == 0) {
            return;
        }
        LogicalUnit lu = ctx.lu();
        int bs = lu.blockSize();
        ByteBuf block = null;
        if ((ctx.mode() & MODE_NDOB) == 0) {
            block = ctx.cmd().dataOut();
            if (block == null || block.readableBytes() < bs) {
                // the one block of data-out did not arrive (EDTL too small): nothing to write
                ctx.fail(SenseReason.PARAMETER_LIST_LENGTH_ERROR);
                return;
            }
        }
        if ((ctx.mode() & MODE_UNMAP) != 0) {
            lu.store().unmap(ctx.lba(), ctx.blocks()); // parse allowed UNMAP only on a thin LU
            return;
        }
        writePattern(ctx, block);
    }

    /** Writes the block (or zeros for NDOB) to every block of the range, one buffer at a time. */
    private static void writePattern(CommandContext ctx, ByteBuf block) throws IOException {
        LogicalUnit lu = ctx.lu();
        int bs = lu.blockSize();
        int bufferBlocks = (int) Math.min(ctx.blocks(), Math.max(1, PATTERN_BUFFER_BYTES / bs));
        ByteBuf buf = ctx.cmd().alloc().directBuffer(bufferBlocks * bs);
        try {
            if (block == null) {
                ByteBufCopy.appendZeros(buf, bufferBlocks * bs);
            } else {
                for (int i = 0; i < bufferBlocks; i++) {
                    buf.writeBytes(block, block.readerIndex(), bs);
                }
            }
            // SBC-4 6.5.5: with WCE=0 every write must reach the medium before status
            boolean fua = !lu.modes().writeCacheEnabled();
            long done = 0;
            while (done < ctx.blocks()) {
                int n = (int) Math.min(bufferBlocks, ctx.blocks() - done);
                lu.store().write(ctx.lba() + done, buf.slice(0, n * bs), fua);
                done += n;
            }
        } finally {
            buf.release();
        }
    }
}
