package org.jtarget.initiator.raw;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RawIscsiClientChapTest {

    private static final String CHALLENGE = "0x00112233445566778899aabbccddeeff";

    /** Security stage with CHAP: offer, CHAP_A, CHAP_N/CHAP_R; then the operational stage. */
    private static void chapTarget(ScriptedTarget t, Map<String, String> seen, boolean accept) throws Exception {
        RawPdu offer = t.receive();
        seen.putAll(TextKeys.decode(offer.data()));
        t.reply(t.response(IscsiOpcodes.LOGIN_RESPONSE, offer.itt(), offer.word24()).flags(0x01).isid(offer.isid())
                .data(TextKeys.encode(Map.of("AuthMethod", "CHAP"))));
        RawPdu algorithm = t.receive();
        seen.putAll(TextKeys.decode(algorithm.data()));
        Map<String, String> challenge = new LinkedHashMap<>();
        challenge.put("CHAP_A", "5");
        challenge.put("CHAP_I", "42");
        challenge.put("CHAP_C", CHALLENGE);
        t.reply(t.response(IscsiOpcodes.LOGIN_RESPONSE, algorithm.itt(), algorithm.word24()).flags(0x01)
                .isid(algorithm.isid()).data(TextKeys.encode(challenge)));
        RawPdu answer = t.receive();
        seen.putAll(TextKeys.decode(answer.data()));
        if (!accept) {
            RawPdu fail = t.response(IscsiOpcodes.LOGIN_RESPONSE, answer.itt(), answer.word24()).flags(0)
                    .isid(answer.isid());
            fail.u8(RawPdu.STATUS_CLASS_OFFSET, 2).u8(RawPdu.STATUS_DETAIL_OFFSET, 1);
            t.reply(fail);
            return;
        }
        t.reply(t.response(IscsiOpcodes.LOGIN_RESPONSE, answer.itt(), answer.word24()).flags(0x81)
                .isid(answer.isid()));
        RawPdu op = t.receive();
        t.reply(t.response(IscsiOpcodes.LOGIN_RESPONSE, op.itt(), op.word24()).flags(0x87).tsih(0x55)
                .isid(op.isid()).data(TextKeys.encode(Map.of("MaxRecvDataSegmentLength", "8192"))));
    }

    @Test
    void chapLoginAnswersTheChallengeWithMd5() throws Exception {
        Map<String, String> seen = new LinkedHashMap<>();
        try (ScriptedTarget t = new ScriptedTarget(s -> chapTarget(s, seen, true));
             RawIscsiClient client = RawIscsiClient.connect("127.0.0.1", t.port(), Duration.ofSeconds(5))) {
            LoginResult result = client.login("iqn.i", "iqn.t", RawIscsiClient.defaultOperationalKeys(),
                    new ChapCredentials("alice", "alicesecret12"));
            t.awaitScript();
            assertThat(result.succeeded()).isTrue();
            assertThat(seen).containsEntry("AuthMethod", "CHAP,None").containsEntry("CHAP_A", "5")
                    .containsEntry("CHAP_N", "alice")
                    .containsEntry("CHAP_R", "0x1d83bcaebe9bb1932407a2377f309a19");
        }
    }

    @Test
    void chapRefusalIsReturnedAsTheLoginStatus() throws Exception {
        Map<String, String> seen = new LinkedHashMap<>();
        try (ScriptedTarget t = new ScriptedTarget(s -> chapTarget(s, seen, false));
             RawIscsiClient client = RawIscsiClient.connect("127.0.0.1", t.port(), Duration.ofSeconds(5))) {
            LoginResult result = client.login("iqn.i", "iqn.t", RawIscsiClient.defaultOperationalKeys(),
                    new ChapCredentials("alice", "wrong-secret"));
            t.awaitScript();
            assertThat(result.succeeded()).isFalse();
            assertThat(result.statusClass()).isEqualTo(2);
            assertThat(result.statusDetail()).isEqualTo(1);
        }
    }
}
