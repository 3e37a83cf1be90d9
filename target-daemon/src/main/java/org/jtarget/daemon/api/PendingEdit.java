package org.jtarget.daemon.api;

import org.jtarget.config.AclConfig;
import org.jtarget.config.AluaSetting;
import org.jtarget.config.ConfigException;
import org.jtarget.config.JtargetConfig;
import org.jtarget.config.LunConfig;
import org.jtarget.config.TargetEdits;
import org.jtarget.units.ByteSize;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * A live edit not yet in the config file, in its two forms: on a config (the running one, or the
 * file's for {@code save}'s check) and on the file's YAML tree, with the file's own key names.
 *
 * @param onConfig the edit of a config, refused with the key named
 * @param onFile   the same change on the YAML tree of the file ({@code targets:} entries as maps)
 */
record PendingEdit(TargetEdits.Edit onConfig, Consumer<Map<String, Object>> onFile) {

    JtargetConfig applyTo(JtargetConfig config) throws ConfigException {
        return onConfig.apply(config);
    }

    void applyTo(Map<String, Object> yaml) {
        onFile.accept(yaml);
    }

    static PendingEdit addLun(String iqn, LunConfig lun) {
        return new PendingEdit(c -> TargetEdits.addLun(c, iqn, lun), yaml -> {
            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("lun", lun.lun());
            entry.put("backstore", lun.backstore());
            entry.put("read-only", lun.readOnly());
            entry.put("removable", lun.removable());
            list(target(yaml, iqn), "luns").add(entry);
        });
    }

    static PendingEdit removeLun(String iqn, int lun) {
        return new PendingEdit(c -> TargetEdits.removeLun(c, iqn, lun), yaml -> list(target(yaml, iqn), "luns")
                .removeIf(l -> l instanceof Map<?, ?> m && String.valueOf(lun).equals(String.valueOf(m.get("lun")))));
    }

    /** An entry for every LUN, writable, is written as the plain name, as people write it. */
    static PendingEdit addAcl(String iqn, AclConfig entry) {
        return new PendingEdit(c -> TargetEdits.addAcl(c, iqn, entry), yaml -> {
            Object written = entry.initiator();
            if (entry.luns() != null || !entry.readOnlyLuns().isEmpty()) {
                Map<String, Object> map = new LinkedHashMap<>();
                map.put("initiator", entry.initiator());
                if (entry.luns() != null) {
                    map.put("luns", new ArrayList<>(entry.luns()));
                }
                if (!entry.readOnlyLuns().isEmpty()) {
                    map.put("read-only-luns", new ArrayList<>(entry.readOnlyLuns()));
                }
                written = map;
            }
            list(target(yaml, iqn), "acl").add(written);
        });
    }

    static PendingEdit removeAcl(String iqn, String initiator) {
        return new PendingEdit(c -> TargetEdits.removeAcl(c, iqn, initiator), yaml -> list(target(yaml, iqn), "acl")
                .removeIf(a -> initiator.equalsIgnoreCase(String.valueOf(a instanceof Map<?, ?> m ? m.get("initiator") : a))));
    }

    /**
     * Target port group {@code tag} in {@code state} (and PREF, when given): in the file, every
     * portal whose tag is {@code tag}, a portal without {@code portal-group-tag} having its 1-based
     * index, as the reader gives it.
     */
    static PendingEdit setAlua(int tag, AluaSetting state, Boolean preferred) {
        return new PendingEdit(c -> TargetEdits.setAlua(c, tag, state, preferred), yaml -> {
            List<Object> portals = list(yaml, "portals");
            for (int i = 0; i < portals.size(); i++) {
                if (portals.get(i) instanceof Map<?, ?> m
                        && String.valueOf(tag).equals(String.valueOf(m.containsKey("portal-group-tag")
                        ? m.get("portal-group-tag") : i + 1))) {
                    @SuppressWarnings("unchecked")
                    Map<String, Object> portal = (Map<String, Object>) m;
                    portal.put("alua-state", state.configName());
                    if (preferred != null) {
                        portal.put("alua-preferred", preferred);
                    }
                }
            }
        });
    }


    /** A new {@code size} for a backstore, written with a binary unit when it has one ("2GiB"), else in bytes. */
    static PendingEdit resizeBackstore(String name, long bytes) {
        return new PendingEdit(c -> TargetEdits.resizeBackstore(c, name, bytes), yaml -> {
            String formatted = ByteSize.format(bytes);
            backstore(yaml, name).put("size", formatted.endsWith(" bytes") ? (Object) bytes : formatted);
        });
    }

    /** The file's entry of backstore {@code name}. */
    private static Map<String, Object> backstore(Map<String, Object> yaml, String name) {
        return entry(yaml, "backstores", "name", name::equals);
    }

    /** The file's entry of target {@code iqn} (names compare ignoring case). */
    private static Map<String, Object> target(Map<String, Object> yaml, String iqn) {
        return entry(yaml, "targets", "iqn", iqn::equalsIgnoreCase);
    }

    /**
     * The entry of list {@code section} whose {@code key} matches; the saver checks the result, so a
     * miss only fails that check.
     */
    @SuppressWarnings("unchecked")
    private static Map<String, Object> entry(Map<String, Object> yaml, String section, String key,
                                             java.util.function.Predicate<String> matches) {
        for (Object e : (List<Object>) yaml.getOrDefault(section, List.of())) {
            if (e instanceof Map<?, ?> m && matches.test(String.valueOf(m.get(key)))) {
                return (Map<String, Object>) m;
            }
        }
        throw new IllegalStateException(section + ": no entry with this " + key + " in the file");
    }

    @SuppressWarnings("unchecked")
    private static List<Object> list(Map<String, Object> parent, String key) {
        Object value = parent.get(key);
        List<Object> copy = value instanceof List<?> l ? new ArrayList<>((List<Object>) l) : new ArrayList<>();
        parent.put(key, copy); // a mutable copy: the tree is ours to change
        return copy;
    }
}
