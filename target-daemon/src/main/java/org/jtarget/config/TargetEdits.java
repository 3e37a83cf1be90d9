package org.jtarget.config;

import java.util.ArrayList;
import java.util.List;

/**
 * Live edits of a running config (the management API): a LUN or an ACL entry added to or removed
 * from one target, or a target port group's ALUA state, checked by the rules the file's reader applies (one backstore backs one LU, no
 * partitioned store as a LUN, an ACL names only LUNs of its target, "*" stands alone), and
 * returned as a new config for the reload machinery to apply. Problems are
 * {@link ConfigException}s naming the key as it would be in the file.
 */
public final class TargetEdits {

    private TargetEdits() {
    }

    /** {@code config} with {@code lun} added to target {@code iqn}. */
    public static JtargetConfig addLun(JtargetConfig config, String iqn, LunConfig lun) throws ConfigException {
        int t = index(config, iqn);
        String key = "targets[" + t + "].luns";
        TargetConfig target = config.targets().get(t);
        if (lun.lun() < 0 || lun.lun() > LunConfig.MAX_LUN) {
            throw error(config, key, "LUN " + lun.lun() + " out of range (0.." + LunConfig.MAX_LUN + ")");
        }
        if (target.luns().stream().anyMatch(l -> l.lun() == lun.lun())) {
            throw error(config, key, "duplicate LUN " + lun.lun() + " in this target");
        }
        if (config.backstore(lun.backstore()) == null) {
            throw error(config, key, "unknown backstore '" + lun.backstore() + "'");
        }
        if (config.backstores().stream().anyMatch(b -> lun.backstore().equals(b.of()))) {
            throw error(config, key, "backstore '" + lun.backstore() + "' is divided into partitions; use a partition");
        }
        for (TargetConfig other : config.targets()) {
            for (LunConfig used : other.luns()) {
                if (used.backstore().equals(lun.backstore())) {
                    throw error(config, key, "backstore '" + lun.backstore() + "' is already LUN " + used.lun() + " of "
                            + other.iqn() + " (one backstore backs one logical unit)");
                }
            }
        }
        List<LunConfig> luns = new ArrayList<>(target.luns());
        luns.add(lun);
        luns.sort(java.util.Comparator.comparingInt(LunConfig::lun));
        return replace(config, t, with(target, luns, target.acl()));
    }

    /** {@code config} without LUN {@code lun} of target {@code iqn}; refused while an ACL entry names it. */
    public static JtargetConfig removeLun(JtargetConfig config, String iqn, int lun) throws ConfigException {
        int t = index(config, iqn);
        TargetConfig target = config.targets().get(t);
        if (target.luns().stream().noneMatch(l -> l.lun() == lun)) {
            throw error(config, "targets[" + t + "].luns", "no LUN " + lun + " in this target");
        }
        for (int i = 0; i < target.acl().size(); i++) {
            AclConfig a = target.acl().get(i);
            if ((a.luns() != null && a.luns().contains(lun)) || a.readOnlyLuns().contains(lun)) {
                throw error(config, "targets[" + t + "].acl[" + i + "]", "names LUN " + lun + " (of initiator "
                        + a.initiator() + "): remove it from the ACL first");
            }
        }
        return replace(config, t, with(target, target.luns().stream().filter(l -> l.lun() != lun).toList(), target.acl()));
    }

    /** {@code config} with {@code entry} added to the ACL of target {@code iqn}. */
    public static JtargetConfig addAcl(JtargetConfig config, String iqn, AclConfig entry) throws ConfigException {
        int t = index(config, iqn);
        TargetConfig target = config.targets().get(t);
        String key = "targets[" + t + "].acl[" + target.acl().size() + "]";
        String who = entry.initiator();
        if (who.equals("*") || target.acl().stream().anyMatch(a -> a.initiator().equals("*"))) {
            throw error(config, key, "\"*\" allows any initiator; do not combine it with names");
        }
        String srp = SrpReader.initiatorPortName(who);
        String problem = srp != null ? null : IscsiNames.problem(who, SrpReader.INITIATOR_PORT_NAME_FORM);
        if (problem != null) {
            throw error(config, key + ".initiator", problem);
        }
        String name = srp != null ? srp : who;
        if (target.acl().stream().anyMatch(a -> a.initiator().equalsIgnoreCase(name))) {
            throw error(config, key + ".initiator", "initiator '" + name + "' listed twice");
        }
        checkLuns(config, key + ".luns", entry.luns(), target, null);
        checkLuns(config, key + ".read-only-luns", entry.readOnlyLuns(), target, entry.luns());
        List<AclConfig> acl = new ArrayList<>(target.acl());
        acl.add(new AclConfig(name, entry.luns(), entry.readOnlyLuns()));
        return replace(config, t, with(target, target.luns(), acl));
    }

    /** {@code config} without the ACL entry of {@code initiator}; the last entry cannot go. */
    public static JtargetConfig removeAcl(JtargetConfig config, String iqn, String initiator) throws ConfigException {
        int t = index(config, iqn);
        TargetConfig target = config.targets().get(t);
        List<AclConfig> acl = target.acl().stream().filter(a -> !a.initiator().equalsIgnoreCase(initiator)).toList();
        if (acl.size() == target.acl().size()) {
            throw error(config, "targets[" + t + "].acl", "no entry for initiator '" + initiator + "'");
        }
        if (acl.isEmpty()) {
            throw error(config, "targets[" + t + "].acl", "its last entry cannot go (a target needs one; "
                    + "remove the target in the file instead)");
        }
        return replace(config, t, with(target, target.luns(), acl));
    }

    /**
     * {@code config} with backstore {@code name}'s {@code size} set to {@code bytes}. Whether the
     * store may take it live is the reload's to decide: it grows file and memory stores and refuses
     * a smaller size or another kind of store, naming {@code backstores[i].size}.
     */
    public static JtargetConfig resizeBackstore(JtargetConfig config, String name, long bytes) throws ConfigException {
        int i = backstoreIndex(config, name);
        if (i < 0) {
            throw error(config, "backstores", "no backstore " + name);
        }
        BackstoreConfig b = config.backstores().get(i);
        int blockSize = b.blockSize() == 0 ? BackstoreConfig.DEFAULT_BLOCK_SIZE : b.blockSize();
        if (bytes <= 0 || bytes % blockSize != 0) {
            throw error(config, "backstores[" + i + "].size", "must be a positive multiple of the block size "
                    + blockSize + ", got " + bytes);
        }
        List<BackstoreConfig> stores = new ArrayList<>(config.backstores());
        stores.set(i, b.withSizeBytes(bytes));
        return new JtargetConfig(config.source(), config.daemon(), config.portals(), stores, config.targets(),
                config.rdma(), config.ha(), config.management());
    }

    /** The index of backstore {@code name}, or -1. */
    public static int backstoreIndex(JtargetConfig config, String name) {
        for (int i = 0; i < config.backstores().size(); i++) {
            if (config.backstores().get(i).name().equals(name)) {
                return i;
            }
        }
        return -1;
    }

    /**
     * {@code config} with target port group {@code tag} in {@code state}: every portal with that
     * {@code portal-group-tag} gets the new {@code alua-state}, and {@code alua-preferred} when
     * {@code preferred} is given (portals sharing a tag must agree on both).
     *
     * @param preferred the new {@code alua-preferred}, or null to keep it
     */
    public static JtargetConfig setAlua(JtargetConfig config, int tag, AluaSetting state, Boolean preferred)
            throws ConfigException {
        if (portalsOfGroup(config, tag).isEmpty()) {
            throw error(config, "portals", "no portal has portal-group-tag " + tag);
        }
        List<PortalConfig> portals = new ArrayList<>();
        for (PortalConfig p : config.portals()) {
            portals.add(p.portalGroupTag() != tag ? p : new PortalConfig(p.name(), p.host(), p.port(), tag, state,
                    preferred == null ? p.aluaPreferred() : preferred, p.transport()));
        }
        return new JtargetConfig(config.source(), config.daemon(), portals, config.backstores(), config.targets(),
                config.rdma(), config.ha(), config.management());
    }

    /** The portal names of target port group {@code tag}, in the order of {@code portals[]}. */
    public static List<String> portalsOfGroup(JtargetConfig config, int tag) {
        return config.portals().stream().filter(p -> p.portalGroupTag() == tag).map(PortalConfig::name).toList();
    }

    /** The index of target {@code iqn} (names compare ignoring case, as logins do), or -1. */
    public static int targetIndex(JtargetConfig config, String iqn) {
        for (int i = 0; i < config.targets().size(); i++) {
            if (config.targets().get(i).iqn().equalsIgnoreCase(iqn)) {
                return i;
            }
        }
        return -1;
    }

    private static int index(JtargetConfig config, String iqn) throws ConfigException {
        int i = targetIndex(config, iqn);
        if (i < 0) {
            throw error(config, "targets", "no target " + iqn);
        }
        return i;
    }

    private static void checkLuns(JtargetConfig config, String key, List<Integer> named, TargetConfig target,
                                  List<Integer> seen) throws ConfigException {
        TargetReader.AclLunProblem p = TargetReader.aclLunProblem(named, target.luns(), seen);
        if (p != null) {
            throw error(config, key + "[" + p.index() + "]", p.problem());
        }
    }

    private static TargetConfig with(TargetConfig t, List<LunConfig> luns, List<AclConfig> acl) {
        return new TargetConfig(t.iqn(), t.alias(), t.portalNames(), luns, acl, t.chap(), t.srp());
    }

    private static JtargetConfig replace(JtargetConfig c, int index, TargetConfig target) {
        List<TargetConfig> targets = new ArrayList<>(c.targets());
        targets.set(index, target);
        return new JtargetConfig(c.source(), c.daemon(), c.portals(), c.backstores(), targets, c.rdma(), c.ha(),
                c.management());
    }

    private static ConfigException error(JtargetConfig config, String key, String problem) {
        return new ConfigException(config.source().toString(), key, problem);
    }

    /** One edit of the running config: the new config, or a refusal naming the key. */
    @FunctionalInterface
    public interface Edit {
        JtargetConfig apply(JtargetConfig running) throws ConfigException;
    }
}
