package org.jtarget.scsi.lun;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Which initiators may use a target and which of its LUNs each one sees (LIO's node ACLs with
 * mapped LUNs). An entry names an initiator (its iSCSI name, compared case-insensitively as
 * RFC 3722 says; for SRP its port name) or {@code "*"} for every initiator no entry names; an
 * entry without a LUN mapping sees every LUN of the target, writable; an entry with one sees
 * only the LUNs it maps, each writable or read-only. Immutable.
 *
 * @param entries the entries, at most one per initiator
 */
public record NodeAcl(List<Entry> entries) {

    /** The wildcard initiator. */
    public static final String ANY_INITIATOR = "*";

    /** Every initiator, every LUN, writable (the config's {@code acl: ["*"]}). */
    public static final NodeAcl ANY = new NodeAcl(List.of(new Entry(ANY_INITIATOR, null)));

    /**
     * One initiator's access.
     *
     * @param initiator the initiator name, or {@code "*"}
     * @param luns      LUN → read-only, or null for every LUN, writable
     */
    public record Entry(String initiator, SortedMap<Integer, Boolean> luns) {
        public Entry {
            luns = luns == null ? null : Collections.unmodifiableSortedMap(new TreeMap<>(luns));
        }

        /** Every LUN, writable. */
        public static Entry allLuns(String initiator) {
            return new Entry(initiator, null);
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
            if (e.luns() != null) {
                return false;
            }
        }
        return true;
    }
}
