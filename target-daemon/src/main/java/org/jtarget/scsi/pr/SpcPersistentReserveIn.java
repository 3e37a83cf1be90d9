package org.jtarget.scsi.pr;

import io.netty.buffer.ByteBuf;
import org.jtarget.scsi.cdb.Cdb;
import org.jtarget.scsi.cdb.Opcodes;
import org.jtarget.scsi.dispatch.CommandContext;
import org.jtarget.scsi.dispatch.CommandHandler;
import org.jtarget.scsi.sense.SenseReason;
import org.jtarget.scsi.spi.TransportIds;

/**
 * PERSISTENT RESERVE IN (SPC-4 6.14), one instance per service action. Data longer than the
 * ALLOCATION LENGTH is cut (SPC-4 4.2.5.6); the ADDITIONAL LENGTH fields still give the full length.
 * <pre>
 * CDB: 1 SERVICE ACTION(4..0) | 7..8 ALLOCATION LENGTH | 9 control
 * READ KEYS (6.14.2):        0..3 PRGENERATION | 4..7 ADDITIONAL LENGTH | 8.. keys, 8 bytes each
 * READ RESERVATION (6.14.3): 0..3 PRGENERATION | 4..7 ADDITIONAL LENGTH (0 or 16)
 *                            | 8..15 RESERVATION KEY | 21 SCOPE(7..4) TYPE(3..0)
 * REPORT CAPABILITIES (6.14.4): 0..1 LENGTH (8) | 2 RLR_C(7) CRH(4) SIP_C(3) ATP_C(2) PTPL_C(0)
 *                            | 3 TMV(7) ALLOW COMMANDS(6..4) PTPL_A(0) | 4..5 TYPE MASK
 * READ FULL STATUS (6.14.5): 0..3 PRGENERATION | 4..7 ADDITIONAL LENGTH | descriptors:
 *      0..7 RESERVATION KEY | 12 ALL_TG_PT(1) R_HOLDER(0) | 13 SCOPE TYPE
 *      | 18..19 RELATIVE TARGET PORT IDENTIFIER | 20..23 ADDITIONAL DESCRIPTOR LENGTH | 24.. TransportID
 * </pre>
 */
public final class SpcPersistentReserveIn implements CommandHandler {

    private static final int ALLOCATION_LENGTH_OFFSET = 7;
    private static final int CAPABILITIES_LENGTH = 8;
    private static final int SIP_C = 0x08;
    private static final int ATP_C = 0x04;
    private static final int PTPL_C = 0x01;
    private static final int TMV = 0x80;
    /**
     * ALLOW COMMANDS 010b: TEST UNIT READY passes Write Exclusive and Exclusive Access
     * reservations; MODE SENSE, REPORT SUPPORTED OPERATION CODES etc. do not pass Write Exclusive
     * (our {@link ReservationRule} column).
     */
    private static final int ALLOW_COMMANDS = 0x2 << 4;
    private static final int PTPL_A = 0x01;
    private static final int ALL_TG_PT = 0x02;
    private static final int R_HOLDER = 0x01;

    private final int serviceAction;

    public SpcPersistentReserveIn(int serviceAction) {
        this.serviceAction = serviceAction;
    }

    @Override
    public SenseReason parse(CommandContext ctx) {
        ctx.lba(Cdb.u16(ctx.cdb(), ALLOCATION_LENGTH_OFFSET));
        return null;
    }

    @Override
    public void execute(CommandContext ctx) {
        Reservations r = ctx.lu().reservations();
        ByteBuf b = ctx.cmd().alloc().heapBuffer(256);
        synchronized (r) {
            r.seen(ctx.cmd().nexus());
            switch (serviceAction) {
                case Opcodes.SA_READ_KEYS -> readKeys(r, b);
                case Opcodes.SA_READ_RESERVATION -> readReservation(r, b);
                case Opcodes.SA_REPORT_CAPABILITIES -> reportCapabilities(r, b);
                default -> readFullStatus(r, b);
            }
        }
        ctx.respond(b, ctx.lba());
    }

    private static void readKeys(Reservations r, ByteBuf b) {
        b.writeInt(r.generation);
        b.writeInt(8 * r.registrations.size());
        for (Registration reg : r.registrations) {
            b.writeLong(reg.key());
        }
    }

    private static void readReservation(Reservations r, ByteBuf b) {
        b.writeInt(r.generation);
        if (r.type == null) {
            b.writeInt(0);
            return;
        }
        b.writeInt(16);
        // SPC-4 6.14.3: an all-registrants reservation reports key zero
        b.writeLong(r.type.allRegistrants() ? 0 : r.holder.key());
        b.writeInt(0); // obsolete
        b.writeByte(0);
        b.writeByte(r.type.code); // SCOPE 0h (LU_SCOPE)
        b.writeShort(0); // obsolete
    }

    private static void reportCapabilities(Reservations r, ByteBuf b) {
        b.writeShort(CAPABILITIES_LENGTH);
        b.writeByte(SIP_C | ATP_C | (r.persistenceCapable() ? PTPL_C : 0)); // CRH 0, RLR_C 0
        b.writeByte(TMV | ALLOW_COMMANDS | (r.aptpl ? PTPL_A : 0));
        int mask = 0;
        for (PrType t : PrType.values()) {
            mask |= t.typeMaskBit();
        }
        b.writeShort(mask);
        b.writeShort(0);
    }

    private static void readFullStatus(Reservations r, ByteBuf b) {
        b.writeInt(r.generation);
        int lengthAt = b.writerIndex();
        b.writeInt(0);
        for (Registration reg : r.registrations) {
            byte[] id = TransportIds.encode(reg.protocol(), reg.initiatorPortName());
            b.writeLong(reg.key());
            b.writeInt(0);
            boolean holds = r.holds(reg);
            b.writeByte((reg.allTargetPorts() ? ALL_TG_PT : 0) | (holds ? R_HOLDER : 0));
            b.writeByte(holds ? r.type.code : 0);
            b.writeInt(0);
            b.writeShort(reg.relativeTargetPortId());
            b.writeInt(id.length);
            b.writeBytes(id);
        }
        b.setInt(lengthAt, b.writerIndex() - lengthAt - 4);
    }
}
