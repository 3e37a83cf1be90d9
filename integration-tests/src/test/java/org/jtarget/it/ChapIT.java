package org.jtarget.it;

import static org.assertj.core.api.Assertions.assertThat;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.time.Duration;
import org.jtarget.initiator.raw.ChapCredentials;
import org.jtarget.initiator.raw.IscsiProtocolException;
import org.jtarget.initiator.raw.LoginResult;
import org.jtarget.initiator.raw.RawIscsiClient;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Login security with a real initiator (libiscsi's iscsi-inq): one-way and mutual CHAP succeed
 * with the right secrets and fail with status 0x0201 (authentication failure) with a wrong one or
 * none, and mutual CHAP with a wrong target secret is refused by the initiator. Each refusal is
 * logged with its reason. (libiscsi always offers HeaderDigest=None first, so digests are tested
 * with our raw client in DigestIT.)
 *
 * <p>CHAP algorithms beyond MD5 (RFC 7143 12.1.3): our raw initiator logs in with SHA-256 and
 * SHA3-256, one-way and mutual, and the target picks from the initiator's offer by its own
 * {@code chap.algorithms} order; libiscsi, which offers MD5 only, still logs in to a target with the
 * default order (iscsi-ls) and is refused by one that leaves MD5 out.
 */
class ChapIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final String OPEN_IQN = "iqn.2026-11.org.jtarget:open";
    private static final String SECURE_IQN = "iqn.2026-11.org.jtarget:secure";
    private static final String INITIATOR = "iqn.2026-11.org.jtarget:chap-algorithms";
    private static final String SHA_ONLY_IQN = "iqn.2026-11.org.jtarget:sha-only";
    /** The SHA-only target has a portal of its own, so iscsi-ls on the default one does not try it. */
    private static final int SHA_ONLY_PORT = DaemonProcess.freePort();

    @RegisterExtension
    static final DaemonExtension DAEMON = new DaemonExtension(port -> """
                portals:
                  - name: default
                    listen: 127.0.0.1:%d
                  - name: sha-only
                    listen: 127.0.0.1:%d
                backstores:
                  - { name: ram0, type: memory, size: 16MiB }
                  - { name: ram1, type: memory, size: 16MiB }
                  - { name: ram2, type: memory, size: 16MiB }
                targets:
                  - iqn: %s
                    portals: [default]
                    luns:
                      - { lun: 0, backstore: ram0 }
                    acl: ["*"]
                  - iqn: %s
                    portals: [default]
                    luns:
                      - { lun: 0, backstore: ram1 }
                    acl: ["*"]
                    chap: { user: alice, secret: alicesecret12, mutual-user: jtgt, mutual-secret: targetsecret34 }
                  - iqn: %s
                    portals: [sha-only]
                    luns:
                      - { lun: 0, backstore: ram2 }
                    acl: ["*"]
                    chap: { user: bob, secret: bobsecret1234, algorithms: [sha256, sha3-256] }
                """.formatted(port, SHA_ONLY_PORT, OPEN_IQN, SECURE_IQN, SHA_ONLY_IQN));

    @BeforeAll
    static void clientsInstalled() {
        ClientTool.require("iscsi-inq", "libiscsi-bin");
        ClientTool.require("iscsi-ls", "libiscsi-bin");
    }

    private static String url(String credentials, String iqn, String query) {
        return "iscsi://" + credentials + "127.0.0.1:" + DAEMON.daemon().port() + "/" + iqn + "/0" + query;
    }

    private static ClientTool.Result inq(String url) {
        return ClientTool.run(TIMEOUT, () -> DAEMON.daemon().describe(), "iscsi-inq", url);
    }

    private static void assertInquiryWorks(String url) {
        ClientTool.Result r = inq(url);
        assertThat(r.exitCode()).as(r.describe()).isZero();
        assertThat(r.stdout()).as(r.describe()).containsPattern("(?m)^Vendor:JTARGET\\s*$");
    }

    private static void assertAuthenticationFailure(String url) {
        ClientTool.Result r = inq(url);
        assertThat(r.exitCode()).as(r.describe()).isNotZero();
        assertThat(r.stdout() + r.stderr()).as(r.describe()).contains("Authentication failure");
    }

    @Test
    void oneWayChapWithTheRightSecretLogsIn() {
        assertInquiryWorks(url("alice%alicesecret12@", SECURE_IQN, ""));
    }

    @Test
    void mutualChapWithBothSecretsLogsIn() {
        assertInquiryWorks(url("alice%alicesecret12@", SECURE_IQN, "?target_user=jtgt&target_password=targetsecret34"));
    }

    @Test
    void wrongSecretIsAnAuthenticationFailure() {
        assertAuthenticationFailure(url("alice%wrongsecret99@", SECURE_IQN, ""));
        assertThat(DAEMON.daemon().log()).contains("login refused with status 0x201: CHAP exchange failed");
    }

    @Test
    void noCredentialsForAChapTargetIsAnAuthenticationFailure() {
        assertAuthenticationFailure(url("", SECURE_IQN, ""));
    }

    @Test
    void initiatorRefusesATargetThatCannotProveItsMutualSecret() {
        ClientTool.Result r = inq(url("alice%alicesecret12@", SECURE_IQN,
                "?target_user=jtgt&target_password=notthesecret99"));
        assertThat(r.exitCode()).as(r.describe()).isNotZero();
        assertThat(r.stdout() + r.stderr()).as(r.describe()).contains("Invalid CHAP_R response from the target");
    }

    // ---------- algorithms beyond MD5 ----------

    private static RawIscsiClient connect(String iqn) throws IOException {
        int port = iqn.equals(SHA_ONLY_IQN) ? SHA_ONLY_PORT : DAEMON.daemon().port();
        return RawIscsiClient.connect(DaemonProcess.HOST, port, TIMEOUT);
    }

    /** Logs in to {@code iqn} with {@code chap}, checks the algorithm the target chose and that LUN 0 answers. */
    private static void assertLogsInWith(String iqn, ChapCredentials chap, String expectedAlgorithm) throws IOException {
        try (RawIscsiClient client = connect(iqn)) {
            LoginResult login = client.login(INITIATOR, iqn, RawIscsiClient.defaultOperationalKeys(), chap);
            assertThat(login.succeeded()).as(login + "\n" + DAEMON.daemon().describe()).isTrue();
            assertThat(login.keys()).containsEntry("CHAP_A", expectedAlgorithm);
            assertThat(client.inquiry(0, false, 0, 96).good()).isTrue();
        }
    }

    private static ChapCredentials alice(String... algorithms) {
        return new ChapCredentials("alice", "alicesecret12").withAlgorithms(algorithms);
    }

    @Test
    void sha256OneWayAndMutualLogIn() throws IOException {
        assertLogsInWith(SECURE_IQN, alice("7"), "7");
        assertLogsInWith(SECURE_IQN, alice("7").withMutual("jtgt", "targetsecret34"), "7");
    }

    @Test
    void sha3_256OneWayAndMutualLogIn() throws IOException {
        assertLogsInWith(SECURE_IQN, alice("8"), "8");
        assertLogsInWith(SECURE_IQN, alice("8").withMutual("jtgt", "targetsecret34"), "8");
    }

    @Test
    void theTargetPicksByItsOwnOrderAmongTheOffered() throws IOException {
        // Default order: SHA3-256 first, whatever order the initiator lists them in.
        assertLogsInWith(SECURE_IQN, alice("5", "6", "7", "8"), "8");
        // chap.algorithms: [sha256, sha3-256]
        ChapCredentials bob = new ChapCredentials("bob", "bobsecret1234").withAlgorithms("8", "7", "5");
        assertLogsInWith(SHA_ONLY_IQN, bob, "7");
    }

    @Test
    void aWrongSecretWithSha256IsRefusedWith0x0201AndLogged() throws IOException {
        try (RawIscsiClient client = connect(SECURE_IQN)) {
            ChapCredentials wrong = new ChapCredentials("alice", "wrongsecret99").withAlgorithms("7");
            LoginResult login = client.login(INITIATOR, SECURE_IQN, RawIscsiClient.defaultOperationalKeys(), wrong);
            assertThat(login.statusClass()).isEqualTo(2);
            assertThat(login.statusDetail()).isEqualTo(1);
        }
        assertThat(DAEMON.daemon().log()).contains("CHAP exchange failed: wrong CHAP_R");
    }

    @Test
    void ourInitiatorRefusesATargetAnsweringMutualSha3WithAnotherSecret() throws IOException {
        try (RawIscsiClient client = connect(SECURE_IQN)) {
            ChapCredentials chap = alice("8").withMutual("jtgt", "notthesecret99");
            assertThatThrownBy(() -> client.login(INITIATOR, SECURE_IQN, RawIscsiClient.defaultOperationalKeys(), chap))
                    .isInstanceOf(IscsiProtocolException.class).hasMessageContaining("target failed mutual CHAP");
        }
    }

    @Test
    void libiscsiOffersMd5AloneAndStillLogsInToTheDefaultOrder() {
        ClientTool.Result ls = ClientTool.run(TIMEOUT, () -> DAEMON.daemon().describe(), "iscsi-ls", "-s",
                "iscsi://alice%alicesecret12@127.0.0.1:" + DAEMON.daemon().port());
        assertThat(ls.exitCode()).as(ls.describe()).isZero();
        assertThat(ls.stdout()).as(ls.describe())
                .contains("Target:" + SECURE_IQN)
                .containsPattern("(?m)^Lun:0\\s+Type:DIRECT_ACCESS");
    }

    @Test
    void aTargetWithoutMd5RefusesLibiscsi() {
        ClientTool.Result inq = ClientTool.run(TIMEOUT, () -> DAEMON.daemon().describe(), "iscsi-inq",
                "iscsi://bob%bobsecret1234@127.0.0.1:" + SHA_ONLY_PORT + "/" + SHA_ONLY_IQN + "/0");
        assertThat(inq.exitCode()).as(inq.describe()).isNotZero();
        assertThat(inq.stdout() + inq.stderr()).as(inq.describe()).contains("Authentication failure");
        assertThat(DAEMON.daemon().log()).contains("none of the offered CHAP_A=5");
    }
}
