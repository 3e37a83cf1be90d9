package org.jtarget.fabric.iscsi;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;
import java.util.Locale;

/**
 * The CHAP hash algorithms of RFC 7143 12.1.3 ({@code CHAP_A}), numbered as in the IANA "PPP
 * Authentication Algorithms" registry. Shared by the target and by our initiator tools.
 */
public enum ChapAlgorithm {
    MD5("5", "md5", "MD5", 16),
    SHA1("6", "sha1", "SHA-1", 20),
    SHA256("7", "sha256", "SHA-256", 32),
    SHA3_256("8", "sha3-256", "SHA3-256", 32);

    /**
     * The target's default order: strongest first, as open-iscsi's default
     * {@code node.session.auth.chap_algs} offers them, MD5 last for MD5-only initiators (libiscsi).
     */
    public static final List<ChapAlgorithm> DEFAULT_PREFERENCE = List.of(SHA3_256, SHA256, SHA1, MD5);

    private final String code;
    private final String configName;
    private final String jcaName;
    private final int digestLength;

    ChapAlgorithm(String code, String configName, String jcaName, int digestLength) {
        this.code = code;
        this.configName = configName;
        this.jcaName = jcaName;
        this.digestLength = digestLength;
    }

    /** The CHAP_A value. */
    public String code() {
        return code;
    }

    /** The name used in the YAML config ({@code md5}, {@code sha1}, {@code sha256}, {@code sha3-256}). */
    public String configName() {
        return configName;
    }

    /** Bytes of a CHAP_R with this algorithm; also the target's challenge length (RFC 7143 12.1.3). */
    public int digestLength() {
        return digestLength;
    }

    /** The algorithm with that CHAP_A value, or null for one not supported. */
    public static ChapAlgorithm ofCode(String code) {
        for (ChapAlgorithm a : values()) {
            if (a.code.equals(code.trim())) {
                return a;
            }
        }
        return null;
    }

    /** The algorithm with that config name (case-insensitive), or null. */
    public static ChapAlgorithm ofConfigName(String name) {
        for (ChapAlgorithm a : values()) {
            if (a.configName.equals(name.toLowerCase(Locale.ROOT))) {
                return a;
            }
        }
        return null;
    }

    /** Every config name, for error messages. */
    public static List<String> configNames() {
        return java.util.Arrays.stream(values()).map(ChapAlgorithm::configName).toList();
    }

    /** RFC 1994 4.1 with this hash: Response = H(Identifier || secret || Challenge). */
    public byte[] response(int identifier, String secret, byte[] challenge) {
        MessageDigest digest = newDigest();
        digest.update((byte) identifier);
        digest.update(secret.getBytes(StandardCharsets.UTF_8));
        digest.update(challenge);
        return digest.digest();
    }

    private MessageDigest newDigest() {
        try {
            return MessageDigest.getInstance(jcaName);
        } catch (NoSuchAlgorithmException e) {
            // Java SE requires MD5, SHA-1 and SHA-256; the JDK's SUN provider has SHA3-256 since JDK 9.
            throw new IllegalStateException(jcaName + " missing from the Java platform", e);
        }
    }
}
