package org.jtarget.fabric.iscsi.login;

import java.util.Base64;
import java.util.HexFormat;

/**
 * Binary and numerical text values (RFC 7143 6.1): "0x" + hex digits or "0b" + base64 for
 * binary values; decimal, or the same encodings, for numbers.
 */
final class BinaryValue {

    private BinaryValue() {
    }

    /** Decodes a binary value, or null if it is not "0x..."/"0b..." or not valid. */
    static byte[] decode(String value) {
        if (value.length() < 3 || value.charAt(0) != '0') {
            return null;
        }
        char kind = value.charAt(1);
        String body = value.substring(2);
        try {
            if (kind == 'x' || kind == 'X') {
                return HexFormat.of().parseHex((body.length() & 1) == 1 ? "0" + body : body);
            }
            if (kind == 'b' || kind == 'B') {
                return Base64.getDecoder().decode(body);
            }
        } catch (IllegalArgumentException e) {
            return null;
        }
        return null;
    }

    /** "0x" + lowercase hex, the encoding RFC 7143 12.1.3 examples use for CHAP. */
    static String hex(byte[] bytes) {
        return "0x" + HexFormat.of().formatHex(bytes);
    }

    /** A non-negative number in decimal or 0x hex, or -1 if not a valid number within [0, 2^40). */
    static long number(String value) {
        if (value.isEmpty() || value.length() > 13) {
            return -1;
        }
        try {
            if (value.length() > 2 && value.charAt(0) == '0' && (value.charAt(1) == 'x' || value.charAt(1) == 'X')) {
                return Long.parseLong(value.substring(2), 16);
            }
            for (int i = 0; i < value.length(); i++) {
                if (value.charAt(i) < '0' || value.charAt(i) > '9') {
                    return -1;
                }
            }
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
