package org.jtarget.scsi.lun;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * Which initiators may use a target and which of its LUNs each one sees (LIO's node ACLs with
 * mapped LUNs). An entry names an initiator (its iSCSI name, compared case-insensitively as
 * RFC 3722 says; for SRP its port name) or {@code "*"} for every initiator no entry names. It
 * sees the LUNs it maps (without a mapping: every LUN of the target, also those added later),
 * and may only read those it maps read-only (WRITE and every other command that modifies the
 * medium get DATA PROTECT, WRITE PROTECTED, as on a read-only LU). Immutable.
 *
 * @param entries the entries, at most one per initiator
 */
public record NodeAcl(List<Entry> entries) {

    /** The wildcard initiator. */
    public static final String ANY_INITIATOR = "*";

    /** Every initiator, every LUN, writable (the config's {@code acl: ["*"]}). */
    public static final NodeAcl ANY = new NodeAcl(List.of(Entry.allLuns(ANY_INITIATOR)));

    /**
     * One initiator's access.
     *
     * @param initiator     the initiator name, or {@code "*"}
     * @param luns          the LUNs it sees, or null for every LUN of the target
     * @param readOnlyLuns  the LUNs it sees but may only read (empty: none)
     */
    public record Entry(String initiator, SortedSet<Integer> luns, SortedSet<Integer> readOnlyLuns) {
        public Entry {
            luns = luns == null ? null : Collections.unmodifiableSortedSet(new TreeSet<>(luns));
            readOnlyLuns = Collections.unmodifiableSortedSet(new TreeSet<>(readOnlyLuns));
        }

        /** Every LUN, writable. */
        public static Entry allLuns(String initiator) {
            return new Entry(initiator, null, new TreeSet<>());
        }

        /** True if the entry shows every LUN, writable. */
        boolean unrestricted() {
            return luns == null && readOnlyLuns.isEmpty();
        }
    }

    public NodeAcl {
        entries = List.copyOf(entries);
    }

    /** Initiators by name, every LUN writable (the config's {@code acl: ["iqn.a", "iqn.b"]}). */
    public static NodeAcl ofInitiators(List<String> names) {
        List<Entry> e = new ArrayList<>();
        for (String n : names) {
            e.add(Entry.allLuns(n));
        }
        return new NodeAcl(e);
    }

    /** True if {@code initiatorName} may log in (an entry names it, or there is a {@code "*"} entry). */
    public boolean admits(String initiatorName) {
        return entryFor(initiatorName) != null;
    }

    /** The entry that applies to {@code initiatorName}: its own, else the {@code "*"} entry, else null. */
    public Entry entryFor(String initiatorName) {
        Entry any = null;
        for (Entry e : entries) {
            if (e.initiator().equalsIgnoreCase(initiatorName)) {
                return e;
            }
            if (e.initiator().equals(ANY_INITIATOR)) {
                any = e;
            }
        }
        return any;
    }

    /** The initiator names of the entries, {@code "*"} included (what a fabric's login check lists). */
    public List<String> initiators() {
        List<String> names = new ArrayList<>();
        for (Entry e : entries) {
            names.add(e.initiator());
        }
        return names;
    }

    /**
     * True if no entry maps LUNs: every admitted initiator sees every LUN, writable, so commands
     * need no per-initiator table (an initiator that is not admitted cannot log in, and the
     * fabric ends the sessions of one an ACL change no longer admits).
     */
    boolean mapsNoLuns() {
        for (Entry e : entries) {
            if (!e.unrestricted()) {
                return false;
            }
        }
        return true;
    }
}
