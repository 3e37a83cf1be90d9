package org.jtarget.daemon.api;

import org.jtarget.config.AclConfig;
import org.jtarget.config.ConfigException;
import org.jtarget.config.JtargetConfig;
import org.jtarget.config.LunConfig;
import org.jtarget.config.TargetEdits;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A live edit not yet in the config file: applied to a config (the running one, or the file's for
 * a check) and, by {@code save}, to the file's YAML tree with the file's own key names.
 */
sealed interface PendingEdit {

    JtargetConfig applyTo(JtargetConfig config) throws ConfigException;

    /** The same change on the YAML tree of the file ({@code targets:} entries as maps). */
    void applyTo(Map<String, Object> yaml);

    record AddLun(String iqn, LunConfig lun) implements PendingEdit {
        @Override
        public JtargetConfig applyTo(JtargetConfig config) throws ConfigException {
            return TargetEdits.addLun(config, iqn, lun);
        }

        @Override
        public void applyTo(Map<String, Object> yaml) {
            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("lun", lun.lun());
            entry.put("backstore", lun.backstore());
            entry.put("read-only", lun.readOnly());
            entry.put("removable", lun.removable());
            list(target(yaml, iqn), "luns").add(entry);
        }
    }

    record RemoveLun(String iqn, int lun) implements PendingEdit {
        @Override
        public JtargetConfig applyTo(JtargetConfig config) throws ConfigException {
            return TargetEdits.removeLun(config, iqn, lun);
        }

        @Override
        public void applyTo(Map<String, Object> yaml) {
            list(target(yaml, iqn), "luns").removeIf(l -> l instanceof Map<?, ?> m
                    && String.valueOf(lun).equals(String.valueOf(m.get("lun"))));
        }
    }

    record AddAcl(String iqn, AclConfig entry) implements PendingEdit {
        @Override
        public JtargetConfig applyTo(JtargetConfig config) throws ConfigException {
            return TargetEdits.addAcl(config, iqn, entry);
        }

        @Override
        public void applyTo(Map<String, Object> yaml) {
            if (entry.luns() == null && entry.readOnlyLuns().isEmpty()) {
                list(target(yaml, iqn), "acl").add(entry.initiator());
                return;
            }
            Map<String, Object> map = new LinkedHashMap<>();
            map.put("initiator", entry.initiator());
            if (entry.luns() != null) {
                map.put("luns", new ArrayList<>(entry.luns()));
            }
            if (!entry.readOnlyLuns().isEmpty()) {
                map.put("read-only-luns", new ArrayList<>(entry.readOnlyLuns()));
            }
            list(target(yaml, iqn), "acl").add(map);
        }
    }

    record RemoveAcl(String iqn, String initiator) implements PendingEdit {
        @Override
        public JtargetConfig applyTo(JtargetConfig config) throws ConfigException {
            return TargetEdits.removeAcl(config, iqn, initiator);
        }

        @Override
        public void applyTo(Map<String, Object> yaml) {
            list(target(yaml, iqn), "acl").removeIf(a -> initiator.equalsIgnoreCase(String.valueOf(
                    a instanceof Map<?, ?> m ? m.get("initiator") : a)));
        }
    }

    /** The file's entry of target {@code iqn}; the saver checks the result, so a miss only fails that check. */
    @SuppressWarnings("unchecked")
    private static Map<String, Object> target(Map<String, Object> yaml, String iqn) {
        for (Object t : (List<Object>) yaml.getOrDefault("targets", List.of())) {
            if (t instanceof Map<?, ?> m && iqn.equalsIgnoreCase(String.valueOf(m.get("iqn")))) {
                return (Map<String, Object>) m;
            }
        }
        throw new IllegalStateException("target " + iqn + " is not in the file");
    }

    @SuppressWarnings("unchecked")
    private static List<Object> list(Map<String, Object> target, String key) {
        Object value = target.get(key);
        List<Object> copy = value instanceof List<?> l ? new ArrayList<>((List<Object>) l) : new ArrayList<>();
        target.put(key, copy); // a mutable copy: flow lists load as they are, but the tree is ours to change
        return copy;
    }
}
