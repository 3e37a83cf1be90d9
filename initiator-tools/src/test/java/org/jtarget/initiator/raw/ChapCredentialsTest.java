package org.jtarget.initiator.raw;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class ChapCredentialsTest {

    @Test
    void responseIsMd5OfIdentifierSecretAndChallenge() {
        // RFC 1994 4.1; expected value computed independently (python hashlib.md5)
        byte[] r = ChapCredentials.response("5", 7, "secret".getBytes(StandardCharsets.UTF_8), new byte[] {1, 2});
        assertThat(HexFormat.of().formatHex(r)).isEqualTo("685ea5241d343e7d5ec57f91aef3a65d");
    }

    @Test
    void answerDecodesHexChallengeAndFormatsHex() throws Exception {
        ChapCredentials c = new ChapCredentials("alice", "alicesecret12");
        assertThat(c.answer("5", "42", "0x00112233445566778899AABBCCDDEEFF"))
                .isEqualTo("0x1d83bcaebe9bb1932407a2377f309a19");
    }

    @Test
    void answerAcceptsBase64Challenge() throws Exception {
        ChapCredentials c = new ChapCredentials("u", "secret");
        assertThat(c.answer("5", "7", "0bAQI=")).isEqualTo("0x685ea5241d343e7d5ec57f91aef3a65d");
    }

    @Test
    void badIdentifierOrChallengeIsAProtocolError() {
        ChapCredentials c = new ChapCredentials("u", "secret");
        assertThatThrownBy(() -> c.answer("5", "300", "0x01")).isInstanceOf(IscsiProtocolException.class);
        assertThatThrownBy(() -> c.answer("5", "x", "0x01")).isInstanceOf(IscsiProtocolException.class);
        assertThatThrownBy(() -> c.answer("5", "1", "zz01")).isInstanceOf(IscsiProtocolException.class);
        assertThatThrownBy(() -> c.answer("5", "1", "0xZZ")).isInstanceOf(IscsiProtocolException.class);
    }

    @Test
    void unknownAlgorithmsAndHalfMutualCredentialsAreRefused() {
        ChapCredentials c = new ChapCredentials("u", "secret");
        assertThatThrownBy(() -> c.withAlgorithms("7", "9")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> c.withAlgorithms()).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> c.withMutual("t", null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void toStringHidesTheSecret() {
        assertThat(new ChapCredentials("u", "topsecret").withMutual("t", "othersecret").toString())
                .doesNotContain("topsecret").doesNotContain("othersecret");
    }
}
