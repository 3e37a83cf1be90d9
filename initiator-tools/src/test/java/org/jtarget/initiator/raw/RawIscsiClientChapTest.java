package org.jtarget.initiator.raw;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

class RawIscsiClientChapTest {

    private static final String CHALLENGE = "0x00112233445566778899aabbccddeeff";

    /** RFC 1994 4.1 by the JDK's digest name, computed here independently of ChapCredentials. */
    private static String expected(String jcaName, int id, String secret, String hexChallenge) throws Exception {
        MessageDigest digest = MessageDigest.getInstance(jcaName);
        digest.update((byte) id);
        digest.update(secret.getBytes(StandardCharsets.UTF_8));
        return "0x" + HexFormat.of().formatHex(digest.digest(HexFormat.of().parseHex(hexChallenge.substring(2))));
    }

    private static RawPdu loginResponse(ScriptedTarget t, RawPdu request, int flags, Map<String, String> keys) {
        return t.response(IscsiOpcodes.LOGIN_RESPONSE, request.itt(), request.word24()).flags(flags)
                .isid(request.isid()).data(TextKeys.encode(keys));
    }

    /**
     * Security stage with CHAP: offer, CHAP_A (the target picks {@code algorithm}), CHAP_N/CHAP_R
     * (plus CHAP_I/CHAP_C in mutual CHAP, answered by {@code mutualAnswer}); then the operational stage.
     */
    private static void chapTarget(ScriptedTarget t, Map<String, String> seen, String algorithm, boolean accept,
                                   UnaryOperator<Map<String, String>> mutualAnswer) throws Exception {
        RawPdu offer = t.receive();
        seen.putAll(TextKeys.decode(offer.data()));
        t.reply(loginResponse(t, offer, 0x01, Map.of("AuthMethod", "CHAP")));
        RawPdu algorithms = t.receive();
        seen.putAll(TextKeys.decode(algorithms.data()));
        Map<String, String> challenge = new LinkedHashMap<>();
        challenge.put("CHAP_A", algorithm);
        challenge.put("CHAP_I", "42");
        challenge.put("CHAP_C", CHALLENGE);
        t.reply(loginResponse(t, algorithms, 0x01, challenge));
        RawPdu answer = t.receive();
        Map<String, String> answerKeys = TextKeys.decode(answer.data());
        seen.putAll(answerKeys);
        if (!accept) {
            RawPdu fail = t.response(IscsiOpcodes.LOGIN_RESPONSE, answer.itt(), answer.word24()).flags(0)
                    .isid(answer.isid());
            fail.u8(RawPdu.STATUS_CLASS_OFFSET, 2).u8(RawPdu.STATUS_DETAIL_OFFSET, 1);
            t.reply(fail);
            return;
        }
        t.reply(loginResponse(t, answer, 0x81, mutualAnswer == null ? Map.of() : mutualAnswer.apply(answerKeys)));
        RawPdu op = t.receive();
        t.reply(t.response(IscsiOpcodes.LOGIN_RESPONSE, op.itt(), op.word24()).flags(0x87).tsih(0x55)
                .isid(op.isid()).data(TextKeys.encode(Map.of("MaxRecvDataSegmentLength", "8192"))));
    }

    private static LoginResult login(ScriptedTarget t, ChapCredentials chap) throws Exception {
        try (RawIscsiClient client = RawIscsiClient.connect("127.0.0.1", t.port(), Duration.ofSeconds(5))) {
            LoginResult result = client.login("iqn.i", "iqn.t", RawIscsiClient.defaultOperationalKeys(), chap);
            t.awaitScript();
            return result;
        }
    }

    @Test
    void chapLoginAnswersTheChallengeWithMd5() throws Exception {
        Map<String, String> seen = new LinkedHashMap<>();
        try (ScriptedTarget t = new ScriptedTarget(s -> chapTarget(s, seen, "5", true, null))) {
            LoginResult result = login(t, new ChapCredentials("alice", "alicesecret12"));
            assertThat(result.succeeded()).isTrue();
            assertThat(seen).containsEntry("AuthMethod", "CHAP,None").containsEntry("CHAP_A", "5")
                    .containsEntry("CHAP_N", "alice")
                    .containsEntry("CHAP_R", "0x1d83bcaebe9bb1932407a2377f309a19");
        }
    }

    @Test
    void theOfferedListIsSentAndTheTargetsChoiceIsUsed() throws Exception {
        Map<String, String> seen = new LinkedHashMap<>();
        try (ScriptedTarget t = new ScriptedTarget(s -> chapTarget(s, seen, "8", true, null))) {
            LoginResult result = login(t, new ChapCredentials("alice", "alicesecret12").withAlgorithms("7", "8", "5"));
            assertThat(result.succeeded()).isTrue();
            assertThat(seen).containsEntry("CHAP_A", "7,8,5")
                    .containsEntry("CHAP_R", expected("SHA3-256", 42, "alicesecret12", CHALLENGE));
        }
    }

    @Test
    void eachAlgorithmAnswersWithItsOwnDigest() throws Exception {
        Map<String, String> jcaNames = Map.of("5", "MD5", "6", "SHA-1", "7", "SHA-256", "8", "SHA3-256");
        for (Map.Entry<String, String> algorithm : jcaNames.entrySet()) {
            ChapCredentials chap = new ChapCredentials("alice", "alicesecret12").withAlgorithms(algorithm.getKey());
            assertThat(chap.answer(algorithm.getKey(), "42", CHALLENGE)).as(algorithm.getValue())
                    .isEqualTo(expected(algorithm.getValue(), 42, "alicesecret12", CHALLENGE));
        }
    }

    @Test
    void aTargetChoosingAnAlgorithmNotOfferedIsAProtocolError() throws Exception {
        Map<String, String> seen = new LinkedHashMap<>();
        try (ScriptedTarget t = new ScriptedTarget(s -> chapTarget(s, seen, "5", true, null));
             RawIscsiClient client = RawIscsiClient.connect("127.0.0.1", t.port(), Duration.ofSeconds(5))) {
            ChapCredentials sha256Only = new ChapCredentials("alice", "alicesecret12").withAlgorithms("7");
            assertThatThrownBy(() -> client.login("iqn.i", "iqn.t", RawIscsiClient.defaultOperationalKeys(), sha256Only))
                    .isInstanceOf(IscsiProtocolException.class).hasMessageContaining("CHAP_A=5");
        }
    }

    /** The fake target's mutual answer: right with {@code secret}, named {@code name}. */
    private static UnaryOperator<Map<String, String>> targetAnswers(String jcaName, String name, String secret) {
        return keys -> {
            try {
                return Map.of("CHAP_N", name, "CHAP_R",
                        expected(jcaName, Integer.parseInt(keys.get("CHAP_I")), secret, keys.get("CHAP_C")));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        };
    }

    @Test
    void mutualChapChallengesTheTargetAndAcceptsItsRightAnswer() throws Exception {
        Map<String, String> seen = new LinkedHashMap<>();
        ChapCredentials chap = new ChapCredentials("alice", "alicesecret12").withAlgorithms("7")
                .withMutual("tgt", "targetsecret12");
        try (ScriptedTarget t = new ScriptedTarget(s -> chapTarget(s, seen, "7", true,
                targetAnswers("SHA-256", "tgt", "targetsecret12")))) {
            LoginResult result = login(t, chap);
            assertThat(result.statusClass()).isZero();
            // RFC 7143 12.1.3: our challenge is at least as long as the digest (32 bytes: 64 hex digits).
            assertThat(seen.get("CHAP_C")).startsWith("0x").hasSize(2 + 64).isNotEqualTo(CHALLENGE);
            assertThat(seen).containsKey("CHAP_I");
        }
    }

    @Test
    void mutualChapRefusesATargetThatAnswersWithTheWrongSecret() throws Exception {
        Map<String, String> seen = new LinkedHashMap<>();
        ChapCredentials chap = new ChapCredentials("alice", "alicesecret12").withAlgorithms("8")
                .withMutual("tgt", "targetsecret12");
        try (ScriptedTarget t = new ScriptedTarget(s -> chapTarget(s, seen, "8", true,
                targetAnswers("SHA3-256", "tgt", "not-the-secret")))) {
            assertThatThrownBy(() -> login(t, chap)).isInstanceOf(IscsiProtocolException.class)
                    .hasMessageContaining("target failed mutual CHAP");
        }
    }

    @Test
    void chapRefusalIsReturnedAsTheLoginStatus() throws Exception {
        Map<String, String> seen = new LinkedHashMap<>();
        try (ScriptedTarget t = new ScriptedTarget(s -> chapTarget(s, seen, "5", false, null))) {
            LoginResult result = login(t, new ChapCredentials("alice", "wrong-secret"));
            assertThat(result.succeeded()).isFalse();
            assertThat(result.statusClass()).isEqualTo(2);
            assertThat(result.statusDetail()).isEqualTo(1);
        }
    }
}
