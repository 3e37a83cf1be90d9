package org.jtarget.scsi.pr;

import io.netty.buffer.ByteBuf;
import org.jtarget.scsi.cdb.Cdb;
import org.jtarget.scsi.cdb.Opcodes;
import org.jtarget.scsi.dispatch.CommandContext;
import org.jtarget.scsi.dispatch.CommandHandler;
import org.jtarget.scsi.sense.SenseReason;
import org.jtarget.backstore.spi.StoreException;
import org.jtarget.scsi.lun.UnitStateReplica;

import java.io.IOException;

/**
 * PERSISTENT RESERVE OUT (SPC-4 6.15), one instance per service action. The CDB is checked before
 * any data moves; the parameter list is checked and applied by {@link PrOutServiceActions} under
 * the LU's {@link Reservations} lock.
 * <pre>
 * CDB: 1 SERVICE ACTION(4..0) | 2 SCOPE(7..4) TYPE(3..0) | 5..8 PARAMETER LIST LENGTH | 9 control
 * </pre>
 */
public final class SpcPersistentReserveOut implements CommandHandler {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(SpcPersistentReserveOut.class);

    private static final int SCOPE_TYPE_OFFSET = 2;
    private static final int PARAMETER_LIST_LENGTH_OFFSET = 5;
    /** SPC-4 6.15.3: the basic parameter list is 24 bytes. */
    static final int BASIC_LENGTH = 24;
    /** Far more than any TransportID list we accept (one per initiator port). */
    private static final long MAX_PARAMETER_LIST_LENGTH = 1 << 20;

    private final int serviceAction;

    public SpcPersistentReserveOut(int serviceAction) {
        this.serviceAction = serviceAction;
    }

    @Override
    public SenseReason parse(CommandContext ctx) {
        byte[] cdb = ctx.cdb();
        long length = Cdb.u32(cdb, PARAMETER_LIST_LENGTH_OFFSET);
        if (usesScopeAndType()) {
            if ((cdb[SCOPE_TYPE_OFFSET] & 0xF0) != 0) {
                return ctx.invalidCdbField(SCOPE_TYPE_OFFSET, 7); // only LU_SCOPE (SPC-4 6.15.3.2)
            }
            if (PrType.fromCode(cdb[SCOPE_TYPE_OFFSET] & 0x0F) == null) {
                return ctx.invalidCdbField(SCOPE_TYPE_OFFSET, 3);
            }
        }
        if (length < BASIC_LENGTH || length > MAX_PARAMETER_LIST_LENGTH) {
            return SenseReason.PARAMETER_LIST_LENGTH_ERROR;
        }
        ctx.cmd().dataOutLength((int) length);
        ctx.mode((int) length);
        return null;
    }

    /** SPC-4 6.15.2: only these service actions use SCOPE and TYPE. */
    private boolean usesScopeAndType() {
        return serviceAction == Opcodes.SA_RESERVE || serviceAction == Opcodes.SA_RELEASE
                || serviceAction == Opcodes.SA_PREEMPT || serviceAction == Opcodes.SA_PREEMPT_AND_ABORT
                || serviceAction == Opcodes.SA_REGISTER_AND_MOVE;
    }

    @Override
    public void execute(CommandContext ctx) throws IOException {
        ByteBuf data = ctx.cmd().dataOut();
        int length = ctx.mode();
        if (data == null || data.readableBytes() < length) {
            ctx.fail(SenseReason.PARAMETER_LIST_LENGTH_ERROR);
            return;
        }
        byte[] list = new byte[length];
        data.getBytes(data.readerIndex(), list);
        PrType type = PrType.fromCode(ctx.cdb()[SCOPE_TYPE_OFFSET] & 0x0F);
        Reservations r = ctx.lu().reservations();
        UnitStateReplica replica = ctx.lu().reservationReplica();
        if (replica == null) {
            synchronized (r) {
                new PrOutServiceActions(ctx, r, list, type).run(serviceAction);
            }
            return;
        }
        // An HA pair's LU: only the primary changes the state, and the secondary has the change
        // before the command completes (docs/ha.md, "SCSI state").
        if (!replica.acceptsChanges()) {
            ctx.fail(UnitStateReplica.refusal(ctx));
            return;
        }
        try {
            replica.change(() -> {
                synchronized (r) {
                    new PrOutServiceActions(ctx, r, list, type).run(serviceAction);
                }
            });
        } catch (UnitStateReplica.TooLarge e) {
            LOG.warn("{}: PERSISTENT RESERVE OUT refused: {}", ctx.lu().displayName(), e.getMessage());
            ctx.fail(SenseReason.INSUFFICIENT_REGISTRATION_RESOURCES); // SPC-4 5.13.7: no room for it
        } catch (StoreException e) {
            throw e; // NOT_SERVED_HERE: not acknowledged, 04/0A (the dispatcher's mapping)
        } catch (IOException e) {
            LOG.error("{}: PERSISTENT RESERVE OUT not replicated: {}", ctx.lu().displayName(), e.getMessage());
            ctx.fail(SenseReason.INTERNAL_TARGET_FAILURE);
        }
    }
}
