package org.jtarget.fabric.iscsi.login;

import org.jtarget.fabric.iscsi.ChapCredentials;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * The target side of CHAP in the security stage (RFC 7143 12.1.3, RFC 1994), MD5 only (CHAP_A=5).
 *
 * <pre>
 *  I: CHAP_A=5[,...]                  T: CHAP_A=5 CHAP_I=id CHAP_C=0x(16 random bytes)
 *  I: CHAP_N=user CHAP_R=0x(MD5(id|secret|C))
 *     [CHAP_I=id2 CHAP_C=0x(challenge)]          mutual CHAP: the initiator challenges the target
 *                                     T: [CHAP_N=mutualUser CHAP_R=0x(MD5(id2|mutualSecret|challenge))]
 * </pre>
 *
 * Any failure is an authentication failure (login status 0x0201). Mutual CHAP is refused when the
 * target has no mutual credentials, or when the initiator sends back the target's own challenge
 * (RFC 7143 12.1.3: a reflected challenge would let an attacker use the target as an oracle).
 */
final class ChapAuthenticator {

    /** RFC 1994 algorithm 5: MD5. */
    static final String MD5 = "5";
    static final int CHALLENGE_LENGTH = 16;
    /** RFC 7143 12.1.3: binary CHAP values are at most 1024 bytes. */
    static final int MAX_BINARY_LENGTH = 1024;

    private enum State { WAIT_ALGORITHM, WAIT_RESPONSE, DONE }

    private final ChapCredentials credentials;
    private final Random random;
    private State state = State.WAIT_ALGORITHM;
    private int identifier;
    private byte[] challenge;

    ChapAuthenticator(ChapCredentials credentials, Random random) {
        this.credentials = credentials;
        this.random = random;
    }

    boolean done() {
        return state == State.DONE;
    }

    /**
     * Handles the CHAP keys of one request.
     *
     * @param keys     the CHAP_* keys the initiator sent in this request
     * @param response receives the target's CHAP keys
     * @return {@link LoginStatus#SUCCESS} or the failure status
     */
    int onKeys(Map<String, String> keys, List<Map.Entry<String, String>> response) {
        if (keys.isEmpty()) {
            return LoginStatus.SUCCESS;
        }
        return switch (state) {
            case WAIT_ALGORITHM -> chooseAlgorithm(keys, response);
            case WAIT_RESPONSE -> verify(keys, response);
            case DONE -> LoginStatus.INITIATOR_ERROR;
        };
    }

    private int chooseAlgorithm(Map<String, String> keys, List<Map.Entry<String, String>> response) {
        String algorithms = keys.get("CHAP_A");
        if (algorithms == null || keys.size() != 1) {
            return LoginStatus.AUTHENTICATION_FAILURE;
        }
        if (!List.of(algorithms.split(",")).contains(MD5)) {
            return LoginStatus.AUTHENTICATION_FAILURE;
        }
        identifier = random.nextInt(256);
        challenge = new byte[CHALLENGE_LENGTH];
        random.nextBytes(challenge);
        response.add(Map.entry("CHAP_A", MD5));
        response.add(Map.entry("CHAP_I", Integer.toString(identifier)));
        response.add(Map.entry("CHAP_C", BinaryValue.hex(challenge)));
        state = State.WAIT_RESPONSE;
        return LoginStatus.SUCCESS;
    }

    private int verify(Map<String, String> keys, List<Map.Entry<String, String>> response) {
        String name = keys.get("CHAP_N");
        byte[] answer = keys.containsKey("CHAP_R") ? BinaryValue.decode(keys.get("CHAP_R")) : null;
        if (name == null || answer == null || !name.equals(credentials.user())) {
            return LoginStatus.AUTHENTICATION_FAILURE;
        }
        byte[] expected = md5(identifier, credentials.secret(), challenge);
        if (!MessageDigest.isEqual(expected, answer)) {
            return LoginStatus.AUTHENTICATION_FAILURE;
        }
        String mutualId = keys.get("CHAP_I");
        String mutualChallenge = keys.get("CHAP_C");
        if (mutualId == null && mutualChallenge == null) {
            state = State.DONE;
            return LoginStatus.SUCCESS;
        }
        return answerMutual(mutualId, mutualChallenge, response);
    }

    private int answerMutual(String mutualId, String mutualChallenge, List<Map.Entry<String, String>> response) {
        if (mutualId == null || mutualChallenge == null || !credentials.mutual()) {
            return LoginStatus.AUTHENTICATION_FAILURE;
        }
        long id = BinaryValue.number(mutualId);
        byte[] theirs = BinaryValue.decode(mutualChallenge);
        if (id < 0 || id > 255 || theirs == null || theirs.length == 0 || theirs.length > MAX_BINARY_LENGTH
                || java.util.Arrays.equals(theirs, challenge)) {
            return LoginStatus.AUTHENTICATION_FAILURE;
        }
        response.add(Map.entry("CHAP_N", credentials.mutualUser()));
        response.add(Map.entry("CHAP_R", BinaryValue.hex(md5((int) id, credentials.mutualSecret(), theirs))));
        state = State.DONE;
        return LoginStatus.SUCCESS;
    }

    /** RFC 1994 4.1: Response = MD5(Identifier || secret || Challenge). */
    static byte[] md5(int identifier, String secret, byte[] challenge) {
        try {
            MessageDigest md = MessageDigest.getInstance("MD5");
            md.update((byte) identifier);
            md.update(secret.getBytes(StandardCharsets.UTF_8));
            md.update(challenge);
            return md.digest();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("MD5 is required by every Java platform", e);
        }
    }
}
