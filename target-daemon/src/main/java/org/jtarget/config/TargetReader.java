package org.jtarget.config;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads and checks {@code targets[]}, their LUNs, ACLs, CHAP and SRP identifiers ({@link SrpReader}),
 * and resolves portal and backstore names.
 */
final class TargetReader {

    private static final Set<String> TARGET_KEYS = ConfigNode.keys("iqn", "alias", "portals", "luns", "acl", "chap",
            "srp");
    private static final Set<String> LUN_KEYS = ConfigNode.keys("lun", "backstore", "read-only", "removable",
            "queue-depth");
    private static final Set<String> ACL_KEYS = ConfigNode.keys("initiator", "luns", "read-only-luns");
    private static final Set<String> CHAP_KEYS = ConfigNode.keys("user", "secret", "secret-file", "mutual-user",
            "mutual-secret", "mutual-secret-file", "algorithms");

    /**
     * RFC 7143 9.2.1 asks for secrets of at least 96 bits; open-iscsi and the Windows initiator
     * refuse shorter ones, so a shorter secret would only fail later at login.
     */
    static final int MIN_CHAP_SECRET = 12;

    private TargetReader() {
    }

    static List<TargetConfig> read(ConfigNode root, List<PortalConfig> portals, List<BackstoreConfig> stores,
                                   SecretFiles secrets)
            throws ConfigException {
        List<TargetConfig> result = new ArrayList<>();
        Set<String> names = new HashSet<>();
        // One backstore backs one logical unit: two LUs over one store would each keep their own
        // reservations, unit attentions and range locks for the same blocks.
        Map<String, String> lunOfStore = new HashMap<>();
        Map<SrpPortIdConfig, String> targetOfSrpId = new HashMap<>();
        for (ConfigNode node : root.maps("targets")) {
            node.requireOnlyKeys(TARGET_KEYS);
            String iqn = name(node, "iqn", node.requireString("iqn"), "");
            if (!names.add(iqn)) {
                throw node.error("iqn", "duplicate target name '" + iqn + "'");
            }
            List<String> portalNames = portalNames(node, portals);
            List<LunConfig> luns = luns(node, iqn, stores, lunOfStore);
            SrpPortIdConfig srp = SrpReader.portId(node, iqn, portalNames, portals, targetOfSrpId);
            result.add(new TargetConfig(iqn, node.string("alias"), portalNames, luns, acl(node, luns), chap(node, secrets),
                    srp));
        }
        return result;
    }

    /** An iSCSI name; {@code otherForms} as for {@link IscsiNames#problem(String, String)}. */
    private static String name(ConfigNode node, String key, String name, String otherForms) throws ConfigException {
        String problem = IscsiNames.problem(name, otherForms);
        if (problem != null) {
            throw node.error(key, problem);
        }
        return name;
    }

    /** An ACL name: an iSCSI name as written, or an SRP initiator port name in lowercase. */
    private static String initiatorName(ConfigNode node, String key, String name) throws ConfigException {
        String srp = SrpReader.initiatorPortName(name);
        return srp != null ? srp : name(node, key, name, SrpReader.INITIATOR_PORT_NAME_FORM);
    }

    private static List<String> portalNames(ConfigNode node, List<PortalConfig> portals) throws ConfigException {
        List<String> names = node.strings("portals");
        if (names.isEmpty()) {
            throw node.error("portals", "missing (list the portals this target is reachable through)");
        }
        for (int i = 0; i < names.size(); i++) {
            String n = names.get(i);
            if (portals.stream().noneMatch(p -> p.name().equals(n))) {
                throw node.error("portals[" + i + "]", "unknown portal '" + n + "'");
            }
            if (names.indexOf(n) != i) {
                throw node.error("portals[" + i + "]", "portal '" + n + "' listed twice");
            }
        }
        return names;
    }

    private static List<LunConfig> luns(ConfigNode node, String iqn, List<BackstoreConfig> stores,
                                        Map<String, String> lunOfStore) throws ConfigException {
        List<LunConfig> luns = new ArrayList<>();
        Set<Integer> numbers = new HashSet<>();
        for (ConfigNode lunNode : node.maps("luns")) {
            lunNode.requireOnlyKeys(LUN_KEYS);
            if (!lunNode.has("lun")) {
                throw lunNode.error("lun", "missing (required)");
            }
            int lun = lunNode.integer("lun", 0, 0, LunConfig.MAX_LUN);
            String store = lunNode.requireString("backstore");
            if (!numbers.add(lun)) {
                throw lunNode.error("lun", "duplicate LUN " + lun + " in this target");
            }
            if (stores.stream().noneMatch(b -> b.name().equals(store))) {
                throw lunNode.error("backstore", "unknown backstore '" + store + "'");
            }
            checkNotPartitioned(lunNode, store, stores);
            String earlier = lunOfStore.putIfAbsent(store, "LUN " + lun + " of " + iqn);
            if (earlier != null) {
                throw lunNode.error("backstore", "backstore '" + store + "' is already " + earlier
                        + " (one backstore backs one logical unit)");
            }
            int queueDepth = lunNode.integer("queue-depth", LunConfig.DEFAULT_QUEUE_DEPTH, 1, LunConfig.MAX_QUEUE_DEPTH);
            luns.add(new LunConfig(lun, store, lunNode.bool("read-only", false), lunNode.bool("removable", false),
                    queueDepth));
        }
        luns.sort(Comparator.comparingInt(LunConfig::lun));
        return luns;
    }

    /**
     * A store carved into partitions backs no LUN itself: the whole store and a partition would be
     * two LUs over the same blocks, the case the one-store-one-LU rule exists to prevent. This also
     * keeps one LUN from using a parent and its partitions at once.
     */
    private static void checkNotPartitioned(ConfigNode lunNode, String store, List<BackstoreConfig> stores)
            throws ConfigException {
        List<String> parts = new ArrayList<>();
        for (BackstoreConfig b : stores) {
            if (store.equals(b.of())) {
                parts.add(b.name());
            }
        }
        if (!parts.isEmpty()) {
            throw lunNode.error("backstore", "backstore '" + store + "' is divided into partitions ("
                    + String.join(", ", parts) + "); use a partition, or remove them to use the whole store");
        }
    }

    /**
     * {@code acl}: initiator names, or maps {@code {initiator, luns, read-only-luns}} that say
     * which of the target's LUNs the initiator sees and which of those it may only read. A name is
     * an iSCSI name or an SRP initiator port name (kept in lowercase).
     */
    private static List<AclConfig> acl(ConfigNode node, List<LunConfig> luns) throws ConfigException {
        List<Object> items = node.scalarsOrMaps("acl");
        if (items.isEmpty()) {
            throw node.error("acl", "missing (list allowed initiator names, or [\"*\"] to allow any)");
        }
        List<AclConfig> acl = new ArrayList<>();
        List<String> seen = new ArrayList<>();
        for (int i = 0; i < items.size(); i++) {
            String key = "acl[" + i + "]";
            AclConfig entry = items.get(i) instanceof ConfigNode map ? aclEntry(map, luns)
                    : AclConfig.allLuns((String) items.get(i));
            String who = entry.initiator();
            String whoKey = items.get(i) instanceof ConfigNode ? key + ".initiator" : key;
            if (who.equals("*")) {
                if (items.size() > 1) {
                    throw node.error(whoKey, "\"*\" allows any initiator; do not combine it with names");
                }
            } else {
                who = initiatorName(node, whoKey, who);
            }
            if (seen.stream().anyMatch(who::equalsIgnoreCase)) {
                throw node.error(whoKey, "initiator '" + who + "' listed twice");
            }
            seen.add(who);
            acl.add(new AclConfig(who, entry.luns(), entry.readOnlyLuns()));
        }
        return acl;
    }

    /** One map entry of {@code acl}; every LUN it names must be a LUN of the target. */
    private static AclConfig aclEntry(ConfigNode entry, List<LunConfig> targetLuns) throws ConfigException {
        entry.requireOnlyKeys(ACL_KEYS);
        String initiator = entry.requireString("initiator");
        List<Integer> luns = entry.integers("luns", 0, LunConfig.MAX_LUN);
        List<Integer> readOnly = entry.integers("read-only-luns", 0, LunConfig.MAX_LUN);
        checkAclLuns(entry, "luns", luns, targetLuns, null);
        checkAclLuns(entry, "read-only-luns", readOnly, targetLuns, luns);
        return new AclConfig(initiator, luns, readOnly == null ? List.of() : readOnly);
    }

    private static void checkAclLuns(ConfigNode entry, String key, List<Integer> named, List<LunConfig> targetLuns,
                                     List<Integer> seen) throws ConfigException {
        AclLunProblem p = aclLunProblem(named, targetLuns, seen);
        if (p != null) {
            throw entry.error(key + "[" + p.index() + "]", p.problem());
        }
    }

    /** What is wrong with the {@code index}th LUN an ACL entry names. */
    record AclLunProblem(int index, String problem) {
    }

    /**
     * The first LUN of {@code named} that is not a LUN of the target, is listed twice, or (with
     * {@code seen}, the entry's {@code luns}) is not among those; null when all are fine. The
     * file's reader and the API's live edits ({@link TargetEdits}) apply this one rule.
     */
    static AclLunProblem aclLunProblem(List<Integer> named, List<LunConfig> targetLuns, List<Integer> seen) {
        if (named == null) {
            return null;
        }
        for (int i = 0; i < named.size(); i++) {
            int lun = named.get(i);
            if (targetLuns.stream().noneMatch(l -> l.lun() == lun)) {
                return new AclLunProblem(i, "LUN " + lun + " is not a LUN of this target");
            }
            if (named.indexOf(lun) != i) {
                return new AclLunProblem(i, "LUN " + lun + " listed twice");
            }
            if (seen != null && !seen.contains(lun)) {
                return new AclLunProblem(i, "LUN " + lun + " is not in luns (list it there too, or drop luns to map "
                        + "every LUN)");
            }
        }
        return null;
    }

    private static ChapConfig chap(ConfigNode target, SecretFiles secrets) throws ConfigException {
        ConfigNode node = target.map("chap");
        if (node == null) {
            return null;
        }
        node.requireOnlyKeys(CHAP_KEYS);
        String user = node.requireString("user");
        String secret = secretOrFile(node, "secret", secrets);
        if (secret == null) {
            throw node.error("secret", "missing (give secret or secret-file)");
        }
        secret(node, "secret", secret);
        String mutualUser = node.string("mutual-user");
        String mutualSecret = secretOrFile(node, "mutual-secret", secrets);
        if ((mutualUser == null) != (mutualSecret == null)) {
            throw node.error(mutualUser == null ? "mutual-user" : "mutual-secret",
                    "missing (mutual CHAP needs both mutual-user and mutual-secret or mutual-secret-file)");
        }
        if (mutualSecret != null) {
            secret(node, "mutual-secret", mutualSecret);
            if (mutualSecret.equals(secret)) {
                // RFC 7143 9.2.1: a secret used to authenticate initiators MUST NOT authenticate targets.
                throw node.error("mutual-secret", "must differ from secret (RFC 7143 9.2.1)");
            }
        }
        return new ChapConfig(user, secret, mutualUser, mutualSecret, chapAlgorithms(node));
    }

    /** {@code chap.algorithms}: known names, each once, most preferred first; the default order when absent or empty. */
    private static List<String> chapAlgorithms(ConfigNode chap) throws ConfigException {
        List<String> names = chap.strings("algorithms").stream().map(n -> n.toLowerCase(java.util.Locale.ROOT)).toList();
        if (names.isEmpty()) {
            return ChapConfig.ALGORITHMS;
        }
        for (String name : names) {
            if (!ChapConfig.ALGORITHMS.contains(name)) {
                throw chap.error("algorithms", "unknown CHAP algorithm '" + name + "' (expected some of: "
                        + String.join(", ", ChapConfig.ALGORITHMS) + ")");
            }
        }
        if (new HashSet<>(names).size() != names.size()) {
            throw chap.error("algorithms", "an algorithm is listed twice");
        }
        return names;
    }

    /** The secret under {@code key}, or read from the file {@code key-file} names; null when neither is given. */
    private static String secretOrFile(ConfigNode node, String key, SecretFiles secrets) throws ConfigException {
        String inline = node.string(key);
        boolean file = node.string(key + "-file") != null;
        if (inline != null && file) {
            throw node.error(key + "-file", "give " + key + " or " + key + "-file, not both");
        }
        return file ? secrets.read(node, key + "-file") : inline;
    }

    private static String secret(ConfigNode node, String key, String secret) throws ConfigException {
        if (secret.length() < MIN_CHAP_SECRET) {
            throw node.error(key, "too short: " + secret.length() + " characters, CHAP secrets need at least "
                    + MIN_CHAP_SECRET + " (RFC 7143 9.2.1; open-iscsi refuses shorter ones)");
        }
        return secret;
    }
}
