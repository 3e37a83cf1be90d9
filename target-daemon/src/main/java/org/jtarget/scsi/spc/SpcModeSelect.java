package org.jtarget.scsi.spc;

import io.netty.buffer.ByteBuf;
import org.jtarget.scsi.cdb.Cdb;
import org.jtarget.scsi.dispatch.CommandContext;
import org.jtarget.scsi.dispatch.CommandHandler;
import org.jtarget.scsi.lun.LogicalUnit;
import org.jtarget.scsi.lun.UnitStateReplica;
import org.jtarget.scsi.sense.SenseBuilder;
import org.jtarget.scsi.sense.SenseReason;

import java.util.ArrayList;
import java.util.List;

/**
 * MODE SELECT (6) and (10) (SPC-4 6.9/6.10). Every page is checked against the changeable mask
 * before anything is applied (all or nothing); a change raises MODE PARAMETERS CHANGED for the
 * other I_T nexuses (SPC-4 5.x, SAM-5 5.14).
 * <pre>
 * (6)  CDB: 1 PF(4) SP(0) | 4 PARAMETER LIST LENGTH
 * (10) CDB: 1 PF(4) SP(0) | 7..8 PARAMETER LIST LENGTH
 * </pre>
 */
public final class SpcModeSelect implements CommandHandler {

    private static final int SP = 0x01;
    private static final int SPF = 0x40;

    private final boolean ten;

    public SpcModeSelect(boolean ten) {
        this.ten = ten;
    }

    @Override
    public SenseReason parse(CommandContext ctx) {
        byte[] cdb = ctx.cdb();
        if ((cdb[1] & SP) != 0) {
            return ctx.invalidCdbField(1, 0); // saving pages is not supported
        }
        int length = ten ? Cdb.u16(cdb, 7) : Cdb.u8(cdb, 4);
        ctx.cmd().dataOutLength(length); // 0 = no data, not an error
        return null;
    }

    @Override
    public void execute(CommandContext ctx) throws java.io.IOException {
        ByteBuf data = ctx.cmd().dataOut();
        if (data == null || !data.isReadable()) {
            return;
        }
        byte[] list = new byte[data.readableBytes()];
        data.getBytes(data.readerIndex(), list);
        List<byte[]> pages = new ArrayList<>();
        SenseReason bad = validate(ctx, list, pages);
        if (bad != null) {
            ctx.fail(bad);
            return;
        }
        LogicalUnit lu = ctx.lu();
        UnitStateReplica replica = lu.modeReplica();
        if (replica == null) {
            apply(ctx, lu, pages);
            return;
        }
        // An HA pair's LU: the secondary has the new values before the command completes
        if (!replica.acceptsChanges()) {
            ctx.fail(UnitStateReplica.refusal(ctx));
            return;
        }
        try {
            replica.change(() -> apply(ctx, lu, pages)); // a failure undoes the change
        } catch (org.jtarget.backstore.spi.StoreException e) {
            throw e; // NOT_SERVED_HERE: not acknowledged, 04/0A (the dispatcher's mapping)
        } catch (java.io.IOException e) {
            org.slf4j.LoggerFactory.getLogger(SpcModeSelect.class).error("{}: MODE SELECT not replicated: {}",
                    lu.displayName(), e.getMessage());
            ctx.fail(SenseReason.INTERNAL_TARGET_FAILURE);
        }
    }

    private static void apply(CommandContext ctx, LogicalUnit lu, List<byte[]> pages) {
        boolean changed = false;
        synchronized (lu.modes()) {
            for (byte[] p : pages) {
                byte[] current = ModePages.page(p[0] & 0x3F, ModePages.PC_CURRENT, lu);
                p[0] &= 0x3F; // PS is reserved in MODE SELECT
                if (!java.util.Arrays.equals(current, p)) {
                    ModePages.apply(p, lu);
                    changed = true;
                }
            }
        }
        if (changed) {
            lu.unitAttentions().raiseAllExcept(ctx.cmd().nexus(), SenseReason.MODE_PARAMETERS_CHANGED);
        }
    }

    private SenseReason validate(CommandContext ctx, byte[] list, List<byte[]> pages) {
        int headerLength = ten ? 8 : 4;
        if (list.length < headerLength) {
            return SenseReason.PARAMETER_LIST_LENGTH_ERROR;
        }
        int bdOffset = ten ? 6 : 3;
        int bdLength = ten ? Cdb.u16(list, bdOffset) : Cdb.u8(list, bdOffset);
        boolean longLba = ten && (list[4] & 1) != 0;
        if (bdLength != 0 && bdLength != (longLba ? 16 : 8)) {
            return ctx.invalidParameterField(bdOffset, SenseBuilder.NONE);
        }
        if (headerLength + bdLength > list.length) {
            return SenseReason.PARAMETER_LIST_LENGTH_ERROR;
        }
        if (bdLength > 0) {
            int lenAt = headerLength + (longLba ? 12 : 5);
            int blockLength = longLba ? (int) Cdb.u32(list, lenAt) : Cdb.u24(list, lenAt);
            if (blockLength != ctx.lu().blockSize()) {
                return ctx.invalidParameterField(lenAt, SenseBuilder.NONE); // block size is fixed
            }
        }
        return validatePages(ctx, list, headerLength + bdLength, pages);
    }

    private static SenseReason validatePages(CommandContext ctx, byte[] list, int p, List<byte[]> pages) {
        while (p < list.length) {
            if (p + 2 > list.length) {
                return SenseReason.PARAMETER_LIST_LENGTH_ERROR;
            }
            int code = list[p] & 0x3F;
            if ((list[p] & SPF) != 0 || !ModePages.supports(code)) {
                return ctx.invalidParameterField(p, SenseBuilder.NONE);
            }
            byte[] current = ModePages.page(code, ModePages.PC_CURRENT, ctx.lu());
            byte[] changeable = ModePages.page(code, ModePages.PC_CHANGEABLE, ctx.lu());
            int length = Cdb.u8(list, p + 1);
            if (length != current.length - 2) {
                return ctx.invalidParameterField(p + 1, SenseBuilder.NONE);
            }
            if (p + 2 + length > list.length) {
                return SenseReason.PARAMETER_LIST_LENGTH_ERROR;
            }
            for (int i = 2; i < current.length; i++) {
                if (((list[p + i] ^ current[i]) & ~changeable[i] & 0xFF) != 0) {
                    return ctx.invalidParameterField(p + i, SenseBuilder.NONE);
                }
            }
            pages.add(java.util.Arrays.copyOfRange(list, p, p + current.length));
            p += current.length;
        }
        return null;
    }
}
