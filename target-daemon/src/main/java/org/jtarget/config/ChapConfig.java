package org.jtarget.config;

/**
 * CHAP credentials of a target ({@code targets[].chap}), RFC 7143 12.1.3.
 *
 * @param user          CHAP_N the initiator must present (key {@code user})
 * @param secret        the initiator's secret, 12+ characters (key {@code secret})
 * @param mutualUser    the target's CHAP_N for mutual CHAP, or null (key {@code mutual-user})
 * @param mutualSecret  the target's secret, 12+ characters and different from {@code secret}, or null
 */
public record ChapConfig(String user, String secret, String mutualUser, String mutualSecret) {

    /** True if the target also authenticates itself to the initiator. */
    public boolean mutual() {
        return mutualUser != null;
    }

    /** Never print secrets. */
    @Override
    public String toString() {
        return "ChapConfig[user=" + user + ", mutualUser=" + mutualUser + "]";
    }
}
