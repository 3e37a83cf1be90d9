package org.jtarget.scsi.alua;

import java.util.List;

/**
 * The target port groups of one SCSI target and their asymmetric access states (SPC-4 5.15):
 * every logical unit of the target shares them. Groups are the iSCSI target portal groups; a
 * group the configuration did not name (a core built without one) is added, active/optimized,
 * when a nexus first logs in through it.
 *
 * <p>Readers (the command gate, on every command) see an immutable array through one volatile
 * read; changes are rare control-path events, made under this object's lock, that replace the
 * array. Unit attentions for a change are the owner's job ({@code ScsiTargetCore}), which knows
 * the logical units and nexuses.
 */
public final class TargetPortGroups {

    private volatile TargetPortGroup[] groups;
    private volatile boolean allActive;
    private final int implicitTransitionSeconds;
    private final boolean explicitChanges;

    /** No group yet: groups appear as nexuses log in ({@link #ensureGroup}). */
    public TargetPortGroups() {
        this(List.of());
    }

    /** The given groups, ascending by id (distinct ids); initiators may change them (SET TARGET PORT GROUPS). */
    public TargetPortGroups(List<TargetPortGroup> initial) {
        this(initial, true);
    }

    /**
     * The given groups, ascending by id (distinct ids).
     *
     * @param explicitChanges whether initiators may change the states with SET TARGET PORT GROUPS
     *                        (INQUIRY TPGS 11b); false where the target alone decides them (TPGS
     *                        01b, implicit only: an HA node, whose states are its role in the pair)
     */
    public TargetPortGroups(List<TargetPortGroup> initial, boolean explicitChanges) {
        this.explicitChanges = explicitChanges;
        TargetPortGroup[] g = initial.toArray(new TargetPortGroup[0]);
        java.util.Arrays.sort(g, (a, b) -> Integer.compare(a.id(), b.id()));
        for (int i = 1; i < g.length; i++) {
            if (g[i].id() == g[i - 1].id()) {
                throw new IllegalArgumentException("target port group " + g[i].id() + " defined twice");
            }
        }
        this.implicitTransitionSeconds = 0; // transitions are immediate
        publish(g);
    }

    /** Every group, ascending by id (a snapshot). */
    public TargetPortGroup[] groups() {
        return groups.clone();
    }

    /** The group {@code id}, or null. */
    public TargetPortGroup group(int id) {
        for (TargetPortGroup g : groups) {
            if (g.id() == id) {
                return g;
            }
        }
        return null;
    }

    /**
     * The access state of the group {@code id} (the gate's check): active/optimized when every
     * group is active or the group is unknown. No allocation.
     */
    public AluaState stateOf(int id) {
        if (allActive) {
            return AluaState.ACTIVE_OPTIMIZED;
        }
        TargetPortGroup[] g = groups;
        for (int i = 0; i < g.length; i++) {
            if (g[i].id() == id) {
                return g[i].state();
            }
        }
        return AluaState.ACTIVE_OPTIMIZED;
    }

    /** Whether SET TARGET PORT GROUPS may change the states (explicit ALUA, SPC-4 5.15.2.3). */
    public boolean explicitChanges() {
        return explicitChanges;
    }

    /** IMPLICIT TRANSITION TIME (SPC-4 6.27 extended header): seconds, 0 = unspecified/immediate. */
    public int implicitTransitionSeconds() {
        return implicitTransitionSeconds;
    }

    /** Adds group {@code id} (active/optimized, one port with relative id = {@code id}) if it is unknown. */
    public synchronized void ensureGroup(int id) {
        if (id < 1 || id > 0xFFFF || group(id) != null) {
            return;
        }
        TargetPortGroup[] old = groups;
        TargetPortGroup[] g = java.util.Arrays.copyOf(old, old.length + 1);
        g[old.length] = TargetPortGroup.of(id, AluaState.ACTIVE_OPTIMIZED, false);
        java.util.Arrays.sort(g, (a, b) -> Integer.compare(a.id(), b.id()));
        publish(g);
    }

    /**
     * Makes the groups exactly {@code wanted}'s ids (a reload changed the portals of the target):
     * a group not wanted goes, a wanted one that is missing is added as given; a group kept keeps
     * its state and PREF, which only {@link #changeState} and {@link #changePreferred} change.
     *
     * @return true if a group was added or removed
     */
    public synchronized boolean retainExactly(List<TargetPortGroup> wanted) {
        java.util.Map<Integer, TargetPortGroup> next = new java.util.TreeMap<>();
        for (TargetPortGroup w : wanted) {
            TargetPortGroup kept = group(w.id());
            next.put(w.id(), kept != null ? kept : w);
        }
        if (next.size() == groups.length && java.util.Arrays.stream(groups).allMatch(g -> next.containsKey(g.id()))) {
            return false;
        }
        publish(next.values().toArray(new TargetPortGroup[0]));
        return true;
    }

    /**
     * Sets the PREF bit of group {@code id} (SPC-4 6.27): a hint to initiators, not an access
     * state, so no state changes and nobody is told.
     *
     * @return false if there is no group {@code id}
     */
    public synchronized boolean changePreferred(int id, boolean preferred) {
        TargetPortGroup[] g = groups.clone();
        for (int i = 0; i < g.length; i++) {
            if (g[i].id() == id) {
                g[i] = g[i].withPreferred(preferred);
                publish(g);
                return true;
            }
        }
        return false;
    }

    /**
     * Moves group {@code id} to {@code state} (SPC-4 5.15.2.5: immediately, no transitioning
     * state in between). A change to the state it already has changes nothing and tells nobody.
     *
     * @param explicit true for SET TARGET PORT GROUPS (STATUS CODE 01h), false for an implicit
     *                 change by the target (02h)
     * @return the group after the change, or null if there is no group {@code id}
     * @throws IllegalArgumentException if {@code explicit} and {@code state} is TRANSITIONING
     */
    public synchronized TargetPortGroup changeState(int id, AluaState state, boolean explicit) {
        if (explicit && state == AluaState.TRANSITIONING) {
            throw new IllegalArgumentException("SET TARGET PORT GROUPS cannot request transitioning");
        }
        TargetPortGroup[] g = groups.clone();
        for (int i = 0; i < g.length; i++) {
            if (g[i].id() == id) {
                if (g[i].state() == state) {
                    return g[i];
                }
                g[i] = g[i].withState(state, explicit ? TargetPortGroup.STATUS_EXPLICIT
                        : TargetPortGroup.STATUS_IMPLICIT);
                publish(g);
                return g[i];
            }
        }
        return null;
    }

    private void publish(TargetPortGroup[] g) {
        boolean active = true;
        for (TargetPortGroup t : g) {
            active &= t.state().active();
        }
        groups = g;
        allActive = active;
    }
}
