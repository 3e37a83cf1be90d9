package org.jtarget.scsi.dispatch;

import org.jtarget.backstore.spi.StoreException;
import org.jtarget.scsi.sense.SenseReason;

/**
 * Maps a store's {@link StoreException.Kind} to the sense it means:
 * <ul>
 * <li>READ_ERROR (EIO on read, or a backing file that ends before the block: truncated under the
 *     store): MEDIUM ERROR / UNRECOVERED READ ERROR 11h/00h (SPC-4 Annex D);</li>
 * <li>WRITE_ERROR (EIO on write or flush): MEDIUM ERROR / WRITE ERROR 0Ch/00h;</li>
 * <li>SPACE_EXHAUSTED (ENOSPC, quota, the memory limit): on a thin LU DATA PROTECT / SPACE
 *     ALLOCATION FAILED WRITE PROTECT 27h/07h (SBC-4 4.7.3.6); a fully provisioned LU has no
 *     provisioning to fail, so there it is a plain WRITE ERROR;</li>
 * <li>MEDIUM_GONE (backing file deleted or replaced): NOT READY / LOGICAL UNIT NOT READY, CAUSE
 *     NOT REPORTABLE 04h/00h, the same sense the offline LU gives afterwards
 *     ({@link org.jtarget.scsi.lun.MediumState#accessError}).</li>
 * <li>NOT_SERVED_HERE (an HA node that is not the primary, SPC-4 5.15.2.4.6): NOT READY / LOGICAL
 *     UNIT NOT ACCESSIBLE, ASYMMETRIC ACCESS STATE TRANSITION 04h/0Ah.</li>
 * </ul>
 */
final class StoreErrors {

    private StoreErrors() {
    }

    static SenseReason reasonFor(StoreException.Kind kind, CommandContext ctx) {
        return switch (kind) {
            case READ_ERROR -> SenseReason.UNRECOVERED_READ_ERROR;
            case WRITE_ERROR -> SenseReason.WRITE_ERROR;
            // SBC-4 4.7.3.6: a thin LU out of space reports SPACE ALLOCATION FAILED WRITE PROTECT
            case SPACE_EXHAUSTED -> ctx.lu() != null && ctx.lu().info().thin()
                    ? SenseReason.SPACE_ALLOCATION_FAILED_WRITE_PROTECT : SenseReason.WRITE_ERROR;
            case MEDIUM_GONE -> SenseReason.NOT_READY_CAUSE_NOT_REPORTABLE;
            case NOT_SERVED_HERE -> SenseReason.LU_NOT_ACCESSIBLE_ASYMMETRIC_ACCESS_STATE_TRANSITION;
        };
    }
}
