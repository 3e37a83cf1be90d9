package org.jtarget.config;

import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

/**
 * iSCSI name checks (RFC 7143 4.2.7, RFC 3722 stringprep profile).
 *
 * <ul>
 *   <li>{@code iqn.yyyy-mm.reversed.domain[:anything]} (4.2.7.2): the date a month in which the
 *       naming authority owned the domain; lowercase only, because RFC 3722 case-folds names and
 *       initiators compare them after folding.</li>
 *   <li>{@code eui.} + 16 hex digits (4.2.7.3, EUI-64).</li>
 *   <li>{@code naa.} + 16 or 32 hex digits (4.2.7.4, RFC 3980).</li>
 * </ul>
 * At most 223 bytes in UTF-8 (4.2.7.1). We accept the ASCII subset of RFC 3722 (letters, digits,
 * '-', '.', ':'); the non-ASCII characters stringprep would allow are refused.
 */
public final class IscsiNames {

    /** RFC 7143 4.2.7.1: "iSCSI names ... are up to 223 bytes". */
    public static final int MAX_NAME_BYTES = 223;

    private static final String LABEL = "[a-z0-9](?:[a-z0-9-]*[a-z0-9])?";
    private static final Pattern IQN = Pattern.compile(
            "iqn\\.\\d{4}-(?:0[1-9]|1[0-2])\\." + LABEL + "(?:\\." + LABEL + ")*(?::[a-z0-9.:-]*)?");
    private static final Pattern EUI = Pattern.compile("eui\\.[0-9A-Fa-f]{16}");
    private static final Pattern NAA = Pattern.compile("naa\\.(?:[0-9A-Fa-f]{16}|[0-9A-Fa-f]{32})");

    private IscsiNames() {
    }

    /** Null if {@code name} is a valid iSCSI name, else why not (one line). */
    public static String problem(String name) {
        return problem(name, "");
    }

    /**
     * As {@link #problem(String)}, for a key that also takes names of another form: a name that is
     * no iSCSI name at all (no iqn., eui. or naa.) hears of {@code otherForms} too, e.g.
     * {@code "; or be an SRP initiator port name: ..."}.
     */
    static String problem(String name, String otherForms) {
        if (name.getBytes(StandardCharsets.UTF_8).length > MAX_NAME_BYTES) {
            return "iSCSI name longer than " + MAX_NAME_BYTES + " bytes (RFC 7143 4.2.7.1)";
        }
        if (name.startsWith("iqn.")) {
            if (!name.equals(name.toLowerCase(java.util.Locale.ROOT))) {
                return "iSCSI name '" + name + "' must be lowercase (RFC 3722)";
            }
            return IQN.matcher(name).matches() ? null : "invalid iqn name '" + name
                    + "' (expected iqn.yyyy-mm.reversed.domain[:id], RFC 7143 4.2.7.2)";
        }
        if (name.startsWith("eui.")) {
            return EUI.matcher(name).matches() ? null
                    : "invalid eui name '" + name + "' (expected eui. and 16 hex digits, RFC 7143 4.2.7.3)";
        }
        if (name.startsWith("naa.")) {
            return NAA.matcher(name).matches() ? null
                    : "invalid naa name '" + name + "' (expected naa. and 16 or 32 hex digits, RFC 7143 4.2.7.4)";
        }
        return "invalid iSCSI name '" + name + "' (must start with iqn., eui. or naa., RFC 7143 4.2.7"
                + otherForms + ")";
    }
}
