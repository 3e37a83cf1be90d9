package org.jtarget.scsi.lun;

import java.util.Arrays;
import java.util.Set;

/**
 * An immutable LUN table: the logical units one initiator sees through a target, by LUN, and
 * which of them it may only read (a read-only mapping, LIO's "mapped LUN" with write protect).
 * Tables are replaced, never changed, so the event loops read them without a lock: a command
 * looks its LU up in the table current when it arrives.
 */
public final class LunTable {

    static final LunTable EMPTY = new LunTable(new LogicalUnit[0], new int[0], null);

    private final LogicalUnit[] byLun;
    private final int[] numbers;
    /** Indexed by LUN; null when every LU of the table is writable. */
    private final boolean[] readOnly;

    private LunTable(LogicalUnit[] byLun, int[] numbers, boolean[] readOnly) {
        this.byLun = byLun;
        this.numbers = numbers;
        this.readOnly = readOnly;
    }

    /** The LU at {@code lun}, or null. */
    public LogicalUnit get(int lun) {
        return lun >= 0 && lun < byLun.length ? byLun[lun] : null;
    }

    /** True if {@code lun} is mapped read-only in this table. */
    public boolean readOnly(int lun) {
        return readOnly != null && lun >= 0 && lun < readOnly.length && readOnly[lun];
    }

    /** The LUN numbers, ascending; shared, do not modify. */
    int[] numbers() {
        return numbers;
    }

    /** A copy of the LUN numbers, ascending. */
    public int[] lunNumbers() {
        return numbers.clone();
    }

    /** Every LU, by ascending LUN. */
    LogicalUnit[] units() {
        LogicalUnit[] r = new LogicalUnit[numbers.length];
        for (int i = 0; i < r.length; i++) {
            r[i] = byLun[numbers[i]];
        }
        return r;
    }

    /** This table with {@code lu} added at its LUN (which must be free). */
    LunTable with(LogicalUnit lu) {
        if (get(lu.lun()) != null) {
            throw new IllegalArgumentException("LUN " + lu.lun() + " is already mapped");
        }
        LogicalUnit[] b = Arrays.copyOf(byLun, Math.max(byLun.length, lu.lun() + 1));
        b[lu.lun()] = lu;
        return of(b, null);
    }

    /** This table without LUN {@code lun}. */
    LunTable without(int lun) {
        LogicalUnit[] b = byLun.clone();
        b[lun] = null;
        return of(b, null);
    }

    /**
     * What an initiator sees of this table: the LUNs in {@code visible} (null: every LUN), those
     * in {@code readOnly} read-only. LUNs it names that this table lacks are left out (they
     * appear once added).
     */
    LunTable masked(Set<Integer> visible, Set<Integer> readOnly) {
        LogicalUnit[] b = new LogicalUnit[byLun.length];
        boolean[] ro = new boolean[byLun.length];
        for (int lun : numbers) {
            if (visible == null || visible.contains(lun)) {
                b[lun] = byLun[lun];
                ro[lun] = readOnly.contains(lun);
            }
        }
        return of(b, ro);
    }

    private static LunTable of(LogicalUnit[] byLun, boolean[] readOnly) {
        int[] numbers = new int[byLun.length];
        int n = 0;
        for (int i = 0; i < byLun.length; i++) {
            if (byLun[i] != null) {
                numbers[n++] = i;
            }
        }
        return new LunTable(byLun, Arrays.copyOf(numbers, n), readOnly);
    }
}
