package org.jtarget.initiator.raw;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Text key=value pairs as carried in Login and Text data segments (RFC 7143 6.1): UTF-8
 * {@code key=value} strings, each terminated by one NUL byte, in order.
 */
public final class TextKeys {

    private TextKeys() {
    }

    /** Encodes pairs in iteration order, each followed by a NUL. */
    public static byte[] encode(Map<String, String> pairs) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Map.Entry<String, String> e : pairs.entrySet()) {
            byte[] kv = (e.getKey() + "=" + e.getValue()).getBytes(StandardCharsets.UTF_8);
            out.write(kv, 0, kv.length);
            out.write(0);
        }
        return out.toByteArray();
    }

    /**
     * Decodes a data segment into ordered pairs. Empty strings between NULs (padding) are skipped;
     * a string without '=' maps to the empty value. A key sent twice keeps its last value, except
     * keys listed many times on purpose (TargetName/TargetAddress in SendTargets): use
     * {@link #decodeAll(byte[])} for those.
     */
    public static Map<String, String> decode(byte[] data) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String[] kv : split(data)) {
            out.put(kv[0], kv[1]);
        }
        return out;
    }

    /** Decodes every pair, repeated keys included, as "key=value" strings in order. */
    public static List<String> decodeAll(byte[] data) {
        List<String> out = new ArrayList<>();
        for (String[] kv : split(data)) {
            out.add(kv[0] + "=" + kv[1]);
        }
        return out;
    }

    private static List<String[]> split(byte[] data) {
        List<String[]> out = new ArrayList<>();
        int start = 0;
        for (int i = 0; i <= data.length; i++) {
            if (i == data.length || data[i] == 0) {
                if (i > start) {
                    String s = new String(data, start, i - start, StandardCharsets.UTF_8);
                    int eq = s.indexOf('=');
                    out.add(eq < 0 ? new String[] {s, ""} : new String[] {s.substring(0, eq), s.substring(eq + 1)});
                }
                start = i + 1;
            }
        }
        return out;
    }
}
