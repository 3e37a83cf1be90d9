package org.jtarget.scsi.sbc;

import org.jtarget.scsi.dispatch.CommandContext;
import org.jtarget.scsi.dispatch.CommandHandler;
import org.jtarget.scsi.sense.SenseReason;

/**
 * PRE-FETCH (10) and (16) (SBC-4 5.9, 5.10): asks for blocks to be brought into the cache.
 * <pre>
 * (10): 1 IMMED(1) | 2..5 LBA | 6 GROUP NUMBER | 7..8 PREFETCH LENGTH | 9 control
 * (16): 1 IMMED(1) | 2..9 LBA | 10..13 PREFETCH LENGTH | 14 GROUP NUMBER | 15 control
 * </pre>
 * The core keeps no block cache of its own (stores rely on the OS page cache), so per SBC-4 5.9
 * "the cache does not have sufficient capacity" and the answer is GOOD, never CONDITION MET
 * (libiscsi's test_prefetch*_simple expects GOOD). The range is still checked: LBA OUT OF RANGE.
 * PREFETCH LENGTH 0 means "through the last LBA"; IMMED is accepted (status is immediate anyway).
 */
public final class SbcPreFetch implements CommandHandler {

    private final boolean sixteen;

    public SbcPreFetch(boolean sixteen) {
        this.sixteen = sixteen;
    }

    @Override
    public SenseReason parse(CommandContext ctx) {
        return SbcLimits.parseRange(ctx, sixteen);
    }

    @Override
    public void execute(CommandContext ctx) {
        // nothing to load: GOOD (see the class comment)
    }
}
