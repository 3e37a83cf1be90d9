package org.jtarget.scsi.spc;

import io.netty.buffer.ByteBuf;
import org.jtarget.scsi.cdb.Cdb;
import org.jtarget.scsi.dispatch.CommandContext;
import org.jtarget.scsi.dispatch.CommandHandler;
import org.jtarget.scsi.sense.SenseReason;
import org.jtarget.scsi.spi.TmfRequest.Function;
import org.jtarget.scsi.tmf.TaskManagement;

/**
 * REPORT SUPPORTED TASK MANAGEMENT FUNCTIONS (SPC-4 6.37, MAINTENANCE IN service action 0Dh),
 * answered from {@link TaskManagement#supports} so it cannot disagree with what the core does.
 * <pre>
 * CDB:  2 REPD(7) | 6..9 ALLOCATION LENGTH
 * data: 0 ATS(7) ATSS(6) CACAS(5) CTSS(4) LURS(3) QTS(2) TRS(1) WAKES(0) | 1 QUAS(2) QTSS(1) ITNRS(0)
 *       3 ADDITIONAL DATA LENGTH (REPD=1: 0Ch, then 4 TMFTMOV(0) | 6 timeout flags | 8..15 timeouts)
 * </pre>
 * TARGET RESET (TRS) is the SAM-2 name of iSCSI's TARGET WARM RESET, which the core performs.
 * QUERY TASK / QUERY TASK SET / QUERY ASYNCHRONOUS EVENT / I_T NEXUS RESET / WAKEUP do not exist
 * in the core's function set, so their bits are zero; no TMF timeouts are reported (TMFTMOV 0).
 */
public final class SpcReportSupportedTmfs implements CommandHandler {

    private static final int REPD = 0x80;
    private static final int BASIC_LENGTH = 4;
    private static final int EXTENDED_LENGTH = 16;

    @Override
    public SenseReason parse(CommandContext ctx) {
        ctx.mode(ctx.cdb()[2] & REPD);
        return null;
    }

    @Override
    public void execute(CommandContext ctx) {
        boolean extended = ctx.mode() != 0;
        ByteBuf b = ctx.cmd().alloc().heapBuffer(EXTENDED_LENGTH);
        b.writeByte(bit(Function.ABORT_TASK, 7) | bit(Function.ABORT_TASK_SET, 6) | bit(Function.CLEAR_ACA, 5)
                | bit(Function.CLEAR_TASK_SET, 4) | bit(Function.LOGICAL_UNIT_RESET, 3)
                | bit(Function.TARGET_WARM_RESET, 1));
        b.writeByte(0); // QUAS, QTSS, ITNRS
        b.writeByte(0);
        b.writeByte(extended ? EXTENDED_LENGTH - BASIC_LENGTH : 0);
        if (extended) {
            b.writeZero(EXTENDED_LENGTH - BASIC_LENGTH); // TMFTMOV 0: no timeouts reported
        }
        ctx.respond(b, Cdb.u32(ctx.cdb(), 6));
    }

    private static int bit(Function f, int bit) {
        return TaskManagement.supports(f) ? 1 << bit : 0;
    }
}
