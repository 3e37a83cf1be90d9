package org.jtarget.daemon;

import org.jtarget.config.BackstoreConfig;
import org.jtarget.config.ConfigException;
import org.jtarget.config.JtargetConfig;
import org.jtarget.config.LunConfig;
import org.jtarget.config.PortalConfig;
import org.jtarget.config.TargetConfig;
import org.jtarget.units.ByteSize;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What a config reload (SIGHUP, {@code POST /api/v1/reload}, a live edit) changes, found by
 * comparing the running config with the new one: targets added or removed; for a kept target,
 * LUNs added or removed, its ACL, and its {@code alias}, {@code chap} and {@code portals} (what
 * the next login reads); the backstores that appear or disappear with them; {@code portals[]}
 * added or removed (a kept name whose {@code listen}, {@code transport} or
 * {@code portal-group-tag} changes is removed and added again); and the {@code alua-state} and
 * {@code alua-preferred} of a kept target port group; and kept file and memory stores whose
 * {@code size} grew (resized live, {@link #resizedBackstores}; a smaller size, a block device or a
 * partition is refused naming {@code backstores[i].size}). Everything else needs a restart: daemon
 * settings, the {@code rdma}, {@code ha} and {@code management} sections, a kept backstore's
 * other keys, a kept target's SRP target port identifier (its channels are keyed by it), a kept
 * LUN's settings, and on an HA node the ALUA keys and the set of portal group tags (the node's
 * states are its role in the pair). {@link #between} refuses those with one line naming the
 * first such key, and nothing is changed.
 *
 * @param addedTargets      targets of the new config only
 * @param removedTargets    names of targets of the running config only
 * @param addedLuns         kept target name → its new LUNs
 * @param removedLuns       kept target name → the LUN numbers it loses
 * @param aclChanged        kept targets whose {@code acl} differs, as in the new config
 * @param addedBackstores   backstore names of the new config only
 * @param removedBackstores backstore names of the running config only
 * @param settingsChanged   kept targets, as in the new config, whose alias, CHAP, portals or the
 *                          port group tags of those portals differ
 * @param addedPortals      portals to listen on anew, with their index in the new config
 * @param removedPortals    portals of the running config to stop listening on
 * @param aluaChanged       per target port group whose ALUA keys changed: its first portal in the
 *                          new config, with that portal's index
 * @param resizedBackstores kept store name → its new, larger size in bytes (file, encrypted file, memory)
 */
record ConfigChanges(List<TargetConfig> addedTargets, List<String> removedTargets,
                     Map<String, List<LunConfig>> addedLuns, Map<String, List<Integer>> removedLuns,
                     List<TargetConfig> aclChanged, Set<String> addedBackstores, Set<String> removedBackstores,
                     List<TargetConfig> settingsChanged, List<IndexedPortal> addedPortals,
                     List<PortalConfig> removedPortals, List<IndexedPortal> aluaChanged,
                     Map<String, Long> resizedBackstores) {

    /** A portal and its index in {@code portals[]} of the config it is from (for the key of an error). */
    record IndexedPortal(int index, PortalConfig portal) {
    }

    private static final String RESTART = "changed; a reload (SIGHUP) applies targets, LUNs, ACLs and backstores "
            + "added or removed, a target's alias, chap and portals, portals added or removed, ALUA states and "
            + "a larger size of a file or memory store: "
            + "restart the daemon for this";

    private static final String HA_ROLES = "changed, but this node is in an HA pair (ha:): its target port groups' "
            + "states are its role in the pair; change it in both files and restart both nodes";

    /** True if the new config changes nothing a reload applies. */
    boolean isEmpty() {
        return addedTargets.isEmpty() && removedTargets.isEmpty() && addedLuns.isEmpty() && removedLuns.isEmpty()
                && aclChanged.isEmpty() && addedBackstores.isEmpty() && removedBackstores.isEmpty()
                && settingsChanged.isEmpty() && addedPortals.isEmpty() && removedPortals.isEmpty()
                && aluaChanged.isEmpty()
                && resizedBackstores.isEmpty();
    }

    /** One line for the log: what the reload does. */
    String summary() {
        List<String> parts = new ArrayList<>();
        addedTargets.forEach(t -> parts.add("+target " + t.iqn()));
        removedTargets.forEach(t -> parts.add("-target " + t));
        addedLuns.forEach((t, luns) -> luns.forEach(l -> parts.add("+" + t + " LUN " + l.lun())));
        removedLuns.forEach((t, luns) -> luns.forEach(l -> parts.add("-" + t + " LUN " + l)));
        aclChanged.forEach(t -> parts.add("acl of " + t.iqn()));
        addedBackstores.forEach(b -> parts.add("+backstore " + b));
        removedBackstores.forEach(b -> parts.add("-backstore " + b));
        resizedBackstores.forEach((b, size) -> parts.add("backstore " + b + " grown to " + ByteSize.format(size)));
        settingsChanged.forEach(t -> parts.add("settings of " + t.iqn()));
        removedPortals.forEach(p -> parts.add("-portal " + p.name()));
        addedPortals.forEach(p -> parts.add("+portal " + p.portal().name()));
        aluaChanged.forEach(p -> parts.add("alua of group " + p.portal().portalGroupTag()));
        return parts.isEmpty() ? "no change" : String.join(", ", parts);
    }

    /**
     * The changes from {@code now} to {@code next} (both valid configs).
     *
     * @throws ConfigException naming the first key whose change needs a restart
     */
    static ConfigChanges between(JtargetConfig now, JtargetConfig next) throws ConfigException {
        String source = next.source().toString();
        requireSame(source, "daemon", now.daemon(), next.daemon());
        requireSame(source, "rdma", now.rdma(), next.rdma());
        requireSame(source, "ha", now.ha(), next.ha());
        requireSame(source, "management", now.management(), next.management());
        Set<String> addedStores = new LinkedHashSet<>();
        Map<String, Long> resized = new LinkedHashMap<>();
        for (int i = 0; i < next.backstores().size(); i++) {
            BackstoreConfig b = next.backstores().get(i);
            BackstoreConfig before = backstore(now, b.name());
            if (before == null) {
                addedStores.add(b.name());
            } else if (now.ha() != null && now.ha().backstores().contains(b.name()) && !before.equals(b)) {
                // a replicated store's geometry is checked against the peer's at each handshake: a
                // node restarted alone with a new size would make the pair refuse to serve
                throw new ConfigException(source, "backstores[" + i + "]", "changed, but " + b.name()
                        + " is replicated by the HA pair (ha.backstores): to resize it, stop both nodes, change it "
                        + "in both files, start both");
            } else if (!before.equals(b)) {
                resized.put(b.name(), grownSize(source, "backstores[" + i + "]", before, b));
            }
        }
        Set<String> removedStores = new LinkedHashSet<>();
        for (BackstoreConfig b : now.backstores()) {
            if (backstore(next, b.name()) == null) {
                removedStores.add(b.name());
            }
        }
        List<TargetConfig> addedTargets = new ArrayList<>();
        Map<String, List<LunConfig>> addedLuns = new LinkedHashMap<>();
        Map<String, List<Integer>> removedLuns = new LinkedHashMap<>();
        List<TargetConfig> aclChanged = new ArrayList<>();
        List<TargetConfig> settingsChanged = new ArrayList<>();
        for (int i = 0; i < next.targets().size(); i++) {
            TargetConfig t = next.targets().get(i);
            TargetConfig before = target(now, t.iqn());
            if (before == null) {
                addedTargets.add(t);
                continue;
            }
            String key = "targets[" + i + "]";
            requireSame(source, key + ".srp", before.srp(), t.srp());
            if (now.ha() != null && !tags(now, before).equals(tags(next, t))) {
                throw new ConfigException(source, key + ".portals", "portal-group-tags " + HA_ROLES);
            }
            if (!Objects.equals(before.alias(), t.alias()) || !Objects.equals(before.chap(), t.chap())
                    || !before.portalNames().equals(t.portalNames()) || !tags(now, before).equals(tags(next, t))) {
                settingsChanged.add(t);
            }
            lunChanges(source, key, before, t, addedLuns, removedLuns);
            if (!before.acl().equals(t.acl())) {
                aclChanged.add(t);
            }
        }
        List<String> removedTargets = new ArrayList<>();
        for (TargetConfig t : now.targets()) {
            if (target(next, t.iqn()) == null) {
                removedTargets.add(t.iqn());
            }
        }
        List<IndexedPortal> addedPortals = new ArrayList<>();
        List<PortalConfig> removedPortals = new ArrayList<>();
        portalChanges(now, next, addedPortals, removedPortals);
        return new ConfigChanges(addedTargets, removedTargets, addedLuns, removedLuns, aclChanged, addedStores,
                removedStores, settingsChanged, addedPortals, removedPortals, aluaChanges(now, next), resized);
    }

    /**
     * The new size of a kept store whose only change is a larger {@code size}: it grows live. A
     * smaller size is refused (the blocks past the new end hold data initiators wrote), and so is a
     * store whose size is not the daemon's to change (a device, a partition among its siblings);
     * any other changed key needs a restart.
     */
    private static long grownSize(String source, String key, BackstoreConfig before, BackstoreConfig after)
            throws ConfigException {
        requireSame(source, key, before.withSizeBytes(after.sizeBytes()), after);
        if (after.sizeBytes() < before.sizeBytes()) {
            throw new ConfigException(source, key + ".size", ByteSize.format(after.sizeBytes())
                    + " is smaller than the running " + ByteSize.format(before.sizeBytes()) + ": the data past "
                    + "the new end would be lost, so a store never shrinks (copy it to a smaller store instead)");
        }
        String refusal = growRefusal(before);
        if (refusal != null) {
            throw new ConfigException(source, key + ".size", "changed, but " + refusal);
        }
        return after.sizeBytes();
    }

    /** Why a store of this kind cannot grow while the daemon runs, or null if it can. */
    static String growRefusal(BackstoreConfig store) {
        return switch (store.type()) {
            case MEMORY, FILE -> null;
            case BLOCK -> "a block device's size is the device's: resize the device, then restart the daemon";
            case PARTITION -> "a partition's range is fixed among its siblings while the daemon runs: "
                    + "restart the daemon for this";
        };
    }

    /**
     * Portals by name: one of the new config only is added, one of the running config only is
     * removed, and a kept name whose listen address, transport or tag changes is both (its ALUA
     * keys are the group's: {@link #aluaChanges}). An HA node keeps its set of tags: the pair
     * exchanged them at its handshake and maps its roles onto them.
     */
    private static void portalChanges(JtargetConfig now, JtargetConfig next, List<IndexedPortal> added,
                                      List<PortalConfig> removed) throws ConfigException {
        for (int i = 0; i < next.portals().size(); i++) {
            PortalConfig p = next.portals().get(i);
            PortalConfig before = now.portal(p.name());
            if (before == null || !sameListener(before, p)) {
                added.add(new IndexedPortal(i, p));
            }
        }
        for (PortalConfig before : now.portals()) {
            PortalConfig p = next.portal(before.name());
            if (p == null || !sameListener(before, p)) {
                removed.add(before);
            }
        }
        if (now.ha() != null && !allTags(now).equals(allTags(next))) {
            throw new ConfigException(next.source().toString(), "portals", "portal-group-tags " + HA_ROLES);
        }
    }

    /** Same address, transport and target portal group: the listener can stay. */
    private static boolean sameListener(PortalConfig a, PortalConfig b) {
        return a.host().equals(b.host()) && a.port() == b.port() && a.transport() == b.transport()
                && a.portalGroupTag() == b.portalGroupTag();
    }

    /**
     * The target port groups (tags) of both configs whose {@code alua-state} or
     * {@code alua-preferred} differs (portals sharing a tag agree on them, the reader checks).
     * Refused on an HA node, naming the key.
     */
    private static List<IndexedPortal> aluaChanges(JtargetConfig now, JtargetConfig next) throws ConfigException {
        List<IndexedPortal> changed = new ArrayList<>();
        Set<Integer> seen = new LinkedHashSet<>();
        for (int i = 0; i < next.portals().size(); i++) {
            PortalConfig p = next.portals().get(i);
            PortalConfig before = firstWithTag(now, p.portalGroupTag());
            if (!seen.add(p.portalGroupTag()) || before == null) {
                continue;
            }
            String key = before.aluaState() != p.aluaState() ? "alua-state"
                    : before.aluaPreferred() != p.aluaPreferred() ? "alua-preferred" : null;
            if (key != null && now.ha() != null) {
                throw new ConfigException(next.source().toString(), "portals[" + i + "]." + key, HA_ROLES);
            }
            if (key != null) {
                changed.add(new IndexedPortal(i, p));
            }
        }
        return changed;
    }

    private static PortalConfig firstWithTag(JtargetConfig c, int tag) {
        return c.portals().stream().filter(p -> p.portalGroupTag() == tag).findFirst().orElse(null);
    }

    /** The port group tags of target {@code t}'s portals in config {@code c}. */
    private static Set<Integer> tags(JtargetConfig c, TargetConfig t) {
        Set<Integer> tags = new java.util.TreeSet<>();
        for (String name : t.portalNames()) {
            tags.add(c.portal(name).portalGroupTag());
        }
        return tags;
    }

    private static Set<Integer> allTags(JtargetConfig c) {
        Set<Integer> tags = new java.util.TreeSet<>();
        c.portals().forEach(p -> tags.add(p.portalGroupTag()));
        return tags;
    }

    private static void lunChanges(String source, String key, TargetConfig before, TargetConfig after,
                                   Map<String, List<LunConfig>> added, Map<String, List<Integer>> removed)
            throws ConfigException {
        for (int j = 0; j < after.luns().size(); j++) {
            LunConfig l = after.luns().get(j);
            LunConfig old = lun(before, l.lun());
            if (old == null) {
                added.computeIfAbsent(after.iqn(), k -> new ArrayList<>()).add(l);
            } else if (!old.equals(l)) {
                throw new ConfigException(source, key + ".luns[" + j + "]", "LUN " + l.lun() + " " + RESTART
                        + " (or remove the LUN in one reload and add it back in the next)");
            }
        }
        for (LunConfig old : before.luns()) {
            if (lun(after, old.lun()) == null) {
                removed.computeIfAbsent(after.iqn(), k -> new ArrayList<>()).add(old.lun());
            }
        }
    }

    private static void requireSame(String source, String key, Object before, Object after) throws ConfigException {
        if (!Objects.equals(before, after)) {
            throw new ConfigException(source, key, RESTART);
        }
    }

    private static BackstoreConfig backstore(JtargetConfig c, String name) {
        return c.backstores().stream().filter(b -> b.name().equals(name)).findFirst().orElse(null);
    }

    /** iSCSI names compare case-insensitively (RFC 3722). */
    private static TargetConfig target(JtargetConfig c, String iqn) {
        String key = iqn.toLowerCase(Locale.ROOT);
        return c.targets().stream().filter(t -> t.iqn().toLowerCase(Locale.ROOT).equals(key)).findFirst().orElse(null);
    }

    private static LunConfig lun(TargetConfig t, int number) {
        return t.luns().stream().filter(l -> l.lun() == number).findFirst().orElse(null);
    }
}
