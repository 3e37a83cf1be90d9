package org.jtarget.scsi.sbc;

import io.netty.buffer.ByteBuf;
import org.jtarget.backstore.spi.AsyncWriter;
import org.jtarget.buffer.ScatterList;
import org.jtarget.scsi.cdb.Cdb;
import org.jtarget.scsi.dispatch.CommandContext;
import org.jtarget.scsi.dispatch.CommandHandler;
import org.jtarget.scsi.lun.LogicalUnit;
import org.jtarget.scsi.sense.SenseReason;
import org.jtarget.scsi.spi.ScsiCommand;

import java.io.IOException;

/**
 * READ, WRITE, VERIFY and WRITE AND VERIFY in their 6/10/12/16-byte forms (SBC-4 5.8-5.34;
 * WRITE AND VERIFY has no 6-byte form). One instance per
 * opcode, configured with the CDB layout; no allocation in parse or execute beyond the pooled
 * data-in buffer (and a slice wrapper when only part of the data-out arrived).
 *
 * <pre>
 *  6-byte:  0 op | 1..3 LBA (21 bits) | 4 TRANSFER LENGTH (0 = 256) | 5 control
 * 10-byte:  0 op | 1 PROTECT(7..5) DPO(4) FUA(3) BYTCHK(2..1) | 2..5 LBA | 7..8 LENGTH | 9 control
 * 12-byte:  0 op | 1 flags | 2..5 LBA | 6..9 LENGTH | 11 control
 * 16-byte:  0 op | 1 flags | 2..9 LBA | 10..13 LENGTH | 15 control
 * </pre>
 */
public final class SbcReadWrite implements CommandHandler {

    /** What the command does with the blocks. */
    public enum Kind { READ, WRITE, VERIFY, WRITE_AND_VERIFY }

    static final int FLAGS_OFFSET = 1;
    private static final int PROTECT_MASK = 0xE0;
    private static final int FUA = 0x08;
    private static final int BYTCHK_SHIFT = 1;
    private static final int VERIFY_CHUNK_BYTES = 1024 * 1024;

    private final Kind kind;
    private final int cdbSize;

    public SbcReadWrite(Kind kind, int cdbSize) {
        this.kind = kind;
        this.cdbSize = cdbSize;
    }

    @Override
    public SenseReason parse(CommandContext ctx) {
        byte[] cdb = ctx.cdb();
        long lba;
        long blocks;
        int lengthOffset;
        switch (cdbSize) {
            case 6 -> {
                lba = Cdb.u24(cdb, 1) & 0x1FFFFF;
                int tl = Cdb.u8(cdb, 4);
                blocks = tl == 0 ? 256 : tl; // SBC-4 5.x: READ(6)/WRITE(6) length 0 means 256 blocks
                lengthOffset = 4;
            }
            case 10 -> {
                lba = Cdb.u32(cdb, 2);
                blocks = Cdb.u16(cdb, 7);
                lengthOffset = 7;
            }
            case 12 -> {
                lba = Cdb.u32(cdb, 2);
                blocks = Cdb.u32(cdb, 6);
                lengthOffset = 6;
            }
            default -> {
                lba = Cdb.u64(cdb, 2);
                blocks = Cdb.u32(cdb, 10);
                lengthOffset = 10;
            }
        }
        if (cdbSize != 6) {
            SenseReason bad = parseFlags(ctx, cdb[FLAGS_OFFSET]);
            if (bad != null) {
                return bad;
            }
        }
        SenseReason bad = SbcLimits.checkTransfer(ctx, lba, blocks, lengthOffset);
        if (bad != null) {
            return bad;
        }
        ctx.lba(lba);
        ctx.blocks((int) blocks);
        return prepareData(ctx);
    }

    private SenseReason parseFlags(CommandContext ctx, byte flags) {
        if ((flags & PROTECT_MASK) != 0) {
            // SBC-4 4.22: no protection information, so RD/WR/VRPROTECT must be zero
            return ctx.invalidCdbField(FLAGS_OFFSET, 7);
        }
        if (kind == Kind.VERIFY || kind == Kind.WRITE_AND_VERIFY) {
            int bytchk = (flags >> BYTCHK_SHIFT) & 3;
            if (bytchk > 1) {
                // SBC-4 5.31: 10b reserved; 11b (one block compared to each) not supported.
                // SBC-4 5.40-5.42 (WRITE AND VERIFY): 10b and 11b are reserved.
                return ctx.invalidCdbField(FLAGS_OFFSET, 2);
            }
            ctx.mode(bytchk);
            // WRITE AND VERIFY verifies the medium, so the write must reach it (no cached copy);
            // DPO (bit 4) is a cache hint we accept and ignore
            ctx.fua(kind == Kind.WRITE_AND_VERIFY);
        } else {
            ctx.fua((flags & FUA) != 0); // DPO (bit 4) is a cache hint we accept and ignore
        }
        return null;
    }

    private SenseReason prepareData(CommandContext ctx) {
        ScsiCommand cmd = ctx.cmd();
        int bytes = ctx.blocks() * ctx.lu().blockSize();
        if (bytes == 0) {
            return null; // SBC-4: TRANSFER LENGTH 0 means no blocks, not an error
        }
        if (kind == Kind.READ) {
            // reads return the CDB's full length; the fabric trims to the EDTL and sets residuals
            // (a shorter buffer loses nothing: the initiator gets what it made room for)
            cmd.dataIn(ctx.lu().ioBuffer(cmd, bytes));
            return null;
        }
        if (kind != Kind.VERIFY || ctx.mode() == 1) {
            ctx.blockDataOut(bytes);
        }
        return null;
    }

    /** A READ of blocks the store has in memory (a file store's page cache) needs no I/O thread. */
    @Override
    public boolean executeNonBlocking(CommandContext ctx) {
        if (kind == Kind.WRITE && ctx.lu().store() instanceof AsyncWriter writer) {
            return startedAsync(ctx, writer);
        }
        return kind == Kind.READ && ctx.blocks() > 0
                && ctx.lu().store().tryReadNonBlocking(ctx.lba(), ctx.blocks(), ctx.cmd().dataIn());
    }

    /**
     * A plain WRITE of whole blocks, all its data here, to a store that can write without holding
     * a thread (an HA pair's): started on the event loop, ended by the store's answer. Anything
     * else, or a store that cannot start at once, takes the normal path.
     */
    private static boolean startedAsync(CommandContext ctx, AsyncWriter writer) {
        LogicalUnit lu = ctx.lu();
        ScatterList data = ctx.cmd().dataOutSegments();
        int bytes = ctx.blockDataOutBytes();
        if (ctx.blocks() == 0 || data == null || bytes == 0 || bytes % lu.blockSize() != 0
                || data.readableBytes() < bytes) {
            return false;
        }
        boolean fua = ctx.fua() || !lu.modes().writeCacheEnabled();
        if (!writer.tryWriteAsync(ctx.lba(), data, bytes, fua, ctx)) {
            return false;
        }
        ctx.detachUntilDone();
        return true;
    }

    @Override
    public void execute(CommandContext ctx) throws IOException {
        if (ctx.blocks() == 0) {
            return;
        }
        switch (kind) {
            case READ -> ctx.lu().store().read(ctx.lba(), ctx.blocks(), ctx.cmd().dataIn());
            case WRITE -> executeWrite(ctx);
            case VERIFY -> executeVerify(ctx);
            case WRITE_AND_VERIFY -> {
                // SBC-4 5.40: write, then verify the medium; BYTCHK 1 also compares with the data-out
                if (executeWrite(ctx)) {
                    executeVerify(ctx);
                }
            }
        }
    }

    /** @return false if the command failed (nothing written) */
    private static boolean executeWrite(CommandContext ctx) throws IOException {
        LogicalUnit lu = ctx.lu();
        ScatterList data = ctx.cmd().dataOutSegments();
        int bytes = ctx.blockDataOutBytes();
        if (!dataOutArrived(ctx, data == null ? 0 : data.readableBytes())) {
            return false;
        }
        if (bytes == 0) {
            return true; // EDTL 0: the initiator sent nothing to write (overflow residual)
        }
        // SBC-4 6.5.5: with WCE=0 every write must reach the medium before status, like FUA
        boolean fua = ctx.fua() || !lu.modes().writeCacheEnabled();
        if (bytes % lu.blockSize() == 0) {
            lu.store().write(ctx.lba(), data, bytes, fua); // the segments as received: no view, no copy
        } else {
            writeEndingInsideABlock(ctx, bytes, fua);
        }
        return true;
    }

    /**
     * An expected data transfer length that ends inside a block (CommandContext.blockDataOut):
     * the bytes sent are written and the rest of that last block keeps what the medium holds. The
     * command holds its range exclusively, so the read and the write of that block see no other
     * write in between. A rare path (an initiator that disagrees with the block size): one
     * buffer, one copy.
     */
    private static void writeEndingInsideABlock(CommandContext ctx, int bytes, boolean fua) throws IOException {
        LogicalUnit lu = ctx.lu();
        int bs = lu.blockSize();
        int blocks = bytes / bs + 1;
        ByteBuf merged = lu.ioBuffer(ctx.cmd(), blocks * bs);
        try {
            merged.writerIndex((blocks - 1) * bs);
            lu.store().read(ctx.lba() + blocks - 1, 1, merged);
            ByteBuf data = ctx.cmd().dataOut();
            merged.setBytes(0, data, data.readerIndex(), bytes);
            lu.store().write(ctx.lba(), merged, fua);
        } finally {
            merged.release();
        }
    }

    /**
     * True if all the data-out the command acts on ({@link CommandContext#blockDataOutBytes()})
     * arrived; otherwise fails the command with nothing written or compared: a shortfall means
     * the transfer ended early, and a GOOD status must never cover data that was sent but not
     * written.
     */
    static boolean dataOutArrived(CommandContext ctx, int arrived) {
        if (arrived >= ctx.blockDataOutBytes()) {
            return true;
        }
        ctx.fail(SenseReason.INVALID_FIELD_IN_COMMAND_INFORMATION_UNIT);
        return false;
    }

    private static void executeVerify(CommandContext ctx) throws IOException {
        LogicalUnit lu = ctx.lu();
        ByteBuf data = ctx.cmd().dataOut();
        if (ctx.mode() == 1 && !dataOutArrived(ctx, data == null ? 0 : data.readableBytes())) {
            return;
        }
        int compareBytes = ctx.mode() == 1 ? ctx.blockDataOutBytes() : 0;
        int bs = lu.blockSize();
        int chunkBlocks = Math.max(1, VERIFY_CHUNK_BYTES / bs);
        ByteBuf buf = lu.ioBuffer(ctx.cmd(), Math.min(ctx.blocks(), chunkBlocks) * bs);
        try {
            int done = 0;
            while (done < ctx.blocks()) {
                int n = Math.min(chunkBlocks, ctx.blocks() - done);
                buf.clear();
                lu.store().read(ctx.lba() + done, n, buf);
                int offset = done * bs;
                if (offset < compareBytes) {
                    int len = Math.min(n * bs, compareBytes - offset);
                    int mismatch = firstMismatch(buf, data, data.readerIndex() + offset, len);
                    if (mismatch >= 0) {
                        // SBC-4 5.31: INFORMATION = offset of the first differing byte in the data-out
                        ctx.fail(SenseReason.MISCOMPARE_DURING_VERIFY, offset + mismatch);
                        return;
                    }
                }
                done += n;
            }
        } finally {
            buf.release();
        }
    }

    static int firstMismatch(ByteBuf medium, ByteBuf data, int dataIndex, int len) {
        for (int i = 0; i < len; i++) {
            if (medium.getByte(medium.readerIndex() + i) != data.getByte(dataIndex + i)) {
                return i;
            }
        }
        return -1;
    }
}
