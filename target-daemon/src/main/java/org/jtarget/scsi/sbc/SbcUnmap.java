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
 * UNMAP (SBC-4 5.32): deallocates the LBA ranges its parameter list names. Only in the command
 * table's sense on a thin LU ({@code NEEDS_UNMAP}: the gate answers INVALID COMMAND OPERATION
 * CODE elsewhere, and the Logical Block Provisioning VPD page then says LBPU = 0).
 * <pre>
 * CDB:        1 ANCHOR(0) | 6 GROUP NUMBER | 7..8 PARAMETER LIST LENGTH | 9 control
 * parameters: 0..1 UNMAP DATA LENGTH | 2..3 UNMAP BLOCK DESCRIPTOR DATA LENGTH | 4..7 reserved
 *             8.. block descriptors: 0..7 UNMAP LOGICAL BLOCK ADDRESS | 8..11 NUMBER OF LOGICAL BLOCKS | 12..15 reserved
 * </pre>
 * The whole list is checked before anything is deallocated (all or nothing): too many
 * descriptors or blocks (Block Limits VPD page) is INVALID FIELD IN PARAMETER LIST, a descriptor
 * past the capacity LBA OUT OF RANGE. Unaligned parts of a range (OPTIMAL UNMAP GRANULARITY) are
 * not an error: the store zeroes them, which LBPRZ = 1 promises anyway (SBC-4 4.7.3.4).
 *
 * <p>The dispatcher holds the whole LU shared in the range lock (the ranges are only known once
 * the data-out has arrived), so UNMAP never runs inside a COMPARE AND WRITE's range.
 */
public final class SbcUnmap implements CommandHandler {

    private static final int ANCHOR_OFFSET = 1;
    private static final int ANCHOR = 0x01;
    private static final int PARAMETER_LIST_LENGTH_OFFSET = 7;
    static final int HEADER_LENGTH = 8;
    private static final int DESCRIPTOR_DATA_LENGTH_OFFSET = 2;
    static final int DESCRIPTOR_LENGTH = 16;
    private static final int DESCRIPTOR_BLOCKS_OFFSET = 8;

    @Override
    public SenseReason parse(CommandContext ctx) {
        byte[] cdb = ctx.cdb();
        if ((cdb[ANCHOR_OFFSET] & ANCHOR) != 0) {
            // SBC-4 5.32.1: ANCHOR = 1 with ANC_SUP = 0 in the Logical Block Provisioning VPD page
            return ctx.invalidCdbField(ANCHOR_OFFSET, 0);
        }
        int length = Cdb.u16(cdb, PARAMETER_LIST_LENGTH_OFFSET);
        if (length == 0) {
            return null; // SBC-4 5.32.1: no data is sent; nothing to deallocate, not an error
        }
        if (length < HEADER_LENGTH) {
            // the header itself does not fit: nothing can be read from the list
            return SenseReason.PARAMETER_LIST_LENGTH_ERROR;
        }
        LogicalUnit lu = ctx.lu();
        ctx.lba(0);
        ctx.blocks((int) Math.min(lu.blockCount(), Integer.MAX_VALUE)); // shared range: the whole LU
        ctx.cmd().dataOutLength(length);
        return null;
    }

    @Override
    public void execute(CommandContext ctx) throws IOException {
        ByteBuf list = ctx.cmd().dataOut();
        int length = Cdb.u16(ctx.cdb(), PARAMETER_LIST_LENGTH_OFFSET);
        if (length == 0 || list == null) {
            return;
        }
        int arrived = Math.min(length, list.readableBytes());
        if (arrived < HEADER_LENGTH) {
            ctx.fail(SenseReason.PARAMETER_LIST_LENGTH_ERROR);
            return;
        }
        int base = list.readerIndex();
        // SBC-4 5.32.2: an incomplete last descriptor is ignored; so is one that did not arrive
        int descriptorBytes = Math.min(list.getUnsignedShort(base + DESCRIPTOR_DATA_LENGTH_OFFSET),
                arrived - HEADER_LENGTH);
        int count = descriptorBytes / DESCRIPTOR_LENGTH;
        SenseReason bad = check(ctx, list, base, count);
        if (bad != null) {
            ctx.fail(bad);
            return;
        }
        LogicalUnit lu = ctx.lu();
        for (int i = 0; i < count; i++) {
            int at = base + HEADER_LENGTH + i * DESCRIPTOR_LENGTH;
            long blocks = list.getUnsignedInt(at + DESCRIPTOR_BLOCKS_OFFSET);
            if (blocks > 0) { // SBC-4 5.32.3: zero blocks deallocates nothing, not an error
                lu.store().unmap(list.getLong(at), blocks);
            }
        }
    }

    /** Validates every descriptor against the Block Limits VPD page and the capacity. */
    private static SenseReason check(CommandContext ctx, ByteBuf list, int base, int count) {
        LogicalUnit lu = ctx.lu();
        if (count > SbcProvisioning.maxUnmapDescriptors(lu)) {
            // SBC-4 5.32.3: more than MAXIMUM UNMAP BLOCK DESCRIPTOR COUNT
            return ctx.invalidParameterField(DESCRIPTOR_DATA_LENGTH_OFFSET, SenseBuilder.NONE);
        }
        long total = 0;
        for (int i = 0; i < count; i++) {
            int offset = HEADER_LENGTH + i * DESCRIPTOR_LENGTH;
            long lba = list.getLong(base + offset);
            long blocks = list.getUnsignedInt(base + offset + DESCRIPTOR_BLOCKS_OFFSET);
            if (!SbcLimits.inRange(lu, lba, blocks)) {
                return SenseReason.LBA_OUT_OF_RANGE; // SBC-4 5.32.3
            }
            total += blocks;
            if (total > SbcProvisioning.maxUnmapLbaCount(lu)) {
                // SBC-4 5.32.3: more than MAXIMUM UNMAP LBA COUNT in total
                return ctx.invalidParameterField(offset + DESCRIPTOR_BLOCKS_OFFSET, SenseBuilder.NONE);
            }
        }
        return null;
    }
}
