package org.jtarget.initiator.crashcheck;

import java.util.Locale;
import org.jtarget.initiator.cli.CliFailure;

/** How {@code crashcheck write} makes each block stable before counting it as acknowledged. */
public enum WriteMode {
    /** WRITE (10)/(16) with FUA=1 (SBC-4 5.40/5.41): GOOD status means the block is on the medium. */
    FUA,
    /** Plain WRITE, then SYNCHRONIZE CACHE (10)/(16) of that block (SBC-4 5.22/5.23); GOOD of the sync counts. */
    SYNC;

    /** The command line word. */
    public String word() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** {@code fua} or {@code sync}, else a usage failure. */
    public static WriteMode of(String word) throws CliFailure {
        for (WriteMode m : values()) {
            if (m.word().equals(word)) {
                return m;
            }
        }
        throw CliFailure.usage("bad --mode '" + word + "': expected fua or sync");
    }
}
