package org.jtarget.config;

import org.apache.commons.configuration2.YAMLConfiguration;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@link YAMLConfiguration} that keeps keys whose value is an empty list or map ({@code targetz: []}).
 * Commons Configuration turns list elements into repeated nodes, so an empty list would leave no
 * node at all and a misspelt key holding one would pass unnoticed; here empty collections become
 * null values, which are kept as nodes (and read as "absent").
 */
final class EmptyAwareYamlConfiguration extends YAMLConfiguration {

    @Override
    protected void load(Map<String, Object> map) {
        super.load(withoutEmptyCollections(map));
    }

    private static Map<String, Object> withoutEmptyCollections(Map<String, Object> map) {
        Map<String, Object> result = new LinkedHashMap<>();
        map.forEach((k, v) -> result.put(k, clean(v)));
        return result;
    }

    @SuppressWarnings("unchecked")
    private static Object clean(Object value) {
        if (value instanceof Map<?, ?> m) {
            return m.isEmpty() ? null : withoutEmptyCollections((Map<String, Object>) m);
        }
        if (value instanceof List<?> l) {
            if (l.isEmpty()) {
                return null;
            }
            List<Object> result = new ArrayList<>(l.size());
            for (Object o : l) {
                result.add(clean(o));
            }
            return result;
        }
        return value;
    }
}
