package org.jtarget.scsi.sbc;

import io.netty.buffer.ByteBuf;
import org.jtarget.backstore.spi.Backstore;
import org.jtarget.scsi.cdb.Cdb;
import org.jtarget.scsi.dispatch.CommandContext;
import org.jtarget.scsi.dispatch.CommandHandler;
import org.jtarget.scsi.lun.LogicalUnit;
import org.jtarget.scsi.sense.SenseReason;

import java.io.IOException;

/**
 * GET LBA STATUS (SBC-4 5.7; SERVICE ACTION IN(16) service action 12h): the provisioning state of
 * the blocks from STARTING LOGICAL BLOCK ADDRESS on, as the store knows it
 * ({@link Backstore#provisioningRun}; a fully provisioned store is mapped everywhere).
 * <pre>
 * CDB:  2..9 STARTING LOGICAL BLOCK ADDRESS | 10..13 ALLOCATION LENGTH | 14 REPORT TYPE(1..0) | 15 control
 * data: 0..3 PARAMETER DATA LENGTH (n - 3) | 4..7 reserved
 *       8.. descriptors: 0..7 LBA | 8..11 NUMBER OF LOGICAL BLOCKS | 12 PROVISIONING STATUS(3..0) | 13..15 reserved
 * </pre>
 * The first descriptor starts at the starting LBA; the following ones continue without gaps, as
 * many as the allocation length holds (at most {@link #MAX_DESCRIPTORS}). STARTING LBA past the
 * last LBA is LBA OUT OF RANGE. REPORT TYPE other than 00b (all LBAs) is not supported.
 */
public final class SbcGetLbaStatus implements CommandHandler {

    static final int MAX_DESCRIPTORS = 64;
    static final int HEADER_LENGTH = 8;
    static final int DESCRIPTOR_LENGTH = 16;
    private static final int ALLOCATION_LENGTH_OFFSET = 10;
    private static final int REPORT_TYPE_OFFSET = 14;
    /** SBC-4 table "PROVISIONING STATUS field". */
    static final int STATUS_MAPPED = 0;
    static final int STATUS_DEALLOCATED = 1;
    private static final long MAX_DESCRIPTOR_BLOCKS = 0xFFFF_FFFFL;

    @Override
    public SenseReason parse(CommandContext ctx) {
        byte[] cdb = ctx.cdb();
        if ((cdb[REPORT_TYPE_OFFSET] & 0x03) != 0) {
            return ctx.invalidCdbField(REPORT_TYPE_OFFSET, 1);
        }
        long lba = Cdb.u64(cdb, 2);
        if (lba < 0 || lba >= ctx.lu().blockCount()) {
            return SenseReason.LBA_OUT_OF_RANGE; // SBC-4 5.7: beyond the last LBA
        }
        ctx.lba(lba);
        return null;
    }

    @Override
    public void execute(CommandContext ctx) throws IOException {
        long allocation = Cdb.u32(ctx.cdb(), ALLOCATION_LENGTH_OFFSET);
        int wanted = (int) Math.min(MAX_DESCRIPTORS, Math.max(1, (allocation - HEADER_LENGTH) / DESCRIPTOR_LENGTH));
        LogicalUnit lu = ctx.lu();
        ByteBuf b = ctx.cmd().alloc().heapBuffer(HEADER_LENGTH + wanted * DESCRIPTOR_LENGTH);
        b.writeInt(0); // PARAMETER DATA LENGTH, patched below
        b.writeInt(0);
        long lba = ctx.lba();
        for (int i = 0; i < wanted && lba < lu.blockCount(); i++) {
            long max = Math.min(MAX_DESCRIPTOR_BLOCKS, lu.blockCount() - lba);
            Backstore.ProvisioningRun run = lu.store().provisioningRun(lba, max);
            long blocks = Math.max(1, Math.min(run.blocks(), max));
            b.writeLong(lba);
            b.writeInt((int) blocks);
            b.writeByte(run.mapped() ? STATUS_MAPPED : STATUS_DEALLOCATED);
            b.writeZero(3);
            lba += blocks;
        }
        b.setInt(0, b.writerIndex() - 4);
        ctx.respond(b, allocation);
    }
}
