package org.jtarget.fabric.iscsi;

import java.util.List;

/**
 * CHAP secrets for one target (RFC 7143 12.1.3, RFC 1994).
 *
 * @param user          the name the initiator must present (CHAP_N)
 * @param secret        the secret the initiator proves it knows
 * @param mutualUser    the target's name for mutual CHAP (its CHAP_N), or null for one-way CHAP
 * @param mutualSecret  the target's secret for mutual CHAP, or null
 * @param algorithms    the algorithms the target accepts, most preferred first (not empty)
 */
public record ChapCredentials(String user, String secret, String mutualUser, String mutualSecret,
                              List<ChapAlgorithm> algorithms) {

    public ChapCredentials {
        algorithms = List.copyOf(algorithms);
        if (algorithms.isEmpty()) {
            throw new IllegalArgumentException("CHAP needs at least one algorithm");
        }
    }

    /** With {@link ChapAlgorithm#DEFAULT_PREFERENCE}. */
    public ChapCredentials(String user, String secret, String mutualUser, String mutualSecret) {
        this(user, secret, mutualUser, mutualSecret, ChapAlgorithm.DEFAULT_PREFERENCE);
    }

    public boolean mutual() {
        return mutualUser != null && mutualSecret != null;
    }

    /** Never print secrets. */
    @Override
    public String toString() {
        return "ChapCredentials[user=" + user + ", mutualUser=" + mutualUser + ", algorithms=" + algorithms + "]";
    }
}
