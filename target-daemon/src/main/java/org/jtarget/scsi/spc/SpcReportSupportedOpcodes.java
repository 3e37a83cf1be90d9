package org.jtarget.scsi.spc;

import io.netty.buffer.ByteBuf;
import org.jtarget.scsi.cdb.Cdb;
import org.jtarget.scsi.dispatch.CommandContext;
import org.jtarget.scsi.dispatch.CommandHandler;
import org.jtarget.scsi.dispatch.CommandTable;
import org.jtarget.scsi.dispatch.OpcodeEntry;
import org.jtarget.scsi.lun.LogicalUnit;
import org.jtarget.scsi.sense.SenseBuilder;
import org.jtarget.scsi.sense.SenseReason;

/**
 * REPORT SUPPORTED OPERATION CODES (SPC-4 6.35, MAINTENANCE IN service action 0Ch), generated
 * from the {@link CommandTable} so it cannot disagree with what the dispatcher implements.
 * <pre>
 * CDB: 2 RCTD(7) REPORTING OPTIONS(2..0) | 3 REQUESTED OPERATION CODE | 4..5 REQUESTED SERVICE ACTION
 *      6..9 ALLOCATION LENGTH
 * all (000b): 0..3 COMMAND DATA LENGTH, then per command (SPC-4 6.35.2):
 *      0 OPERATION CODE | 2..3 SERVICE ACTION | 5 CTDP(1) SERVACTV(0) | 6..7 CDB LENGTH [| 8..19 timeouts]
 * one (001b/010b/011b, SPC-4 6.35.3):
 *      1 CTDP(7) SUPPORT(2..0) | 2..3 CDB SIZE | 4.. CDB USAGE DATA [| timeouts descriptor]
 * timeouts descriptor (SPC-4 6.35.4): 0..1 LENGTH (0Ah) | 3 command specific | 4..7 NOMINAL
 *      COMMAND PROCESSING TIMEOUT | 8..11 RECOMMENDED COMMAND TIMEOUT (seconds)
 * </pre>
 */
public final class SpcReportSupportedOpcodes implements CommandHandler {

    static final int ALL = 0;
    static final int ONE_COMMAND = 1;
    static final int ONE_SERVICE_ACTION = 2;
    static final int ONE_EITHER = 3;
    private static final int OPTIONS_OFFSET = 2;
    private static final int REQUESTED_OPCODE_OFFSET = 3;
    private static final int REQUESTED_SA_OFFSET = 4;
    private static final int ALLOCATION_LENGTH_OFFSET = 6;
    private static final int RCTD = 0x80;
    private static final int CTDP_ALL = 0x02;
    private static final int SERVACTV = 0x01;
    private static final int CTDP_ONE = 0x80;
    /** SUPPORT field values (SPC-4 table 3xx). */
    static final int SUPPORT_NOT_SUPPORTED = 1;
    static final int SUPPORT_STANDARD = 3;
    static final int TIMEOUTS_DESCRIPTOR_LENGTH = 12;
    /** Seconds: control commands are answered from memory; medium I/O may wait for a device. */
    static final int CONTROL_NOMINAL_TIMEOUT = 1;
    static final int CONTROL_RECOMMENDED_TIMEOUT = 10;
    static final int MEDIUM_NOMINAL_TIMEOUT = 5;
    static final int MEDIUM_RECOMMENDED_TIMEOUT = 30;

    @Override
    public SenseReason parse(CommandContext ctx) {
        byte[] cdb = ctx.cdb();
        int options = cdb[OPTIONS_OFFSET] & 0x07;
        if (options > ONE_EITHER) {
            return ctx.invalidCdbField(OPTIONS_OFFSET, 2);
        }
        OpcodeEntry row = ctx.dispatcher().table().row(Cdb.u8(cdb, REQUESTED_OPCODE_OFFSET));
        boolean hasServiceActions = row != null && row.serviceActions() != null;
        // SPC-4 6.35.1: 001b for an opcode with service actions, or 010b for one without, is an error
        if (options == ONE_COMMAND && hasServiceActions
                || options == ONE_SERVICE_ACTION && row != null && !hasServiceActions) {
            return ctx.invalidCdbField(REQUESTED_OPCODE_OFFSET, SenseBuilder.NONE);
        }
        ctx.mode(options | (cdb[OPTIONS_OFFSET] & RCTD));
        return null;
    }

    @Override
    public void execute(CommandContext ctx) {
        CommandTable table = ctx.dispatcher().table();
        boolean timeouts = (ctx.mode() & RCTD) != 0;
        int options = ctx.mode() & 0x07;
        ByteBuf b = ctx.cmd().alloc().heapBuffer(options == ALL ? 8192 : 512);
        if (options == ALL) {
            writeAll(b, table, timeouts, ctx.lu(), ctx.target().portGroups().explicitChanges());
        } else {
            byte[] cdb = ctx.cdb();
            OpcodeEntry e = find(table, options, Cdb.u8(cdb, REQUESTED_OPCODE_OFFSET),
                    Cdb.u16(cdb, REQUESTED_SA_OFFSET));
            writeOne(b, e != null && e.supportedOn(ctx.lu(), ctx.target().portGroups().explicitChanges()) ? e : null, timeouts);
        }
        ctx.respond(b, Cdb.u32(ctx.cdb(), ALLOCATION_LENGTH_OFFSET));
    }

    /** The row asked for (one-command forms), or null if not supported. */
    private static OpcodeEntry find(CommandTable table, int options, int opcode, int serviceAction) {
        OpcodeEntry row = table.row(opcode);
        if (row == null || row.serviceActions() == null) {
            // 001b ignores REQUESTED SERVICE ACTION; 011b names a command without service
            // actions only with service action 0 (SPC-4 6.35.1), anything else is not supported
            return row != null && (options == ONE_COMMAND || serviceAction == 0) ? row : null;
        }
        return serviceAction < row.serviceActions().length ? row.serviceActions()[serviceAction] : null;
    }

    private static void writeAll(ByteBuf b, CommandTable table, boolean timeouts, LogicalUnit lu,
                                 boolean explicitAlua) {
        b.writeInt(0); // COMMAND DATA LENGTH, patched below
        for (int op = 0; op < 256; op++) {
            OpcodeEntry row = table.row(op);
            if (row == null) {
                continue;
            }
            if (row.serviceActions() == null) {
                if (row.supportedOn(lu, explicitAlua)) {
                    writeDescriptor(b, row, timeouts);
                }
                continue;
            }
            for (OpcodeEntry sa : row.serviceActions()) {
                if (sa != null && sa.supportedOn(lu, explicitAlua)) {
                    writeDescriptor(b, sa, timeouts);
                }
            }
        }
        b.setInt(0, b.writerIndex() - 4);
    }

    private static void writeDescriptor(ByteBuf b, OpcodeEntry e, boolean timeouts) {
        b.writeByte(e.opcode());
        b.writeByte(0);
        b.writeShort(e.isServiceAction() ? e.serviceAction() : 0);
        b.writeByte(0);
        b.writeByte((timeouts ? CTDP_ALL : 0) | (e.isServiceAction() ? SERVACTV : 0));
        b.writeShort(e.cdbLength());
        if (timeouts) {
            writeTimeouts(b, e);
        }
    }

    private static void writeOne(ByteBuf b, OpcodeEntry e, boolean timeouts) {
        b.writeByte(0);
        if (e == null) {
            b.writeByte(SUPPORT_NOT_SUPPORTED);
            b.writeShort(0);
            return;
        }
        b.writeByte((timeouts ? CTDP_ONE : 0) | SUPPORT_STANDARD);
        b.writeShort(e.cdbLength());
        b.writeBytes(e.cdbUsage());
        if (timeouts) {
            writeTimeouts(b, e);
        }
    }

    private static void writeTimeouts(ByteBuf b, OpcodeEntry e) {
        boolean medium = e.has(OpcodeEntry.MEDIUM_IO);
        b.writeShort(TIMEOUTS_DESCRIPTOR_LENGTH - 2);
        b.writeByte(0);
        b.writeByte(0); // COMMAND SPECIFIC
        b.writeInt(medium ? MEDIUM_NOMINAL_TIMEOUT : CONTROL_NOMINAL_TIMEOUT);
        b.writeInt(medium ? MEDIUM_RECOMMENDED_TIMEOUT : CONTROL_RECOMMENDED_TIMEOUT);
    }
}
