package org.jtarget.initiator.raw;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * CHAP credentials for the security stage (RFC 7143 12.1.3): the initiator proves it knows
 * {@code secret} by answering the target's challenge as RFC 1994 4.1 defines, with the algorithm
 * the target chose among {@code algorithms}; with a target user and secret it also challenges the
 * target (mutual CHAP) and checks the target's answer.
 *
 * <p>Written against the RFC on its own (no daemon classes), so that it checks the target rather
 * than sharing its mistakes.
 *
 * @param user         the CHAP name sent as {@code CHAP_N}
 * @param secret       the shared secret (RFC 7143 12.1.3 asks for at least 12 bytes; not enforced here)
 * @param algorithms   the {@code CHAP_A} values offered, in order of preference (5 MD5, 6 SHA-1,
 *                     7 SHA-256, 8 SHA3-256)
 * @param targetUser   the {@code CHAP_N} the target must answer with in mutual CHAP, or null for one-way
 * @param targetSecret the target's secret for mutual CHAP, or null
 */
public record ChapCredentials(String user, String secret, List<String> algorithms, String targetUser,
                              String targetSecret) {

    /** RFC 7143 12.1.3: algorithm 5 is MD5 (RFC 1994). */
    public static final String MD5_ALGORITHM = "5";

    /** CHAP_A value to the JDK's digest name (IANA "PPP Authentication Algorithms"). */
    private static final Map<String, String> DIGESTS = Map.of("5", "MD5", "6", "SHA-1", "7", "SHA-256",
            "8", "SHA3-256");

    private static final SecureRandom RANDOM = new SecureRandom();

    public ChapCredentials {
        if (user == null || user.isEmpty() || secret == null) {
            throw new IllegalArgumentException("CHAP needs a user name and a secret");
        }
        algorithms = List.copyOf(algorithms);
        if (algorithms.isEmpty() || !DIGESTS.keySet().containsAll(algorithms)) {
            throw new IllegalArgumentException("CHAP algorithms must be some of 5, 6, 7, 8: " + algorithms);
        }
        if ((targetUser == null) != (targetSecret == null)) {
            throw new IllegalArgumentException("mutual CHAP needs both the target's user and secret");
        }
    }

    /** One-way CHAP offering MD5 only, as libiscsi does. */
    public ChapCredentials(String user, String secret) {
        this(user, secret, List.of(MD5_ALGORITHM), null, null);
    }

    /** The same credentials offering {@code codes} (CHAP_A values, most preferred first). */
    public ChapCredentials withAlgorithms(String... codes) {
        return new ChapCredentials(user, secret, List.of(codes), targetUser, targetSecret);
    }

    /** The same credentials with mutual CHAP: the target must prove it knows {@code secretOfTarget}. */
    public ChapCredentials withMutual(String userOfTarget, String secretOfTarget) {
        return new ChapCredentials(user, secret, algorithms, userOfTarget, secretOfTarget);
    }

    public boolean mutual() {
        return targetUser != null;
    }

    /** The {@code CHAP_A} value to send: the offered algorithms, comma separated. */
    public String offer() {
        return String.join(",", algorithms);
    }

    /** RFC 1994 4.1: Response = H(Identifier || secret || Challenge) with CHAP_A {@code algorithm}. */
    public static byte[] response(String algorithm, int identifier, byte[] secret, byte[] challenge) {
        MessageDigest digest = digest(algorithm);
        digest.update((byte) identifier);
        digest.update(secret);
        digest.update(challenge);
        return digest.digest();
    }

    private static MessageDigest digest(String algorithm) {
        try {
            return MessageDigest.getInstance(DIGESTS.get(algorithm));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(DIGESTS.get(algorithm) + " missing from the JDK", e);
        }
    }

    /** Checks that the target chose one of the algorithms offered. */
    public void requireOffered(String chosen) throws IscsiProtocolException {
        if (chosen == null || !algorithms.contains(chosen.trim())) {
            throw new IscsiProtocolException("target chose CHAP_A=" + chosen + ", not one of " + offer());
        }
    }

    /** The {@code CHAP_R} value answering {@code CHAP_I}/{@code CHAP_C} as the target sent them. */
    public String answer(String algorithm, String chapI, String chapC) throws IscsiProtocolException {
        requireOffered(algorithm);
        int id = identifier(chapI);
        byte[] challenge = decodeBinary(chapC);
        return hex(response(algorithm.trim(), id, secret.getBytes(StandardCharsets.UTF_8), challenge));
    }

    /**
     * A fresh random challenge for the target in mutual CHAP, as long as the algorithm's digest
     * (RFC 7143 12.1.3 asks for at least that length).
     */
    public TargetChallenge challengeTarget(String algorithm) {
        byte[] challenge = new byte[digest(algorithm.trim()).getDigestLength()];
        RANDOM.nextBytes(challenge);
        return new TargetChallenge(algorithm.trim(), RANDOM.nextInt(256), challenge);
    }

    /** Checks the target's {@code CHAP_N}/{@code CHAP_R} answer to our challenge. */
    public void verifyTarget(TargetChallenge sent, String chapN, String chapR) throws IscsiProtocolException {
        if (chapN == null || chapR == null) {
            throw new IscsiProtocolException("target did not answer the mutual CHAP challenge");
        }
        byte[] expected = response(sent.algorithm(), sent.identifier(),
                targetSecret.getBytes(StandardCharsets.UTF_8), sent.challenge());
        if (!chapN.equals(targetUser) || !MessageDigest.isEqual(expected, decodeBinary(chapR))) {
            throw new IscsiProtocolException("target failed mutual CHAP (name " + chapN + ")");
        }
    }

    /** Our challenge to the target in mutual CHAP. */
    public record TargetChallenge(String algorithm, int identifier, byte[] challenge) {

        /** {@code CHAP_I} and {@code CHAP_C} to send along with our answer. */
        public Map<String, String> keys() {
            Map<String, String> keys = new LinkedHashMap<>();
            keys.put("CHAP_I", Integer.toString(identifier));
            keys.put("CHAP_C", hex(challenge));
            return keys;
        }
    }

    private static String hex(byte[] bytes) {
        return "0x" + HexFormat.of().formatHex(bytes);
    }

    private static int identifier(String chapI) throws IscsiProtocolException {
        int id;
        try {
            id = Integer.decode(chapI.trim());
        } catch (NumberFormatException | NullPointerException e) {
            throw new IscsiProtocolException("target sent a bad CHAP_I: " + chapI);
        }
        if (id < 0 || id > 255) {
            throw new IscsiProtocolException("CHAP_I out of range 0..255: " + chapI);
        }
        return id;
    }

    /** RFC 7143 6.1: a binary value is {@code 0x} hex or {@code 0b} base64. */
    static byte[] decodeBinary(String value) throws IscsiProtocolException {
        if (value == null || value.length() < 3) {
            throw new IscsiProtocolException("target sent a bad CHAP binary value: " + value);
        }
        String digits = value.substring(2);
        try {
            return switch (value.substring(0, 2).toLowerCase(java.util.Locale.ROOT)) {
                case "0x" -> HexFormat.of().parseHex(digits.length() % 2 == 0 ? digits : "0" + digits);
                case "0b" -> java.util.Base64.getDecoder().decode(digits);
                default -> throw new IscsiProtocolException("CHAP value is not 0x hex or 0b base64: " + value);
            };
        } catch (IllegalArgumentException e) {
            throw new IscsiProtocolException("target sent a bad CHAP binary value: " + value);
        }
    }

    @Override
    public String toString() {
        return "ChapCredentials[user=" + user + ", algorithms=" + algorithms + ", targetUser=" + targetUser
                + "]"; // never print the secrets
    }
}
