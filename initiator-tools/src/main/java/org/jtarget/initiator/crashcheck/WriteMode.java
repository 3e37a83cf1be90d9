package org.jtarget.initiator.crashcheck;

import java.util.Locale;
import org.jtarget.initiator.cli.CliFailure;

/** How {@code crashcheck write} makes each block stable before counting it as acknowledged. */
public enum WriteMode {
    /** WRITE (10)/(16) with FUA=1 (SBC-4 5.40/5.41): GOOD status means the block is on the medium. */
    FUA,
    /** Plain WRITE, then SYNCHRONIZE CACHE (10)/(16) of that block (SBC-4 5.22/5.23); GOOD of the sync counts. */
    SYNC,
    /**
     * Plain WRITE (FUA=0), nothing else: relies on the LUN's write cache being off (caching mode page
     * WCE=0, SBC-4 6.5.5), under which the device server must make every write stable before GOOD.
     * The writer reads the caching page first and refuses to run when it reports WCE=1, where a plain
     * WRITE's GOOD promises nothing about a crash. Declared last: the journal stores the ordinal.
     */
    NONE;

    /** The command line word. */
    public String word() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** {@code fua}, {@code sync} or {@code none}, else a usage failure. */
    public static WriteMode of(String word) throws CliFailure {
        for (WriteMode m : values()) {
            if (m.word().equals(word)) {
                return m;
            }
        }
        throw CliFailure.usage("bad --mode '" + word + "': expected fua, sync or none");
    }
}
