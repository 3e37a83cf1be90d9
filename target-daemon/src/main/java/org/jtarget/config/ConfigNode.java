package org.jtarget.config;

import org.apache.commons.configuration2.tree.ImmutableNode;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A read-only view of one YAML map in the Commons Configuration node tree, that knows its key
 * path ({@code targets[0].luns[1]}) so every error can name the key. Commons Configuration turns
 * a YAML list into repeated children with the same name, and a map into a node with children.
 */
final class ConfigNode {

    /** {@code 5s}, {@code 500ms}: a whole number and its unit. */
    private static final Pattern DURATION = Pattern.compile("(\\d{1,9})\\s*(s|ms)");

    private final String source;
    private final String path;
    private final ImmutableNode node;

    ConfigNode(String source, String path, ImmutableNode node) {
        this.source = source;
        this.path = path;
        this.node = node;
    }

    String path() {
        return path;
    }

    /** The key path of a child key. */
    String keyPath(String key) {
        return path.isEmpty() ? key : path + "." + key;
    }

    ConfigException error(String problem) {
        return new ConfigException(source, path, problem);
    }

    ConfigException error(String key, String problem) {
        return new ConfigException(source, keyPath(key), problem);
    }

    /** Fails on the first key that is not one of {@code known}: a typo must not be ignored. */
    void requireOnlyKeys(Set<String> known) throws ConfigException {
        for (ImmutableNode child : node.getChildren()) {
            if (!known.contains(child.getNodeName())) {
                throw error(child.getNodeName(), "unknown key (expected one of: " + String.join(", ", known) + ")");
            }
        }
    }

    /** The entries of a list of maps; empty if the key is absent. */
    List<ConfigNode> maps(String key) throws ConfigException {
        List<ImmutableNode> nodes = named(key);
        List<ConfigNode> result = new ArrayList<>(nodes.size());
        for (int i = 0; i < nodes.size(); i++) {
            ImmutableNode n = nodes.get(i);
            String p = keyPath(key) + "[" + i + "]";
            if (n.getValue() != null || n.getChildren().isEmpty()) {
                throw new ConfigException(source, p, "expected a map of keys, got " + describe(n));
            }
            result.add(new ConfigNode(source, p, n));
        }
        return result;
    }

    /** The child map of {@code key}, or null if absent. */
    ConfigNode map(String key) throws ConfigException {
        ImmutableNode n = single(key);
        if (n == null) {
            return null;
        }
        if (n.getValue() != null || n.getChildren().isEmpty()) {
            throw error(key, "expected a map of keys, got " + describe(n));
        }
        return new ConfigNode(source, keyPath(key), n);
    }

    /** The strings of a scalar list ({@code [a, b]} or a single {@code a}); empty if absent. */
    List<String> strings(String key) throws ConfigException {
        List<ImmutableNode> nodes = named(key);
        List<String> result = new ArrayList<>(nodes.size());
        for (int i = 0; i < nodes.size(); i++) {
            String p = keyPath(key) + "[" + i + "]";
            result.add(asString(nodes.get(i), p));
        }
        return result;
    }

    /**
     * The items of a list whose items may be scalars or maps ({@code [a, {k: v}]}): a String or a
     * ConfigNode each; empty if the key is absent.
     */
    List<Object> scalarsOrMaps(String key) throws ConfigException {
        List<ImmutableNode> nodes = named(key);
        List<Object> result = new ArrayList<>(nodes.size());
        for (int i = 0; i < nodes.size(); i++) {
            ImmutableNode n = nodes.get(i);
            String p = keyPath(key) + "[" + i + "]";
            result.add(n.getChildren().isEmpty() ? asString(n, p) : new ConfigNode(source, p, n));
        }
        return result;
    }

    /** The integers in [min, max] of a scalar list; null if the key is absent. */
    List<Integer> integers(String key, int min, int max) throws ConfigException {
        List<ImmutableNode> nodes = named(key);
        if (nodes.isEmpty()) {
            return null;
        }
        List<Integer> result = new ArrayList<>(nodes.size());
        for (int i = 0; i < nodes.size(); i++) {
            Object v = nodes.get(i).getValue();
            if (!nodes.get(i).getChildren().isEmpty() || !isIntegerIn(v, min, max)) {
                throw new ConfigException(source, keyPath(key) + "[" + i + "]",
                        "expected an integer " + min + ".." + max + ", got " + describe(nodes.get(i)));
            }
            result.add(((Number) v).intValue());
        }
        return result;
    }

    /** The string value of {@code key}, or null if absent (or empty). */
    String string(String key) throws ConfigException {
        ImmutableNode n = single(key);
        return n == null || isEmpty(n) ? null : asString(n, keyPath(key));
    }

    /** The string value of a required key. */
    String requireString(String key) throws ConfigException {
        String s = string(key);
        if (s == null || s.isBlank()) {
            throw error(key, "missing (required)");
        }
        return s;
    }

    /** The raw scalar (String, Integer, Long, Boolean...) of {@code key}, or null if absent. */
    Object scalar(String key) throws ConfigException {
        ImmutableNode n = single(key);
        if (n == null || isEmpty(n)) {
            return null;
        }
        if (!n.getChildren().isEmpty()) {
            throw error(key, "expected a value, got a map");
        }
        return n.getValue();
    }

    /** A boolean key ({@code true}/{@code false}), or {@code dflt} if absent. */
    boolean bool(String key, boolean dflt) throws ConfigException {
        Boolean b = optionalBool(key);
        return b == null ? dflt : b;
    }

    /** A boolean key, or null if absent. */
    Boolean optionalBool(String key) throws ConfigException {
        Object v = scalar(key);
        if (v == null) {
            return null;
        }
        if (v instanceof Boolean b) {
            return b;
        }
        throw error(key, "expected true or false, got '" + v + "'");
    }

    /** An integer key in [min, max], or {@code dflt} if absent. */
    int integer(String key, int dflt, int min, int max) throws ConfigException {
        Object v = scalar(key);
        if (v == null) {
            return dflt;
        }
        if (!isIntegerIn(v, min, max)) {
            throw error(key, "expected an integer " + min + ".." + max + ", got '" + v + "'");
        }
        return ((Number) v).intValue();
    }

    /**
     * A duration key from 1 ms to {@code max}: whole seconds as a number ({@code 5}, as
     * {@code daemon.shutdown-timeout} takes them), or a whole number with {@code s} or {@code ms}
     * ({@code 5s}, {@code 500ms}); {@code dflt} if absent.
     */
    Duration duration(String key, Duration dflt, Duration max) throws ConfigException {
        Object v = scalar(key);
        if (v == null) {
            return dflt;
        }
        Duration d = null;
        if (v instanceof Integer || v instanceof Long) {
            d = Duration.ofSeconds(((Number) v).longValue());
        } else if (v instanceof String s) {
            Matcher m = DURATION.matcher(s.strip());
            if (m.matches()) {
                long n = Long.parseLong(m.group(1));
                d = m.group(2).equals("ms") ? Duration.ofMillis(n) : Duration.ofSeconds(n);
            }
        }
        if (d == null || d.compareTo(Duration.ofMillis(1)) < 0 || d.compareTo(max) > 0) {
            throw error(key, "expected a duration from 1ms to " + describe(max)
                    + " (whole seconds, or a whole number with s or ms: 5s, 500ms), got '" + v + "'");
        }
        return d;
    }

    /** A duration as the config writes it: {@code 5s}, or {@code 1500ms} when not whole seconds. */
    static String describe(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + "s" : d.toMillis() + "ms";
    }

    private static boolean isIntegerIn(Object v, int min, int max) {
        return (v instanceof Integer || v instanceof Long) && ((Number) v).longValue() >= min
                && ((Number) v).longValue() <= max;
    }

    /** True if the key is present with a value. */
    boolean has(String key) throws ConfigException {
        ImmutableNode n = single(key);
        return n != null && !isEmpty(n);
    }

    private List<ImmutableNode> named(String key) {
        List<ImmutableNode> result = new ArrayList<>();
        for (ImmutableNode child : node.getChildren()) {
            if (child.getNodeName().equals(key) && !isEmpty(child)) {
                result.add(child);
            }
        }
        return result;
    }

    private ImmutableNode single(String key) throws ConfigException {
        List<ImmutableNode> nodes = named(key);
        if (nodes.size() > 1) {
            throw error(key, "expected a single value, got a list");
        }
        return nodes.isEmpty() ? null : nodes.get(0);
    }

    private String asString(ImmutableNode n, String p) throws ConfigException {
        Object v = n.getValue();
        if (!n.getChildren().isEmpty()) {
            throw new ConfigException(source, p, "expected a value, got a map");
        }
        if (v instanceof String s) {
            return s;
        }
        if (v instanceof Integer || v instanceof Long) {
            return v.toString();
        }
        throw new ConfigException(source, p, "expected a string, got '" + v + "' (quote it)");
    }

    private static boolean isEmpty(ImmutableNode n) {
        return n.getValue() == null && n.getChildren().isEmpty();
    }

    private static String describe(ImmutableNode n) {
        return n.getValue() != null ? "'" + n.getValue() + "'" : "nothing";
    }

    /** An ordered key set for {@link #requireOnlyKeys}. */
    static Set<String> keys(String... names) {
        return new LinkedHashSet<>(List.of(names));
    }
}
