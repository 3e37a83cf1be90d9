package org.jtarget.initiator.raw;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * One-way CHAP credentials for the security stage (RFC 7143 12.1.3): the initiator proves it knows
 * {@code secret} by answering the target's challenge as RFC 1994 4.1 defines, with MD5
 * ({@code CHAP_A=5}).
 *
 * @param user   the CHAP name sent as {@code CHAP_N}
 * @param secret the shared secret (RFC 7143 12.1.3 asks for at least 12 bytes; not enforced here)
 */
public record ChapCredentials(String user, String secret) {

    /** RFC 7143 12.1.3: algorithm 5 is MD5 (RFC 1994). */
    public static final String MD5_ALGORITHM = "5";

    public ChapCredentials {
        if (user == null || user.isEmpty() || secret == null) {
            throw new IllegalArgumentException("CHAP needs a user name and a secret");
        }
    }

    /** RFC 1994 4.1: Response = MD5(Identifier || secret || Challenge). */
    public static byte[] response(int identifier, byte[] secret, byte[] challenge) {
        try {
            MessageDigest md5 = MessageDigest.getInstance("MD5");
            md5.update((byte) identifier);
            md5.update(secret);
            md5.update(challenge);
            return md5.digest();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("MD5 is a mandatory JDK algorithm", e);
        }
    }

    /** The {@code CHAP_R} value answering {@code CHAP_I}/{@code CHAP_C} as the target sent them. */
    public String answer(String chapI, String chapC) throws IscsiProtocolException {
        int id;
        try {
            id = Integer.decode(chapI.trim());
        } catch (NumberFormatException | NullPointerException e) {
            throw new IscsiProtocolException("target sent a bad CHAP_I: " + chapI);
        }
        if (id < 0 || id > 255) {
            throw new IscsiProtocolException("CHAP_I out of range 0..255: " + chapI);
        }
        byte[] challenge = decodeBinary(chapC);
        return "0x" + HexFormat.of().formatHex(response(id, secret.getBytes(StandardCharsets.UTF_8), challenge));
    }

    /** RFC 7143 6.1: a binary value is {@code 0x} hex or {@code 0b} base64. */
    static byte[] decodeBinary(String value) throws IscsiProtocolException {
        if (value == null || value.length() < 3) {
            throw new IscsiProtocolException("target sent a bad CHAP_C: " + value);
        }
        String digits = value.substring(2);
        try {
            return switch (value.substring(0, 2).toLowerCase(java.util.Locale.ROOT)) {
                case "0x" -> HexFormat.of().parseHex(digits.length() % 2 == 0 ? digits : "0" + digits);
                case "0b" -> java.util.Base64.getDecoder().decode(digits);
                default -> throw new IscsiProtocolException("CHAP_C is not 0x hex or 0b base64: " + value);
            };
        } catch (IllegalArgumentException e) {
            throw new IscsiProtocolException("target sent a bad CHAP_C: " + value);
        }
    }

    @Override
    public String toString() {
        return "ChapCredentials[user=" + user + "]"; // never print the secret
    }
}
