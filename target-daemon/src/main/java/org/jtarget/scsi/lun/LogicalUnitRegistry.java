package org.jtarget.scsi.lun;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Every logical unit of the daemon, across all targets, found by its NAA designator (SPC-4
 * 7.8.6.6): the copy manager resolves the identification CSCD descriptors of an EXTENDED COPY
 * (SPC-4 6.4.5.x, type E4h) through it, so a copy may read or write any LU this daemon serves.
 *
 * <p>It also gives every registered LU a fixed rank: a copy that holds LBA ranges of two LUs
 * acquires them in rank order, so two copies can never wait for each other in a cycle.
 * Registration happens at wiring time; lookups are a short scan under the monitor (control path).
 */
public final class LogicalUnitRegistry {

    private final List<LogicalUnit> units = new ArrayList<>();

    /** Adds {@code lu} (idempotent). */
    public synchronized void register(LogicalUnit lu) {
        if (!units.contains(lu)) {
            units.add(lu);
        }
    }

    /** Removes {@code lu} (a target being taken down). */
    public synchronized void unregister(LogicalUnit lu) {
        units.remove(lu);
    }

    /** The LU whose 16-byte NAA designator is {@code naa[offset, offset + length)}, or null. */
    public synchronized LogicalUnit byNaa(byte[] naa, int offset, int length) {
        for (LogicalUnit lu : units) {
            byte[] own = lu.identity().naa();
            if (Arrays.equals(own, 0, own.length, naa, offset, offset + length)) {
                return lu;
            }
        }
        return null;
    }

    /** The rank of {@code lu} for lock ordering (registration order; unregistered LUs last). */
    public synchronized int rank(LogicalUnit lu) {
        int i = units.indexOf(lu);
        return i < 0 ? Integer.MAX_VALUE : i;
    }
}
