package org.jtarget.config;

import org.apache.commons.configuration2.YAMLConfiguration;
import org.apache.commons.configuration2.ex.ConfigurationException;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.nodes.Tag;
import org.yaml.snakeyaml.representer.Representer;
import org.yaml.snakeyaml.resolver.Resolver;

import java.io.Reader;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * {@link YAMLConfiguration} that keeps keys whose value is an empty list or map ({@code targetz: []}).
 * Commons Configuration turns list elements into repeated nodes, so an empty list would leave no
 * node at all and a misspelt key holding one would pass unnoticed; here empty collections become
 * null values, which are kept as nodes (and read as "absent").
 *
 * <p>Unquoted hex ({@code 0x...}) is read as the text it is, not as a YAML 1.1 integer: SRP
 * identifiers are written so ({@code id-ext: 0x0123456789abcdef}, ACL names of 0x and 32 hex
 * digits), and as numbers they would lose their leading zeros, their digit count, or not fit a
 * long. Other integer keys therefore take decimal numbers only.
 */
final class EmptyAwareYamlConfiguration extends YAMLConfiguration {

    /** YAML 1.1's hexadecimal int form (its sign aside). */
    private static final Pattern HEX = Pattern.compile("0x[0-9a-fA-F_]+");

    /** As {@link YAMLConfiguration#read(Reader, LoaderOptions)}, with {@link HexAsText}. */
    @Override
    public void read(Reader in, LoaderOptions options) throws ConfigurationException {
        Yaml yaml = new Yaml(new SafeConstructor(options), new Representer(new DumperOptions()), new DumperOptions(),
                options, new HexAsText());
        try {
            load(yaml.<Map<String, Object>>load(in));
        } catch (RuntimeException e) {
            throw new ConfigurationException("Unable to load the configuration", e);
        }
    }

    /** The standard resolver, except that {@code 0x...} is a string. */
    private static final class HexAsText extends Resolver {
        @Override
        protected void addImplicitResolvers() {
            addImplicitResolver(Tag.STR, HEX, "0"); // before the int resolver: the first match wins
            super.addImplicitResolvers();
        }
    }

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
