package org.jtarget.fabric.iscsi.login;

import org.jtarget.fabric.iscsi.ChapAlgorithm;
import org.jtarget.fabric.iscsi.ChapCredentials;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

class ChapAuthenticatorTest {

    private static final ChapCredentials MUTUAL =
            new ChapCredentials("alice", "secret-of-alice", "tgt", "secret-of-target");
    private static final String MUTUAL_CHALLENGE = "0x000102030405060708090a0b0c0d0e0f";

    private ChapAuthenticator chap = new ChapAuthenticator(MUTUAL, new Random(7));
    private final List<Map.Entry<String, String>> response = new ArrayList<>();

    /** RFC 1994 4.1 with the JDK's digest by its standard name, independent of ChapAlgorithm. */
    private static byte[] expected(String jcaName, int id, String secret, byte[] challenge) throws Exception {
        MessageDigest digest = MessageDigest.getInstance(jcaName);
        digest.update((byte) id);
        digest.update(secret.getBytes(StandardCharsets.UTF_8));
        return digest.digest(challenge);
    }

    private static Map<String, String> keys(String... kv) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }

    private Map<String, String> answered() {
        Map<String, String> m = new LinkedHashMap<>();
        response.forEach(e -> m.put(e.getKey(), e.getValue()));
        response.clear();
        return m;
    }

    /** Sends CHAP_A and returns the target's CHAP_A/CHAP_I/CHAP_C. */
    private Map<String, String> offer(String algorithms) {
        assertThat(chap.onKeys(keys("CHAP_A", algorithms), response)).isEqualTo(LoginStatus.SUCCESS);
        return answered();
    }

    private static byte[] challengeOf(Map<String, String> challenge) {
        return HexFormat.of().parseHex(challenge.get("CHAP_C").substring(2));
    }

    /** The target's own computation of the right CHAP_R (the known-answer tests check it independently). */
    private static byte[] rightAnswer(ChapAlgorithm algorithm, Map<String, String> challenge) {
        return algorithm.response(Integer.parseInt(challenge.get("CHAP_I")), "secret-of-alice", challengeOf(challenge));
    }

    private static String hex(byte[] bytes) {
        return "0x" + HexFormat.of().formatHex(bytes);
    }

    @ParameterizedTest
    @CsvSource({"5, MD5, 16", "6, SHA-1, 20", "7, SHA-256, 32", "8, SHA3-256, 32"})
    void eachAlgorithmChallengesWithItsDigestLengthAndAcceptsTheRightAnswer(String code, String jcaName, int length)
            throws Exception {
        Map<String, String> challenge = offer(code);
        assertThat(challenge).containsEntry("CHAP_A", code);
        assertThat(challengeOf(challenge)).hasSize(length);
        int id = Integer.parseInt(challenge.get("CHAP_I"));
        byte[] answer = expected(jcaName, id, "secret-of-alice", challengeOf(challenge));
        assertThat(answer).hasSize(length);
        assertThat(chap.onKeys(keys("CHAP_N", "alice", "CHAP_R", hex(answer)), response)).isEqualTo(LoginStatus.SUCCESS);
        assertThat(chap.done()).isTrue();
    }

    @ParameterizedTest
    @CsvSource({"5, MD5", "6, SHA-1", "7, SHA-256", "8, SHA3-256"})
    void mutualChapAnswersWithTheSameAlgorithm(String code, String jcaName) throws Exception {
        Map<String, String> challenge = offer(code);
        byte[] answer = expected(jcaName, Integer.parseInt(challenge.get("CHAP_I")), "secret-of-alice",
                challengeOf(challenge));
        int status = chap.onKeys(keys("CHAP_N", "alice", "CHAP_R", hex(answer), "CHAP_I", "200",
                "CHAP_C", MUTUAL_CHALLENGE), response);
        assertThat(status).isEqualTo(LoginStatus.SUCCESS);
        byte[] ours = HexFormat.of().parseHex(MUTUAL_CHALLENGE.substring(2));
        assertThat(answered()).containsEntry("CHAP_N", "tgt")
                .containsEntry("CHAP_R", hex(expected(jcaName, 200, "secret-of-target", ours)));
    }

    @Test
    void knownAnswerForSha256MatchesAnIndependentComputation() throws Exception {
        // Fixed inputs, so the vector does not depend on the random challenge.
        byte[] c = HexFormat.of().parseHex("00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff");
        assertThat(ChapAlgorithm.SHA256.response(42, "secret-of-alice", c))
                .isEqualTo(expected("SHA-256", 42, "secret-of-alice", c));
        assertThat(ChapAlgorithm.SHA3_256.response(42, "secret-of-alice", c))
                .isEqualTo(expected("SHA3-256", 42, "secret-of-alice", c))
                .isNotEqualTo(expected("SHA-256", 42, "secret-of-alice", c));
    }

    @Test
    void theTargetPicksItsOwnFirstPreferenceAmongTheOffered() {
        assertThat(offer("5,6,7,8")).containsEntry("CHAP_A", "8");
        chap = new ChapAuthenticator(MUTUAL, new Random(7));
        assertThat(offer("5,7")).containsEntry("CHAP_A", "7");
    }

    @Test
    void aConfiguredOrderOverridesTheDefault() {
        ChapCredentials sha1First = new ChapCredentials("alice", "secret-of-alice", null, null,
                List.of(ChapAlgorithm.SHA1, ChapAlgorithm.MD5));
        chap = new ChapAuthenticator(sha1First, new Random(7));
        assertThat(offer("8,7,6,5")).containsEntry("CHAP_A", "6");
    }

    @Test
    void anAlgorithmTheTargetDoesNotAllowIsRefused() {
        ChapCredentials sha256Only = new ChapCredentials("alice", "secret-of-alice", null, null,
                List.of(ChapAlgorithm.SHA256));
        chap = new ChapAuthenticator(sha256Only, new Random(7));
        assertThat(chap.onKeys(keys("CHAP_A", "5"), response)).isEqualTo(LoginStatus.AUTHENTICATION_FAILURE);
        assertThat(chap.failureReason()).contains("CHAP_A=5");
        assertThat(response).isEmpty();
    }

    @ParameterizedTest
    @EnumSource(ChapAlgorithm.class)
    void aResponseOfTheWrongLengthIsRefused(ChapAlgorithm algorithm) {
        byte[] right = rightAnswer(algorithm, offer(algorithm.code()));
        // The right digest with one byte more: a lax comparison of a prefix would accept it.
        byte[] longer = Arrays.copyOf(right, right.length + 1);
        assertThat(chap.onKeys(keys("CHAP_N", "alice", "CHAP_R", hex(longer)), response))
                .isEqualTo(LoginStatus.AUTHENTICATION_FAILURE);
        assertThat(chap.failureReason()).contains("needs " + algorithm.digestLength());
    }

    @Test
    void anMd5AnswerToASha256ChallengeIsRefused() throws Exception {
        Map<String, String> challenge = offer("7");
        byte[] md5 = expected("MD5", Integer.parseInt(challenge.get("CHAP_I")), "secret-of-alice",
                challengeOf(challenge));
        assertThat(chap.onKeys(keys("CHAP_N", "alice", "CHAP_R", hex(md5)), response))
                .isEqualTo(LoginStatus.AUTHENTICATION_FAILURE);
    }

    @ParameterizedTest
    @EnumSource(ChapAlgorithm.class)
    void aReflectedChallengeIsRefusedWithItsReason(ChapAlgorithm algorithm) {
        Map<String, String> challenge = offer(algorithm.code());
        byte[] right = rightAnswer(algorithm, challenge);
        int status = chap.onKeys(keys("CHAP_N", "alice", "CHAP_R", hex(right), "CHAP_I", "9",
                "CHAP_C", challenge.get("CHAP_C")), response);
        assertThat(status).isEqualTo(LoginStatus.AUTHENTICATION_FAILURE);
        assertThat(chap.failureReason()).contains("reflected");
        assertThat(response).as("no answer that an attacker could replay").isEmpty();
        assertThat(chap.done()).isFalse();
    }

    @Test
    void challengeAndIdentifierComeFromTheRandomSource() {
        Map<String, String> first = offer("7");
        chap = new ChapAuthenticator(MUTUAL, new Random(8));
        Map<String, String> second = offer("7");
        assertThat(first.get("CHAP_C")).isNotEqualTo(second.get("CHAP_C"));
    }
}
