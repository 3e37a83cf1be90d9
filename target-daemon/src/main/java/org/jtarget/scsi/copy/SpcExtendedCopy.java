package org.jtarget.scsi.copy;

import io.netty.buffer.ByteBuf;
import org.jtarget.scsi.cdb.Cdb;
import org.jtarget.scsi.dispatch.CommandContext;
import org.jtarget.scsi.dispatch.CommandHandler;
import org.jtarget.scsi.lun.LogicalUnit;
import org.jtarget.scsi.pr.ReservationRule;
import org.jtarget.scsi.sense.SenseReason;
import org.jtarget.scsi.spi.ITNexus;

/**
 * EXTENDED COPY(LID1) (SPC-4 6.4; the SPC-3 EXTENDED COPY that VMware VAAI "XCOPY" uses): the
 * logical unit receiving it is the copy manager and copies blocks between any logical units of
 * this daemon, named by identification CSCD descriptors (E4h, NAA designator from VPD 83h), with
 * block-to-block segment descriptors (02h).
 * <pre>
 * 0 83h | 1 SERVICE ACTION (00h) | 2..9 reserved | 10..13 PARAMETER LIST LENGTH | 14 reserved | 15 CONTROL
 * </pre>
 * Everything is checked before the first block moves: the parameter list ({@link CopyParameterList}),
 * every segment against its copy targets, write protection (DATA PROTECT) and reservations of the
 * destination (treated as a WRITE) and of the source (as a READ). The copy itself is a
 * {@link CopyJob} on the I/O executors; its status is kept for RECEIVE COPY RESULTS.
 */
public final class SpcExtendedCopy implements CommandHandler {

    private static final int PARAMETER_LIST_LENGTH_OFFSET = 10;

    @Override
    public SenseReason parse(CommandContext ctx) {
        long length = Cdb.u32(ctx.cdb(), PARAMETER_LIST_LENGTH_OFFSET);
        if (length == 0) {
            return null; // SPC-4 6.4.1: zero is not an error; nothing is copied
        }
        long max = CopyParameterList.HEADER_LENGTH + CopyLimits.MAX_DESCRIPTOR_LIST_LENGTH
                + CopyLimits.MAX_INLINE_DATA_LENGTH;
        if (length < CopyParameterList.HEADER_LENGTH || length > max) {
            return SenseReason.PARAMETER_LIST_LENGTH_ERROR; // before any data-out is fetched
        }
        ctx.cmd().dataOutLength((int) length);
        return null;
    }

    @Override
    public void execute(CommandContext ctx) {
        ByteBuf data = ctx.cmd().dataOut();
        if (ctx.cmd().dataOutLength() == 0 || data == null) {
            return;
        }
        CopyParameterList list = new CopyParameterList();
        SenseReason bad = list.parse(data, ctx.target().registry(), ctx);
        if (bad != null) {
            ctx.fail(bad); // SPC-4 5.16.7.3: nothing started, no status held
            return;
        }
        CopyResults results = ctx.lu().copyResults();
        CopyResults.Entry entry = null;
        if (list.listIdUsage != CopyParameterList.USAGE_NO_LIST_ID) {
            entry = results.start(ctx.cmd().nexus(), list.listId,
                    list.listIdUsage == CopyParameterList.USAGE_HOLD);
            if (entry == null) {
                ctx.fail(SenseReason.OPERATION_IN_PROGRESS); // SPC-4 6.4.3.2: list identifier in use
                return;
            }
        }
        bad = list.checkSegments(ctx);
        if (bad == null) {
            bad = writeProtected(list);
        }
        if (bad != null || reservationConflict(ctx, list)) {
            results.finish(entry, false); // COPY STATUS: completed unsuccessfully, 0 segments
            if (bad != null) {
                ctx.fail(bad);
            } else {
                ctx.reservationConflict();
            }
            return;
        }
        if (list.segments.isEmpty()) {
            results.finish(entry, true);
            return;
        }
        CopyJob job = new CopyJob(ctx, list, ctx.target().registry(), results, entry);
        ctx.detach(job::start);
    }

    /** A destination that refuses writes: DATA PROTECT / WRITE PROTECTED, as a WRITE would get. */
    private static SenseReason writeProtected(CopyParameterList list) {
        for (CopyParameterList.Segment s : list.segments) {
            SenseReason protection = list.lu(s.destinationIndex()).writeProtection();
            if (protection != null) {
                return protection;
            }
        }
        return null;
    }

    /**
     * True if another nexus's reservation forbids the copy: the destination is written (like a
     * WRITE: {@code CONFLICT}), the source read (like a READ: {@code MEDIUM_READ}); SPC-4 table
     * 72, SBC-4 4.17. The copy manager LU itself was checked by the gate.
     */
    private static boolean reservationConflict(CommandContext ctx, CopyParameterList list) {
        ITNexus nexus = ctx.cmd().nexus();
        for (CopyParameterList.Segment s : list.segments) {
            LogicalUnit src = list.lu(s.sourceIndex());
            LogicalUnit dst = list.lu(s.destinationIndex());
            if (dst.reservations().conflicts(nexus, ReservationRule.CONFLICT, ctx.cdb())
                    || src.reservations().conflicts(nexus, ReservationRule.MEDIUM_READ, ctx.cdb())) {
                return true;
            }
        }
        return false;
    }


}
