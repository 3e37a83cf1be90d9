package org.jtarget.initiator.bench;

import java.util.Locale;
import org.jtarget.initiator.cli.CliFailure;

/** {@code --rw}: which directions a run issues and whether LBAs are sequential or random (fio's names). */
public enum Workload {
    READ(true, false, false),
    WRITE(false, true, false),
    RW(true, true, false),
    RANDREAD(true, false, true),
    RANDWRITE(false, true, true),
    RANDRW(true, true, true);

    private final boolean reads;
    private final boolean writes;
    private final boolean random;

    Workload(boolean reads, boolean writes, boolean random) {
        this.reads = reads;
        this.writes = writes;
        this.random = random;
    }

    /** The workload named {@code word}; a usage failure otherwise. */
    public static Workload of(String word) throws CliFailure {
        for (Workload w : values()) {
            if (w.word().equals(word)) {
                return w;
            }
        }
        throw CliFailure.usage("bad --rw '" + word + "': expected read, write, rw, randread, randwrite or randrw");
    }

    /** The option value, e.g. {@code randrw}. */
    public String word() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Whether reads and writes are mixed ({@code --rwmixread} applies). */
    public boolean mixed() {
        return reads && writes;
    }

    /** The share of reads in percent when {@code --rwmixread} is not given. */
    public int defaultReadPercent() {
        return mixed() ? 50 : reads ? 100 : 0;
    }

    public boolean random() {
        return random;
    }
}
