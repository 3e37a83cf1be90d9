package org.jtarget.scsi.alua;

import io.netty.buffer.ByteBuf;
import org.jtarget.scsi.cdb.Cdb;
import org.jtarget.scsi.dispatch.CommandContext;
import org.jtarget.scsi.dispatch.CommandHandler;
import org.jtarget.scsi.sense.SenseReason;

/**
 * REPORT TARGET PORT GROUPS (SPC-4 6.27, MAINTENANCE IN A3h / 0Ah): every target port group of
 * the target, its asymmetric access state and its target ports.
 * <pre>
 * CDB:  1 PARAMETER DATA FORMAT(7..5) SERVICE ACTION(4..0) | 6..9 ALLOCATION LENGTH | 11 control
 * data: 0..3 RETURN DATA LENGTH
 *       format 001b only: 4 FORMAT TYPE(6..4) = 001b | 5 IMPLICIT TRANSITION TIME | 6..7 reserved
 *       then per group (table 179):
 *       0 PREF(7) ASYMMETRIC ACCESS STATE(3..0) | 1 T_SUP O_SUP rsvd LBD_SUP U_SUP S_SUP AN_SUP AO_SUP
 *       2..3 TARGET PORT GROUP | 4 reserved | 5 STATUS CODE | 6 vendor specific | 7 TARGET PORT COUNT
 *       per port: 0..1 obsolete | 2..3 RELATIVE TARGET PORT IDENTIFIER
 * </pre>
 * RETURN DATA LENGTH counts the bytes after itself, whatever the allocation length cuts off.
 */
public final class SpcReportTargetPortGroups implements CommandHandler {

    static final int FORMAT_LENGTH_ONLY = 0;
    static final int FORMAT_EXTENDED = 1;
    private static final int FORMAT_SHIFT = 5;
    private static final int ALLOCATION_LENGTH_OFFSET = 6;
    private static final int EXTENDED_FORMAT_TYPE = FORMAT_EXTENDED << 4;
    private static final int PREF = 0x80;
    /**
     * Supported states (byte 1): T_SUP (an implicit change may pass through transitioning),
     * U_SUP, S_SUP, AN_SUP, AO_SUP; no offline (O_SUP) or logical block dependent (LBD_SUP).
     */
    static final int SUPPORTED_STATES = 0x80 | 0x08 | 0x04 | 0x02 | 0x01;

    @Override
    public SenseReason parse(CommandContext ctx) {
        int format = Cdb.u8(ctx.cdb(), 1) >>> FORMAT_SHIFT;
        if (format != FORMAT_LENGTH_ONLY && format != FORMAT_EXTENDED) {
            return ctx.invalidCdbField(1, 7);
        }
        ctx.mode(format);
        return null;
    }

    @Override
    public void execute(CommandContext ctx) {
        TargetPortGroups model = ctx.target().portGroups();
        ByteBuf b = ctx.cmd().alloc().directBuffer(256);
        b.writeInt(0); // RETURN DATA LENGTH, patched below
        if (ctx.mode() == FORMAT_EXTENDED) {
            b.writeByte(EXTENDED_FORMAT_TYPE);
            b.writeByte(model.implicitTransitionSeconds());
            b.writeShort(0);
        }
        for (TargetPortGroup g : model.groups()) {
            b.writeByte((g.preferred() ? PREF : 0) | g.state().code());
            b.writeByte(SUPPORTED_STATES);
            b.writeShort(g.id());
            b.writeByte(0);
            b.writeByte(g.statusCode());
            b.writeByte(0);
            b.writeByte(g.portCount());
            for (int i = 0; i < g.portCount(); i++) {
                b.writeShort(0);
                b.writeShort(g.relativeTargetPort(i));
            }
        }
        b.setInt(0, b.writerIndex() - 4);
        ctx.respond(b, Cdb.u32(ctx.cdb(), ALLOCATION_LENGTH_OFFSET));
    }
}
