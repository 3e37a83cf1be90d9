package org.jtarget.units;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Sizes in bytes as people write them, for the config and for log lines alike (a leaf: the config
 * parses with it and the buffer arena formats with it, so neither depends on the other). Parses
 * sizes: plain bytes ({@code 1048576}) or a number with a binary unit: {@code K/KiB},
 * {@code M/MiB}, {@code G/GiB}, {@code T/TiB} (all powers of 1024, case-insensitive). Decimal
 * units ({@code GB}) are refused rather than guessed: a disk that is 7% smaller than meant is
 * worse than an error.
 */
public final class ByteSize {

    private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*([kmgt](?:ib)?)?", Pattern.CASE_INSENSITIVE);

    private ByteSize() {
    }

    /**
     * The size in bytes of a YAML scalar: a whole number is bytes as it stands, anything else is
     * text for {@link #parse(String)}.
     *
     * @throws IllegalArgumentException with a one-line reason when the value is not a size
     */
    public static long parse(Object yamlValue) {
        return yamlValue instanceof Integer || yamlValue instanceof Long
                ? ((Number) yamlValue).longValue() : parse(yamlValue.toString());
    }

    /**
     * The size in bytes.
     *
     * @throws IllegalArgumentException with a one-line reason when the text is not a size
     */
    public static long parse(String text) {
        Matcher m = SIZE.matcher(text.strip());
        if (!m.matches()) {
            throw new IllegalArgumentException("bad size '" + text
                    + "' (use bytes or a binary unit: K, M, G, T, KiB, MiB, GiB, TiB)");
        }
        int shift = m.group(2) == null ? 0 : shiftOf(m.group(2).charAt(0));
        try {
            long n = Long.parseLong(m.group(1));
            if (n > (Long.MAX_VALUE >> shift)) {
                throw new NumberFormatException();
            }
            return n << shift;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("size '" + text + "' is too large");
        }
    }

    private static int shiftOf(char unit) {
        return switch (Character.toLowerCase(unit)) {
            case 'k' -> 10;
            case 'm' -> 20;
            case 'g' -> 30;
            default -> 40;
        };
    }

    /** Human form for logs: the largest binary unit that divides the size exactly. */
    public static String format(long bytes) {
        String[] units = {"TiB", "GiB", "MiB", "KiB"};
        for (int i = 0; i < units.length; i++) {
            int shift = 40 - 10 * i;
            if (bytes != 0 && bytes % (1L << shift) == 0) {
                return (bytes >> shift) + units[i];
            }
        }
        return String.format(Locale.ROOT, "%d bytes", bytes);
    }
}
