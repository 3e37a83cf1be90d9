package org.jtarget.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Pattern;
import org.jtarget.fabric.srp.iu.SrpLoginReject;
import org.jtarget.initiator.raw.LoginResult;
import org.jtarget.initiator.raw.RawIscsiClient;
import org.jtarget.initiator.raw.ScsiResult;
import org.jtarget.initiator.srp.SrpLoginRefused;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Config reload on SIGHUP, the way an administrator changes a running target: while
 * {@code qemu-img bench} runs on LUN 0, the config gains LUN 2 and loses LUN 1 (and its store);
 * the bench finishes without an error, iscsi-ls shows LUN 2 and not LUN 1, and an initiator that
 * was logged in before gets LOGICAL UNIT NOT SUPPORTED (05/25/00) on LUN 1 afterwards. A reload
 * with a change that needs a restart is refused with one log line naming the key, and nothing
 * changes. An ACL narrowed by a reload ends the session of the initiator it no longer admits, over
 * TCP, iSER or SRP ({@link ScsiTransport}), and refuses its next login. The daemon runs under
 * {@code nohup} (SIGHUP ignored when it starts, as under some supervisors and CI runners): it must
 * take SIGHUP as its reload request all the same.
 */
class ConfigReloadIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(120);
    private static final String INITIATOR = "iqn.2026-11.org.jtarget:reload-it";
    private static final String CONFIG = """
            %sbackstores:
              - { name: bench, type: memory, size: 64MiB }
            %s
            targets:
              - iqn: %s
                portals: [%s]
                acl: %s
            %s    luns:
                  - { lun: 0, backstore: bench%s }
            %s
            """;

    @TempDir
    Path dir;

    private DaemonProcess daemon;
    private QemuBench bench;

    @BeforeAll
    static void clientsInstalled() {
        ClientTool.requireQemuImgWithIscsi();
        ClientTool.require("iscsi-ls", "libiscsi-bin");
    }

    @AfterEach
    void stop() {
        if (bench != null) {
            bench.close();
        }
        DaemonProcess.stopCleanlyIfRunning(daemon);
    }

    /** The config with LUN 0 on the bench store and one more LUN {@code lun} on its own store. */
    private String config(int port, int lun, String lun0Extra) {
        return config(port, lun, lun0Extra, "[\"*\"]");
    }

    private String config(int port, int lun, String lun0Extra, String acl) {
        return config(new Portals(port, 0, 0), lun, lun0Extra, acl);
    }

    /** As above, on {@code portals}: the TCP one and, unless their ports are 0, an iSER and an SRP portal. */
    private String config(Portals portals, int lun, String lun0Extra, String acl) {
        boolean rdma = portals.iser() != 0;
        return CONFIG.formatted(rdma ? portals.yaml() : DaemonConfig.portalsYaml(portals.tcp(), 0),
                "  - { name: extra" + lun + ", type: memory, size: 8MiB }", DaemonConfig.IQN,
                rdma ? Portals.TARGET_PORTALS : DaemonConfig.targetPortals(0), acl, rdma ? Portals.TARGET_SRP : "",
                lun0Extra, "      - { lun: " + lun + ", backstore: extra" + lun + " }");
    }

    @Test
    void aLunIsAddedAndAnotherRemovedWhileABenchRunsOnAThird() throws Exception {
        int port = DaemonProcess.freePort();
        Path config = DaemonConfig.write(dir, config(port, 1, ""));
        daemon = DaemonProcess.startIgnoringHangups(config, port);
        try (RawIscsiClient before = session()) {
            assertThat(before.testUnitReadyClearingUnitAttention(1).good()).as("LUN 1 before the reload").isTrue();

            bench = QemuBench.writes(daemon.url(0), dir);
            daemon.await("qemu-img logged in", () -> daemon.log().lines().filter(l -> l.contains(" logged in to ")).count() >= 2
                    || !bench.isAlive(), Duration.ofSeconds(5));
            Thread.sleep(500);
            assertThat(bench.isAlive()).as("the bench is still running at the reload\n" + bench.output()).isTrue();

            Files.writeString(config, config(port, 2, ""));
            hangUp();
            daemon.await("config reloaded", () -> daemon.log().contains("config reloaded"), Duration.ofSeconds(20));
            assertThat(bench.isAlive()).as("the bench outlives the reload\n" + bench.output()).isTrue();
            assertThat(daemon.log()).contains("+" + DaemonConfig.IQN + " LUN 2", "-" + DaemonConfig.IQN + " LUN 1",
                    "-backstore extra1");

            ScsiResult removed = before.testUnitReady(1);
            assertThat(SenseText.of(removed)).as("TEST UNIT READY of the removed LUN 1: " + removed).isEqualTo("05/25/00");
            assertThat(before.testUnitReadyClearingUnitAttention(2).good()).as("the added LUN 2").isTrue();
            assertLuns(2, 1);

            assertThat(bench.awaitKeepingAlive(before, TIMEOUT)).as("bench ended\n" + bench.output()).isTrue();
            assertThat(bench.exitValue()).as("qemu-img bench exit status\n" + bench.output() + daemon.describe()).isZero();
            daemon.await("extra1 closed", () -> daemon.log().contains("backstore(s) [extra1] closed"), Duration.ofSeconds(10));
            assertThat(before.logout()).isZero();
        }
    }

    @Test
    void aReloadThatNeedsARestartIsRefusedAndChangesNothing() throws Exception {
        int port = DaemonProcess.freePort();
        Path config = DaemonConfig.write(dir, config(port, 1, ""));
        daemon = DaemonProcess.startIgnoringHangups(config, port);
        Files.writeString(config, config(port, 2, ", read-only: true")); // LUN 0 changed: needs a restart
        hangUp();
        daemon.await("reload refused", () -> daemon.log().contains("reload refused"), Duration.ofSeconds(20));
        String refusal = daemon.log().lines().filter(l -> l.contains("reload refused")).findFirst().orElseThrow();
        assertThat(refusal).contains("targets[0].luns[0]: LUN 0 changed");
        assertLuns(1, 2);
        assertThat(daemon.isAlive()).isTrue();
    }

    /**
     * The dropped session is over {@code transport}; the daemon serves a TCP, an iSER and an SRP
     * portal. The session ends as its fabric ends it ({@link ScsiClient#awaitTargetEnd}), after the
     * daemon's line for it (over SRP it names the initiator port {@link ScsiTransport#srpPort}), and
     * a new login is refused: over iSCSI by its Login Response, over SRP by SRP_LOGIN_REJ.
     */
    @ParameterizedTest(name = "[{0}] an ACL that no longer admits an initiator ends its session")
    @EnumSource(ScsiTransport.class)
    void anAclThatNoLongerAdmitsAnInitiatorEndsItsSession(ScsiTransport transport) throws Exception {
        Portals portals = Portals.free();
        int sessionPort = portals.port(transport);
        String name = transport == ScsiTransport.SRP ? ScsiTransport.srpPort(INITIATOR).name() : INITIATOR;
        Path config = DaemonConfig.write(dir, config(portals, 1, "", "[\"*\"]"));
        daemon = DaemonProcess.startIgnoringHangups(config, portals.tcp());
        try (ScsiClient dropped = transport.login(sessionPort, INITIATOR, Duration.ofSeconds(30))) {
            assertThat(dropped.testUnitReadyClearingUnitAttention(0).good()).isTrue();
            Files.writeString(config, config(portals, 1, "", "[ iqn.2026-11.org.jtarget:someone-else ]"));
            hangUp();
            daemon.await("session ended", () -> daemon.log().lines()
                    .anyMatch(l -> l.contains(name) && l.contains("no longer in its ACL")), Duration.ofSeconds(20));
            ScsiClient.TargetEnd end = dropped.awaitTargetEnd(Duration.ofSeconds(10));
            assertThat(end.ended()).as("the old session: " + end.how()).isTrue();
        }
        if (transport == ScsiTransport.SRP) {
            assertThatThrownBy(() -> transport.login(sessionPort, INITIATOR, Duration.ofSeconds(30)).close())
                    .as("a new login of the initiator port the ACL dropped")
                    .isInstanceOfSatisfying(SrpLoginRefused.class, e -> assertThat(e.reason()).as(e.getMessage())
                            .isEqualTo(SrpLoginReject.UNABLE_TO_ESTABLISH_CHANNEL));
            return;
        }
        try (RawIscsiClient again = transport.iscsi().connect(sessionPort, Duration.ofSeconds(30))) {
            LoginResult login = again.login(INITIATOR, DaemonConfig.IQN);
            assertThat(login.succeeded()).as("a new login of the initiator the ACL dropped: " + login).isFalse();
        }
    }

    private RawIscsiClient session() throws IOException {
        RawIscsiClient c = Transport.TCP.connect(daemon.port(), Duration.ofSeconds(30));
        LoginResult login = c.login(INITIATOR, DaemonConfig.IQN);
        assertThat(login.succeeded()).as(login + "\n" + daemon.describe()).isTrue();
        return c;
    }

    /** iscsi-ls shows LUN {@code present} and LUN 0, not LUN {@code absent}. */
    private void assertLuns(int present, int absent) {
        ClientTool.Result ls = ClientTool.runOk(Duration.ofSeconds(30), daemon::describe, "iscsi-ls", "-s",
                daemon.portalUrl());
        assertThat(ls.stdout()).as(ls.describe())
                .containsPattern("(?m)^Target:" + Pattern.quote(DaemonConfig.IQN))
                .containsPattern("(?m)^Lun:0\\s+Type:DIRECT_ACCESS")
                .containsPattern("(?m)^Lun:" + present + "\\s+Type:DIRECT_ACCESS")
                .doesNotContainPattern("(?m)^Lun:" + absent + "\\b");
    }

    private void hangUp() {
        daemon.signal("HUP");
    }

}
