package org.jtarget.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Login security with a real initiator (libiscsi's iscsi-inq): one-way and mutual CHAP succeed
 * with the right secrets and fail with status 0x0201 (authentication failure) with a wrong one or
 * none, and mutual CHAP with a wrong target secret is refused by the initiator. Each refusal is
 * logged with its reason. (libiscsi always offers HeaderDigest=None first, so digests are tested
 * with our raw client in DigestIT.)
 */
class ChapIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final String OPEN_IQN = "iqn.2026-11.org.jtarget:open";
    private static final String SECURE_IQN = "iqn.2026-11.org.jtarget:secure";

    @RegisterExtension
    static final DaemonExtension DAEMON = new DaemonExtension(port -> """
                portals:
                  - name: default
                    listen: 127.0.0.1:%d
                backstores:
                  - { name: ram0, type: memory, size: 16MiB }
                  - { name: ram1, type: memory, size: 16MiB }
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
                """.formatted(port, OPEN_IQN, SECURE_IQN));

    @BeforeAll
    static void clientsInstalled() {
        ClientTool.require("iscsi-inq", "libiscsi-bin");
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
}
