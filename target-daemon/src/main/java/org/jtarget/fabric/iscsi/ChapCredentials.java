package org.jtarget.fabric.iscsi;

/**
 * CHAP secrets for one target (RFC 7143 12.1.3, RFC 1994).
 *
 * @param user          the name the initiator must present (CHAP_N)
 * @param secret        the secret the initiator proves it knows
 * @param mutualUser    the target's name for mutual CHAP (its CHAP_N), or null for one-way CHAP
 * @param mutualSecret  the target's secret for mutual CHAP, or null
 */
public record ChapCredentials(String user, String secret, String mutualUser, String mutualSecret) {

    public boolean mutual() {
        return mutualUser != null && mutualSecret != null;
    }
}
