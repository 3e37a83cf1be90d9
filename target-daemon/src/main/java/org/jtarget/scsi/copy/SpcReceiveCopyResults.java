package org.jtarget.scsi.copy;

import io.netty.buffer.ByteBuf;
import org.jtarget.scsi.cdb.Cdb;
import org.jtarget.scsi.dispatch.CommandContext;
import org.jtarget.scsi.dispatch.CommandHandler;
import org.jtarget.scsi.sense.SenseBuilder;
import org.jtarget.scsi.sense.SenseReason;

/**
 * RECEIVE COPY RESULTS (SPC-4 6.18, LID1 service actions): COPY STATUS (00h) of a copy of this
 * I_T nexus by LIST IDENTIFIER, and OPERATING PARAMETERS (03h), the limits in {@link CopyLimits}.
 * Other service actions are refused by the command table (INVALID FIELD IN CDB).
 * <pre>
 * 0 84h | 1 SERVICE ACTION | 2 LIST IDENTIFIER | 3..9 reserved | 10..13 ALLOCATION LENGTH | 14 reserved | 15 CONTROL
 * </pre>
 */
public final class SpcReceiveCopyResults implements CommandHandler {

    /** Service action COPY STATUS. */
    public static final int COPY_STATUS = 0x00;
    /** Service action OPERATING PARAMETERS. */
    public static final int OPERATING_PARAMETERS = 0x03;
    private static final int LIST_IDENTIFIER_OFFSET = 2;
    private static final int ALLOCATION_LENGTH_OFFSET = 10;
    private static final int COPY_STATUS_LENGTH = 12;
    private static final int OPERATING_PARAMETERS_HEADER = 44;
    /** TRANSFER COUNT UNITS (SPC-4 table 118): 00h bytes, 01h kibibytes, 02h mebibytes... */
    private static final int UNITS_BYTES = 0;

    private final int serviceAction;

    /** @param serviceAction {@link #COPY_STATUS} or {@link #OPERATING_PARAMETERS} */
    public SpcReceiveCopyResults(int serviceAction) {
        this.serviceAction = serviceAction;
    }

    @Override
    public SenseReason parse(CommandContext ctx) {
        return null;
    }

    @Override
    public void execute(CommandContext ctx) {
        long alloc = Cdb.u32(ctx.cdb(), ALLOCATION_LENGTH_OFFSET);
        if (serviceAction == COPY_STATUS) {
            copyStatus(ctx, alloc);
        } else {
            ctx.respond(operatingParameters(ctx), alloc);
        }
    }

    /** SPC-4 6.18.3; an unknown list identifier is INVALID FIELD IN CDB. */
    private static void copyStatus(CommandContext ctx, long alloc) {
        int listId = Cdb.u8(ctx.cdb(), LIST_IDENTIFIER_OFFSET);
        CopyResults.Status s = ctx.lu().copyResults().read(ctx.cmd().nexus(), listId);
        if (s == null) {
            ctx.fail(ctx.invalidCdbField(LIST_IDENTIFIER_OFFSET, SenseBuilder.NONE));
            return;
        }
        int units = UNITS_BYTES;
        long count = s.bytesTransferred();
        while (count > 0xFFFF_FFFFL) {
            count >>>= 10; // next binary unit
            units++;
        }
        ByteBuf b = ctx.cmd().alloc().buffer(COPY_STATUS_LENGTH);
        b.writeInt(COPY_STATUS_LENGTH - 4); // AVAILABLE DATA
        b.writeByte(s.status()); // HDD = 0 | COPY MANAGER STATUS
        b.writeShort(Math.min(s.segmentsProcessed(), 0xFFFF));
        b.writeByte(units);
        b.writeInt((int) count);
        ctx.respond(b, alloc);
    }

    /** SPC-4 6.18.4. */
    private static ByteBuf operatingParameters(CommandContext ctx) {
        int[] types = CopyLimits.IMPLEMENTED_DESCRIPTOR_TYPES;
        ByteBuf b = ctx.cmd().alloc().buffer(OPERATING_PARAMETERS_HEADER + types.length);
        b.writeInt(OPERATING_PARAMETERS_HEADER + types.length - 4); // AVAILABLE DATA
        b.writeByte(0); // SNLID = 0: no LID4 list identifiers
        b.writeZero(3);
        b.writeShort(CopyLimits.MAX_CSCD_DESCRIPTORS);
        b.writeShort(CopyLimits.MAX_SEGMENT_DESCRIPTORS);
        b.writeInt(CopyLimits.MAX_DESCRIPTOR_LIST_LENGTH);
        b.writeInt(CopyLimits.MAX_SEGMENT_LENGTH);
        b.writeInt(CopyLimits.MAX_INLINE_DATA_LENGTH);
        b.writeInt(CopyLimits.HELD_DATA_LIMIT);
        b.writeInt(0); // MAXIMUM STREAM DEVICE TRANSFER SIZE: no stream devices
        b.writeShort(0); // reserved
        b.writeShort(CopyLimits.MAX_CONCURRENT_COPIES); // TOTAL CONCURRENT COPIES
        b.writeByte(CopyLimits.MAX_CONCURRENT_COPIES); // MAXIMUM CONCURRENT COPIES
        b.writeByte(0); // DATA SEGMENT GRANULARITY (log2): any number of blocks
        b.writeByte(0); // INLINE DATA GRANULARITY (log2)
        b.writeByte(0); // HELD DATA GRANULARITY (log2)
        b.writeZero(3);
        b.writeByte(types.length); // IMPLEMENTED DESCRIPTOR LIST LENGTH
        for (int t : types) {
            b.writeByte(t);
        }
        return b;
    }
}
