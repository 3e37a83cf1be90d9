package org.jtarget.scsi.spc;

import io.netty.buffer.ByteBuf;
import org.jtarget.scsi.cdb.Cdb;
import org.jtarget.scsi.dispatch.CommandContext;
import org.jtarget.scsi.dispatch.CommandHandler;
import org.jtarget.scsi.lun.LogicalUnit;
import org.jtarget.scsi.lun.LuIdentity;
import org.jtarget.scsi.sense.SenseBuilder;
import org.jtarget.scsi.sense.SenseReason;

import java.nio.charset.StandardCharsets;

/**
 * INQUIRY (SPC-4 6.4): standard data and the vital product data pages in {@link VpdPages}.
 * <pre>CDB: 1 CMDDT(1, obsolete) EVPD(0) | 2 PAGE CODE | 3..4 ALLOCATION LENGTH | 5 control</pre>
 * Answered even for a LUN with no logical unit: peripheral qualifier 011b, type 1Fh (SPC-4 6.4.2).
 */
public final class SpcInquiry implements CommandHandler {

    static final int STANDARD_LENGTH = 96;
    /** SPC-4 6.4.2: VERSION 06h = SPC-4. */
    static final int VERSION_SPC4 = 0x06;
    private static final int EVPD = 0x01;
    private static final int CMDDT = 0x02;
    /** Peripheral qualifier 011b + device type 1Fh: no logical unit at this LUN. */
    static final int NO_LUN_PERIPHERAL = 0x7F;
    /** Byte 5 bits 5..4 (TPGS) = 11b: REPORT and SET TARGET PORT GROUPS are supported. */
    static final int TPGS_IMPLICIT_AND_EXPLICIT = 0x30;
    /** TPGS = 01b: implicit ALUA only, REPORT TARGET PORT GROUPS but no SET (an HA node: its role sets the states). */
    static final int TPGS_IMPLICIT = 0x10;

    @Override
    public SenseReason parse(CommandContext ctx) {
        byte[] cdb = ctx.cdb();
        if ((cdb[1] & CMDDT) != 0) {
            return ctx.invalidCdbField(1, 1);
        }
        boolean evpd = (cdb[1] & EVPD) != 0;
        int page = Cdb.u8(cdb, 2);
        if (!evpd && page != 0) {
            // SPC-4 6.4.1: PAGE CODE must be zero when EVPD is zero
            return ctx.invalidCdbField(2, SenseBuilder.NONE);
        }
        if (evpd && (ctx.lu() == null || !VpdPages.supports(page, ctx.lu()))) {
            return ctx.lu() == null ? SenseReason.LOGICAL_UNIT_NOT_SUPPORTED
                    : ctx.invalidCdbField(2, SenseBuilder.NONE);
        }
        ctx.mode(evpd ? page : -1);
        return null;
    }

    @Override
    public void execute(CommandContext ctx) {
        int alloc = Cdb.u16(ctx.cdb(), 3);
        ByteBuf b = ctx.cmd().alloc().directBuffer(256);
        if (ctx.mode() < 0) {
            writeStandard(b, ctx.lu(), ctx.target().portGroups().explicitChanges());
        } else {
            VpdPages.write(b, ctx.mode(), ctx);
        }
        ctx.respond(b, alloc);
    }

    /** Standard INQUIRY byte 5 bit 3: the LU is a copy manager (EXTENDED COPY). */
    private static final int THIRD_PARTY_COPY = 0x08;

    /**
     * @param explicitAlua whether the target's port groups take SET TARGET PORT GROUPS (not on an
     *                     HA node); TPGS 11b only if the LU takes it too (not a replicated LU), else 01b
     */
    static void writeStandard(ByteBuf b, LogicalUnit lu, boolean explicitAlua) {
        b.writeByte(lu == null ? NO_LUN_PERIPHERAL : VpdPages.DIRECT_ACCESS_BLOCK_DEVICE);
        b.writeByte(lu != null && lu.removable() ? 0x80 : 0); // RMB
        b.writeByte(VERSION_SPC4);
        b.writeByte(0x12); // HISUP=1 (hierarchical LUNs), RESPONSE DATA FORMAT=2
        b.writeByte(STANDARD_LENGTH - 5); // ADDITIONAL LENGTH
        // SCCS, ACC 0 | TPGS 11b: implicit and explicit ALUA (SPC-4 6.4.2, 5.15), or 01b implicit only
        // | 3PC = 1: EXTENDED COPY, PROTECT 0
        b.writeByte(lu == null ? 0 : (explicitAlua && lu.explicitAlua() ? TPGS_IMPLICIT_AND_EXPLICIT : TPGS_IMPLICIT)
                | THIRD_PARTY_COPY);
        b.writeByte(0); // ENCSERV, MULTIP...
        b.writeByte(0x02); // CMDQUE: full task queuing (SAM-5 8.x)
        b.writeBytes(LuIdentity.VENDOR.getBytes(StandardCharsets.US_ASCII));
        b.writeBytes(LuIdentity.PRODUCT.getBytes(StandardCharsets.US_ASCII));
        b.writeBytes(LuIdentity.REVISION.getBytes(StandardCharsets.US_ASCII));
        b.writeZero(58 - b.writerIndex()); // vendor specific 36..55, 56..57 reserved
        // version descriptors (SPC-4 table 142): SAM-5, iSCSI (no version), SPC-4, SBC-3
        b.writeShort(0x00A0);
        b.writeShort(0x0960);
        b.writeShort(0x0460);
        b.writeShort(0x04C0);
        b.writeZero(STANDARD_LENGTH - b.writerIndex());
    }
}
