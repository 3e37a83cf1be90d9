package org.jtarget.config;

import java.util.List;

/**
 * CHAP credentials of a target ({@code targets[].chap}), RFC 7143 12.1.3.
 *
 * @param user          CHAP_N the initiator must present (key {@code user})
 * @param secret        the initiator's secret, 12+ characters (key {@code secret})
 * @param mutualUser    the target's CHAP_N for mutual CHAP, or null (key {@code mutual-user})
 * @param mutualSecret  the target's secret, 12+ characters and different from {@code secret}, or null
 * @param algorithms    CHAP_A algorithms the target accepts, most preferred first, by their names in
 *                      {@link #ALGORITHMS} (key {@code algorithms})
 */
public record ChapConfig(String user, String secret, String mutualUser, String mutualSecret, List<String> algorithms) {

    /**
     * Every algorithm name the config accepts (RFC 7143 12.1.3: CHAP_A 8, 7, 6, 5), in the default
     * order: strongest first, as open-iscsi's default {@code node.session.auth.chap_algs} offers
     * them, and MD5 last so MD5-only initiators (libiscsi) still log in. The config is a leaf
     * package; the daemon maps these names to the fabric's algorithms.
     */
    public static final List<String> ALGORITHMS = List.of("sha3-256", "sha256", "sha1", "md5");

    public ChapConfig {
        algorithms = List.copyOf(algorithms);
    }

    /** With every algorithm in the default order. */
    public ChapConfig(String user, String secret, String mutualUser, String mutualSecret) {
        this(user, secret, mutualUser, mutualSecret, ALGORITHMS);
    }

    /** True if the target also authenticates itself to the initiator. */
    public boolean mutual() {
        return mutualUser != null;
    }

    /** Never print secrets. */
    @Override
    public String toString() {
        return "ChapConfig[user=" + user + ", mutualUser=" + mutualUser + ", algorithms=" + algorithms + "]";
    }
}
