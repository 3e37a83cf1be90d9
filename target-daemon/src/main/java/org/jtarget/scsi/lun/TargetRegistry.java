package org.jtarget.scsi.lun;

import org.jtarget.io.LunIoExecutors;
import org.jtarget.scsi.alua.TargetPortGroups;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The one owner of the daemon's live targets, their logical units and node ACLs, and the names
 * of the portals each target is reachable through. Fabrics look a target up here when an
 * initiator logs in (they hold no copy); management, metrics and HA change it here and observe
 * it through {@link Listener}s.
 *
 * <p>Threading: changes are serialised on this object's monitor (control path); readers on the
 * event loops never lock: the target map is an immutable snapshot swapped with one volatile
 * write, and each target's LUN table is published the same way by its {@link ScsiTargetCore}.
 *
 * <p>EXTENDED COPY's {@link LogicalUnitRegistry} (NAA lookup and lock ranks) stays a separate,
 * smaller index that this registry keeps in sync: every LU a core adds or removes is
 * (un)registered there, and its registration order is the lock rank copies rely on, which a
 * snapshot of this registry could not keep stable.
 */
public final class TargetRegistry {

    /**
     * A live target.
     *
     * @param name         the target's SCSI name (iSCSI: its IQN)
     * @param core         its SCSI core (LUN table, ACL, task management)
     * @param portalNames  the portals it is reachable through; empty = every portal
     * @param fabricSettings what fabrics need besides the core, by type (iSCSI: alias, CHAP)
     */
    public record Target(String name, ScsiTargetCore core, List<String> portalNames,
                         Map<Class<?>, Object> fabricSettings) {
        public Target {
            portalNames = List.copyOf(portalNames);
            fabricSettings = Map.copyOf(fabricSettings);
        }

        /** The settings object of {@code type} a fabric stored with the target, or null. */
        public <T> T fabricSettings(Class<T> type) {
            return type.cast(fabricSettings.get(type));
        }

        /** True if the target is reachable through portal {@code portalName}. */
        public boolean reachableThrough(String portalName) {
            return portalNames.isEmpty() || portalNames.contains(portalName);
        }
    }

    /**
     * What a new target is made of.
     *
     * @param name           the target's SCSI name
     * @param luns           its logical units
     * @param acl            who may use it and which LUNs each initiator sees
     * @param portGroups     its target port groups (ALUA)
     * @param portalNames    the portals it is reachable through; empty = every portal
     * @param fabricSettings fabric settings by type (see {@link Target#fabricSettings(Class)})
     */
    public record TargetSpec(String name, List<LogicalUnitDefinition> luns, NodeAcl acl,
                             TargetPortGroups portGroups, List<String> portalNames,
                             Map<Class<?>, Object> fabricSettings) {
    }

    /** Observes changes; called on the thread that made the change, after it is visible. */
    public interface Listener {
        default void targetAdded(Target target) {
        }

        /** The target is gone from lookups; {@link #lunRemoved} follows for each of its LUs. */
        default void targetRemoved(Target target) {
        }

        default void lunAdded(Target target, LogicalUnit lu) {
        }

        /** The LU is gone from the target's table; commands already running on it may still end. */
        default void lunRemoved(Target target, LogicalUnit lu) {
        }

        default void aclChanged(Target target, NodeAcl acl) {
        }
    }

    private final LunIoExecutors executors;
    private final Path stateDir;
    private final LogicalUnitRegistry logicalUnits = new LogicalUnitRegistry();
    private final List<Listener> listeners = new CopyOnWriteArrayList<>();
    /** Name → target, in the order added; immutable, replaced on every change. */
    private volatile Map<String, Target> targets = Map.of();

    /**
     * @param executors gives each new LU its I/O executor
     * @param stateDir  the daemon's state directory (persistent reservations), or null
     */
    public TargetRegistry(LunIoExecutors executors, Path stateDir) {
        this.executors = executors;
        this.stateDir = stateDir;
    }

    /** Adds {@code l}; it sees the changes made after this call. */
    public void addListener(Listener l) {
        listeners.add(l);
    }

    public void removeListener(Listener l) {
        listeners.remove(l);
    }

    /** The daemon-wide index of LUs for EXTENDED COPY, kept in sync with the targets here. */
    public LogicalUnitRegistry logicalUnits() {
        return logicalUnits;
    }

    /** The live target named {@code name} (case-insensitive, RFC 3722), or null. Lock-free. */
    public Target target(String name) {
        Target t = targets.get(name);
        if (t != null) {
            return t;
        }
        for (Target each : targets.values()) {
            if (each.name().equalsIgnoreCase(name)) {
                return each;
            }
        }
        return null;
    }

    /** Every live target, in the order added. Lock-free snapshot. */
    public Collection<Target> targets() {
        return targets.values();
    }

    /** Creates the target's core and makes it live. */
    public synchronized Target addTarget(TargetSpec spec) {
        if (target(spec.name()) != null) {
            throw new IllegalArgumentException("target " + spec.name() + " exists already");
        }
        ScsiTargetCore core = new ScsiTargetCore(spec.name(), spec.luns(), executors, stateDir, spec.portGroups(),
                logicalUnits, spec.acl());
        Target t = new Target(spec.name(), core, spec.portalNames(), spec.fabricSettings());
        Map<String, Target> next = new LinkedHashMap<>(targets);
        next.put(t.name(), t);
        targets = java.util.Collections.unmodifiableMap(next);
        listeners.forEach(l -> l.targetAdded(t));
        return t;
    }

    /**
     * Takes a target out of lookups (listeners end its sessions) and removes its LUs.
     *
     * @return null if there is no such target, else completed with its LUs once each one's last
     *         command has ended
     */
    public synchronized CompletableFuture<List<LogicalUnit>> removeTarget(String name) {
        Target t = target(name);
        if (t == null) {
            return null;
        }
        Map<String, Target> next = new LinkedHashMap<>(targets);
        next.remove(t.name());
        targets = java.util.Collections.unmodifiableMap(next);
        listeners.forEach(l -> l.targetRemoved(t));
        List<CompletableFuture<LogicalUnit>> drains = new ArrayList<>();
        for (LogicalUnit lu : t.core().logicalUnits()) {
            drains.add(drained(t.core().removeLogicalUnit(lu.lun())));
            listeners.forEach(l -> l.lunRemoved(t, lu));
        }
        return CompletableFuture.allOf(drains.toArray(CompletableFuture[]::new))
                .thenApply(v -> drains.stream().map(CompletableFuture::join).toList());
    }

    /**
     * Maps a new LU into a live target: every nexus of the target gets REPORTED LUNS DATA HAS
     * CHANGED; sessions of other targets are untouched.
     *
     * @throws IllegalArgumentException if there is no such target or the LUN is taken
     */
    public synchronized LogicalUnit addLun(String targetName, LogicalUnitDefinition lun) {
        Target t = existing(targetName);
        LogicalUnit lu = t.core().addLogicalUnit(lun);
        listeners.forEach(l -> l.lunAdded(t, lu));
        return lu;
    }

    /**
     * Unmaps a LU from a live target: commands from now on get LOGICAL UNIT NOT SUPPORTED, the
     * ones in flight end normally, every nexus gets REPORTED LUNS DATA HAS CHANGED.
     *
     * @return completed with the LU once its last command has ended: only then may its store be
     *         closed
     * @throws IllegalArgumentException if there is no such target or LUN
     */
    public synchronized CompletableFuture<LogicalUnit> removeLun(String targetName, int lun) {
        Target t = existing(targetName);
        LogicalUnit lu = t.core().logicalUnit(lun);
        CompletableFuture<LogicalUnit> drained = t.core().removeLogicalUnit(lun);
        if (drained == null) {
            throw new IllegalArgumentException("target " + targetName + " has no LUN " + lun);
        }
        listeners.forEach(l -> l.lunRemoved(t, lu));
        return drained(drained);
    }

    /** Once a removed LU has no command left, its I/O threads are let go too. */
    private CompletableFuture<LogicalUnit> drained(CompletableFuture<LogicalUnit> drain) {
        return drain.thenApply(lu -> {
            executors.retire(lu.ioExecutor());
            return lu;
        });
    }

    /**
     * Every live LU on {@code store} (the same instance) takes its new size after the store grew:
     * READ CAPACITY answers it and each of their I_T nexuses gets CAPACITY DATA HAS CHANGED.
     *
     * @return how many LUs that was
     */
    public synchronized int capacityChanged(org.jtarget.backstore.spi.Backstore store) {
        int changed = 0;
        for (Target t : targets.values()) {
            for (LogicalUnit lu : t.core().logicalUnits()) {
                if (lu.store() == store) {
                    lu.capacityChanged();
                    changed++;
                }
            }
        }
        return changed;
    }

    /** Replaces a live target's node ACL (listeners end sessions it no longer admits). */
    public synchronized void changeAcl(String targetName, NodeAcl acl) {
        Target t = existing(targetName);
        t.core().changeAcl(Objects.requireNonNull(acl));
        listeners.forEach(l -> l.aclChanged(t, acl));
    }

    /**
     * Replaces what fabrics read at login for a live target: the portals it is reachable through
     * and its fabric settings (iSCSI alias and CHAP). One volatile write swaps the target map, so
     * a login sees the old settings or the new ones, never a mix; sessions already logged in keep
     * running (they hold the core, not these settings).
     *
     * @return the target as it now is
     * @throws IllegalArgumentException if there is no such target
     */
    public synchronized Target changeSettings(String targetName, List<String> portalNames,
                                              Map<Class<?>, Object> fabricSettings) {
        Target old = existing(targetName);
        Target t = new Target(old.name(), old.core(), portalNames, fabricSettings);
        Map<String, Target> next = new LinkedHashMap<>(targets);
        next.put(t.name(), t);
        targets = java.util.Collections.unmodifiableMap(next);
        return t;
    }

    private Target existing(String targetName) {
        Target t = target(targetName);
        if (t == null) {
            throw new IllegalArgumentException("no target " + targetName);
        }
        return t;
    }
}
