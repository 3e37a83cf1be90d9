package org.jtarget.scsi.sbc;

import org.jtarget.scsi.cdb.Cdb;
import org.jtarget.scsi.dispatch.CommandContext;
import org.jtarget.scsi.lun.LogicalUnit;
import org.jtarget.scsi.sense.SenseReason;

/** Transfer limits and range checks shared by the block command handlers (SBC-4 4.5, 6.6.4). */
public final class SbcLimits {

    /** Largest single transfer the core accepts, whatever the store says (bounds buffer sizes). */
    public static final int MAX_TRANSFER_BYTES = 16 * 1024 * 1024;

    /** The NUMBER OF LOGICAL BLOCKS field of COMPARE AND WRITE is one byte. */
    static final int MAX_COMPARE_AND_WRITE_BLOCKS = 255;

    private SbcLimits() {
    }

    /** MAXIMUM TRANSFER LENGTH in blocks, as reported in the Block Limits VPD page. */
    public static int maxTransferBlocks(LogicalUnit lu) {
        int core = MAX_TRANSFER_BYTES / lu.blockSize();
        int store = lu.info().maxTransferBlocks();
        return store > 0 ? Math.min(core, store) : core;
    }

    /**
     * MAXIMUM COMPARE AND WRITE LENGTH in blocks (SBC-4 6.6.4; the CDB field is one byte): at most
     * 255, and small enough that the 2n-block data-out stays within the maximum transfer length.
     */
    public static int maxCompareAndWriteBlocks(LogicalUnit lu) {
        return Math.max(1, Math.min(MAX_COMPARE_AND_WRITE_BLOCKS, maxTransferBlocks(lu) / 2));
    }

    /**
     * MAXIMUM ATOMIC TRANSFER LENGTH in blocks (SBC-4 6.6.4, WRITE ATOMIC (16)): any transfer the
     * LU accepts is written atomically under the range lock, capped by the CDB's 16-bit field.
     */
    public static int maxAtomicTransferBlocks(LogicalUnit lu) {
        return Math.min(0xFFFF, maxTransferBlocks(lu));
    }

    /**
     * SBC-4 4.5: LBA + number of blocks must not exceed the capacity; a zero-length transfer at
     * LBA == capacity is allowed, beyond is not.
     *
     * @param lba    the LBA (negative if the CDB's 64-bit value is above 2^63)
     * @param blocks number of blocks, unsigned
     */
    public static boolean inRange(LogicalUnit lu, long lba, long blocks) {
        long count = lu.blockCount();
        return lba >= 0 && lba <= count && blocks <= count - lba;
    }

    /**
     * Range then transfer-size check for a read/write/verify CDB.
     *
     * @param lengthOffset CDB byte of the TRANSFER LENGTH field (for the field pointer)
     */
    public static SenseReason checkTransfer(CommandContext ctx, long lba, long blocks, int lengthOffset) {
        if (!inRange(ctx.lu(), lba, blocks)) {
            return SenseReason.LBA_OUT_OF_RANGE;
        }
        if (blocks > maxTransferBlocks(ctx.lu())) {
            // SBC-4 6.6.4: a transfer above MAXIMUM TRANSFER LENGTH is INVALID FIELD IN CDB
            return ctx.invalidCdbField(lengthOffset, org.jtarget.scsi.sense.SenseBuilder.NONE);
        }
        return null;
    }

    /**
     * Parses the LBA and length of the 10- and 16-byte "range" CDBs that share one layout
     * (SYNCHRONIZE CACHE, PRE-FETCH: SBC-4 5.9, 5.25): LBA at byte 2, length at byte 7 (10) or 10
     * (16), 0 meaning "through the last LBA". Sets the context's LBA and block count.
     *
     * @return LBA OUT OF RANGE, or null
     */
    static SenseReason parseRange(CommandContext ctx, boolean sixteen) {
        byte[] cdb = ctx.cdb();
        long lba = sixteen ? Cdb.u64(cdb, 2) : Cdb.u32(cdb, 2);
        long blocks = sixteen ? Cdb.u32(cdb, 10) : Cdb.u16(cdb, 7);
        if (!inRange(ctx.lu(), lba, blocks)) {
            return SenseReason.LBA_OUT_OF_RANGE;
        }
        ctx.lba(lba);
        ctx.blocks((int) Math.min(blocks, Integer.MAX_VALUE));
        return null;
    }
}
