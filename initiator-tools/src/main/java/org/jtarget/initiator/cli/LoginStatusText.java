package org.jtarget.initiator.cli;

import java.util.Map;

/** Login Response status class/detail in words (RFC 7143 11.13.5). */
public final class LoginStatusText {

    private static final Map<Integer, String> STATUS = Map.ofEntries(
            Map.entry(0x0000, "success"),
            Map.entry(0x0101, "target moved temporarily"),
            Map.entry(0x0102, "target moved permanently"),
            Map.entry(0x0200, "initiator error"),
            Map.entry(0x0201, "authentication failure"),
            Map.entry(0x0202, "authorization failure"),
            Map.entry(0x0203, "not found"),
            Map.entry(0x0204, "target removed"),
            Map.entry(0x0205, "unsupported version"),
            Map.entry(0x0206, "too many connections"),
            Map.entry(0x0207, "missing parameter"),
            Map.entry(0x0208, "can't include in session"),
            Map.entry(0x0209, "session type not supported"),
            Map.entry(0x020a, "session does not exist"),
            Map.entry(0x020b, "invalid during login"),
            Map.entry(0x0300, "target error"),
            Map.entry(0x0301, "service unavailable"),
            Map.entry(0x0302, "out of resources"));

    private LoginStatusText() {
    }

    /** E.g. {@code 0x0201 authentication failure}. */
    public static String describe(int statusClass, int statusDetail) {
        int code = (statusClass & 0xff) << 8 | (statusDetail & 0xff);
        String text = STATUS.get(code);
        return String.format("0x%04x %s", code, text != null ? text : "unknown status");
    }
}
