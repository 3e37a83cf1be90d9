package org.jtarget.scsi.pr;

import org.jtarget.scsi.dispatch.CommandContext;
import org.jtarget.scsi.dispatch.CommandHandler;
import org.jtarget.scsi.sense.SenseBuilder;
import org.jtarget.scsi.sense.SenseReason;

/**
 * RESERVE(6)/(10) and RELEASE(6)/(10) (SPC-2 7.19-7.22): whole-LU reservations only. Third-party
 * reservations and extents are not supported, so any of their fields set is INVALID FIELD IN CDB.
 * <pre>
 * (6)  CDB: 1 obsolete 3RDPTY/extent bits (4..0) | 2 RESERVATION ID | 3..4 EXTENT LIST LENGTH | 5 control
 * (10) CDB: 1 3RDPTY(4) LONGID(1) EXTENT(0) | 2 obsolete | 3 THIRD-PARTY DEVICE ID | 7..8 PARAMETER LIST LENGTH
 * </pre>
 */
public final class SpcReserveRelease implements CommandHandler {

    private static final int FLAGS_OFFSET = 1;
    private static final int FLAGS_6 = 0x1F;
    private static final int FLAGS_10 = 0x13;

    private final boolean reserve;
    private final boolean ten;

    /**
     * @param reserve RESERVE (else RELEASE)
     * @param ten     the 10-byte CDB (else 6)
     */
    public SpcReserveRelease(boolean reserve, boolean ten) {
        this.reserve = reserve;
        this.ten = ten;
    }

    @Override
    public SenseReason parse(CommandContext ctx) {
        byte[] cdb = ctx.cdb();
        if ((cdb[FLAGS_OFFSET] & (ten ? FLAGS_10 : FLAGS_6)) != 0) {
            return ctx.invalidCdbField(FLAGS_OFFSET, SenseBuilder.NONE);
        }
        int last = ten ? 8 : 4;
        for (int i = 2; i <= last; i++) {
            // reservation identification, third-party device id, extent/parameter list length
            if (cdb[i] != 0) {
                return ctx.invalidCdbField(i, SenseBuilder.NONE);
            }
        }
        return null;
    }

    @Override
    public void execute(CommandContext ctx) {
        Reservations r = ctx.lu().reservations();
        boolean ok = reserve ? r.reserveSpc2(ctx.cmd().nexus()) : r.releaseSpc2(ctx.cmd().nexus());
        if (!ok) {
            ctx.reservationConflict();
        }
    }
}
