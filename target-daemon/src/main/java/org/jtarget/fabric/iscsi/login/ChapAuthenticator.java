package org.jtarget.fabric.iscsi.login;

import org.jtarget.fabric.iscsi.ChapAlgorithm;
import org.jtarget.fabric.iscsi.ChapCredentials;

import java.security.MessageDigest;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * The target side of CHAP in the security stage (RFC 7143 12.1.3, RFC 1994) with the algorithms
 * of {@link ChapAlgorithm}: MD5 (5), SHA-1 (6), SHA-256 (7), SHA3-256 (8).
 *
 * <pre>
 *  I: CHAP_A=8,7,5                    T: CHAP_A=a CHAP_I=id CHAP_C=0x(random, as long as a's digest)
 *  I: CHAP_N=user CHAP_R=0x(H(id|secret|C))
 *     [CHAP_I=id2 CHAP_C=0x(challenge)]          mutual CHAP: the initiator challenges the target
 *                                     T: [CHAP_N=mutualUser CHAP_R=0x(H(id2|mutualSecret|challenge))]
 * </pre>
 *
 * The target picks the first algorithm of its own preference order that the initiator offered
 * (RFC 7143 12.1.3 only asks for "one of" the offered ones). Any failure is an authentication
 * failure (login status 0x0201), its reason kept for the log ({@link #failureReason()}). Mutual
 * CHAP is refused when the target has no mutual credentials, or when the initiator sends back the
 * target's own challenge (RFC 7143 12.1.3: a reflected challenge would let an attacker use the
 * target as an oracle for the answer it has to give).
 */
final class ChapAuthenticator {

    /** RFC 7143 12.1.3: binary CHAP values are at most 1024 bytes. */
    static final int MAX_BINARY_LENGTH = 1024;

    private enum State { WAIT_ALGORITHM, WAIT_RESPONSE, DONE }

    private final ChapCredentials credentials;
    private final Random random;
    private State state = State.WAIT_ALGORITHM;
    private ChapAlgorithm algorithm;
    private int identifier;
    private byte[] challenge;
    private String failureReason;

    ChapAuthenticator(ChapCredentials credentials, Random random) {
        this.credentials = credentials;
        this.random = random;
    }

    boolean done() {
        return state == State.DONE;
    }

    /** Why the last call of {@link #onKeys} failed, or null. */
    String failureReason() {
        return failureReason;
    }

    /** The algorithm chosen, or null before CHAP_A was answered. */
    ChapAlgorithm algorithm() {
        return algorithm;
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

    private int fail(String why) {
        failureReason = why;
        return LoginStatus.AUTHENTICATION_FAILURE;
    }

    private int chooseAlgorithm(Map<String, String> keys, List<Map.Entry<String, String>> response) {
        String offered = keys.get("CHAP_A");
        if (offered == null || keys.size() != 1) {
            return fail("expected CHAP_A alone as the first CHAP key");
        }
        algorithm = preferred(List.of(offered.split(",")));
        if (algorithm == null) {
            return fail("none of the offered CHAP_A=" + offered + " is among the target's " + credentials.algorithms());
        }
        identifier = random.nextInt(256);
        // RFC 7143 12.1.3: the challenge should be at least as long as the hash's output.
        challenge = new byte[algorithm.digestLength()];
        random.nextBytes(challenge);
        response.add(Map.entry("CHAP_A", algorithm.code()));
        response.add(Map.entry("CHAP_I", Integer.toString(identifier)));
        response.add(Map.entry("CHAP_C", BinaryValue.hex(challenge)));
        state = State.WAIT_RESPONSE;
        return LoginStatus.SUCCESS;
    }

    /** The first of the target's algorithms the initiator offered, or null. */
    private ChapAlgorithm preferred(List<String> offeredCodes) {
        for (ChapAlgorithm candidate : credentials.algorithms()) {
            if (offeredCodes.stream().anyMatch(code -> code.trim().equals(candidate.code()))) {
                return candidate;
            }
        }
        return null;
    }

    private int verify(Map<String, String> keys, List<Map.Entry<String, String>> response) {
        String name = keys.get("CHAP_N");
        byte[] answer = keys.containsKey("CHAP_R") ? BinaryValue.decode(keys.get("CHAP_R")) : null;
        if (name == null || answer == null) {
            return fail("CHAP_N or CHAP_R missing or malformed");
        }
        if (!name.equals(credentials.user())) {
            return fail("unknown CHAP_N");
        }
        if (answer.length != algorithm.digestLength()) {
            return fail("CHAP_R has " + answer.length + " bytes, " + algorithm + " needs " + algorithm.digestLength());
        }
        byte[] expected = algorithm.response(identifier, credentials.secret(), challenge);
        if (!MessageDigest.isEqual(expected, answer)) {
            return fail("wrong CHAP_R (the initiator's secret differs)");
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
        if (!credentials.mutual()) {
            return fail("mutual CHAP asked of a target without mutual-user/mutual-secret");
        }
        if (mutualId == null || mutualChallenge == null) {
            return fail("mutual CHAP needs both CHAP_I and CHAP_C");
        }
        long id = BinaryValue.number(mutualId);
        byte[] theirs = BinaryValue.decode(mutualChallenge);
        if (id < 0 || id > 255 || theirs == null || theirs.length == 0 || theirs.length > MAX_BINARY_LENGTH) {
            return fail("malformed mutual CHAP_I or CHAP_C");
        }
        if (Arrays.equals(theirs, challenge)) {
            return fail("the initiator's CHAP_C is the target's own challenge reflected back (RFC 7143 12.1.3)");
        }
        response.add(Map.entry("CHAP_N", credentials.mutualUser()));
        response.add(Map.entry("CHAP_R", BinaryValue.hex(algorithm.response((int) id, credentials.mutualSecret(), theirs))));
        state = State.DONE;
        return LoginStatus.SUCCESS;
    }
}
