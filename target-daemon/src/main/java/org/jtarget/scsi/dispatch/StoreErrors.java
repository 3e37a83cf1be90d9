package org.jtarget.scsi.dispatch;

import org.jtarget.backstore.spi.StoreException;
import org.jtarget.scsi.sense.SenseReason;

/** Maps a store's {@link StoreException.Kind} to the sense it means (SBC-4 4.x error reporting). */
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
        };
    }
}
