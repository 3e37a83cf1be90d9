package org.jtarget.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.jtarget.initiator.raw.ChapCredentials;
import org.jtarget.initiator.raw.LoginResult;
import org.jtarget.initiator.raw.RawIscsiClient;
import org.jtarget.initiator.raw.ScsiResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 18's live reload of what the next login reads, of portals and of ALUA states, against a
 * real daemon: a CHAP secret rotated by SIGHUP refuses the old secret and takes the new one at
 * login (libiscsi's iscsi-inq) while a session opened before keeps writing and reading; a portal
 * added by a reload takes a login, a removed one refuses connections while a session made through
 * it before stays; {@code jtargetctl alua set} moves a port group, REPORT TARGET PORT GROUPS shows
 * it, and a session open at the time gets ASYMMETRIC ACCESS STATE CHANGED (06/2A/06) once.
 */
class LiveReloadIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final String INITIATOR = "iqn.2026-11.org.jtarget:live-reload-it";
    private static final String OLD_SECRET = "old-secret-1234";
    private static final String NEW_SECRET = "new-secret-5678";
    private static final int BLOCK = 512;

    @TempDir
    Path dir;

    private DaemonProcess daemon;

    @BeforeAll
    static void clientsInstalled() {
        ClientTool.require("iscsi-inq", "libiscsi-bin");
    }

    @AfterEach
    void stop() {
        DaemonProcess.stopCleanlyIfRunning(daemon);
    }

    /** The target on {@code targetPortals} of {@code portals}, with {@code targetExtra} lines, and the API socket. */
    private String config(String portals, String targetPortals, String targetExtra) {
        return "portals:\n" + portals + """
                backstores:
                  - { name: ram0, type: memory, size: 8MiB }
                targets:
                  - iqn: %s
                    portals: [%s]
                    acl: ["*"]
                    luns:
                      - { lun: 0, backstore: ram0 }
                %smanagement: { socket: %s }
                """.formatted(DaemonConfig.IQN, targetPortals, targetExtra, socket());
    }

    private static String portal(String name, int port, String more) {
        return "  - { name: " + name + ", listen: \"127.0.0.1:" + port + "\"" + more + " }\n";
    }

    private static String chap(String secret) {
        return "    chap: { user: alice, secret: " + secret + " }\n";
    }

    private Path socket() {
        return dir.resolve("jtarget.sock");
    }

    private DaemonProcess start(String yaml, int port) throws Exception {
        daemon = DaemonProcess.start(DaemonConfig.write(dir, yaml), port);
        return daemon;
    }

    private void reload(String yaml) throws Exception {
        long before = reloads();
        Files.writeString(daemon.config(), yaml);
        daemon.signal("HUP");
        daemon.await("config reloaded", () -> reloads() > before, Duration.ofSeconds(20));
    }

    private long reloads() {
        return daemon.log().lines().filter(l -> l.contains("config reloaded from")).count();
    }

    private RawIscsiClient session(int port, ChapCredentials chap) throws IOException {
        RawIscsiClient c = RawIscsiClient.connect(DaemonProcess.HOST, port, Duration.ofSeconds(30));
        LoginResult login = chap == null ? c.login(INITIATOR, DaemonConfig.IQN)
                : c.login(INITIATOR, DaemonConfig.IQN, RawIscsiClient.defaultOperationalKeys(), chap);
        assertThat(login.succeeded()).as(login + "\n" + daemon.describe()).isTrue();
        assertThat(c.testUnitReadyClearingUnitAttention(0).good()).isTrue();
        return c;
    }

    private ClientTool.Result inq(String credentials, int port) {
        return ClientTool.run(TIMEOUT, daemon::describe, "iscsi-inq",
                "iscsi://" + credentials + "127.0.0.1:" + port + "/" + DaemonConfig.IQN + "/0");
    }

    private void assertInquiryWorks(String credentials, int port) {
        ClientTool.Result r = inq(credentials, port);
        assertThat(r.exitCode()).as(r.describe()).isZero();
        assertThat(r.stdout()).as(r.describe()).containsPattern("(?m)^Vendor:JTARGET\\s*$");
    }

    /** One block written at {@code lba} and read back through {@code session}. */
    private static void assertWritesAndReads(RawIscsiClient session, long lba, byte fill) throws IOException {
        byte[] block = new byte[BLOCK];
        Arrays.fill(block, fill);
        assertThat(session.write10(0, lba, block, BLOCK).good()).isTrue();
        ScsiResult read = session.read10(0, lba, 1, BLOCK);
        assertThat(read.good()).isTrue();
        assertThat(read.data()).isEqualTo(block);
    }

    @Test
    void aRotatedChapSecretRefusesTheOldOneTakesTheNewAndLeavesAnOpenSessionAlone() throws Exception {
        int port = DaemonProcess.freePort();
        String portals = portal("default", port, "");
        start(config(portals, "default", chap(OLD_SECRET)), port);
        try (RawIscsiClient before = session(port, new ChapCredentials("alice", OLD_SECRET))) {
            assertWritesAndReads(before, 0, (byte) 1);

            InitiatorKeepAlive keepAlive = InitiatorKeepAlive.start(before);
            reload(config(portals, "default", chap(NEW_SECRET)));
            assertThat(daemon.log()).contains("settings of " + DaemonConfig.IQN);
            ClientTool.Result old = inq("alice%" + OLD_SECRET + "@", port);
            assertThat(old.exitCode()).as("the old secret, after the reload: " + old.describe()).isNotZero();
            assertThat(old.stdout() + old.stderr()).as(old.describe()).contains("Authentication failure");
            assertInquiryWorks("alice%" + NEW_SECRET + "@", port);
            keepAlive.close();

            assertWritesAndReads(before, 1, (byte) 2);
            assertThat(before.logout()).isZero();
        }
    }

    @Test
    void aPortalAddedByAReloadTakesALoginAndARemovedOneRefusesConnections() throws Exception {
        int first = DaemonProcess.freePort();
        int second = DaemonProcess.freePort();
        String both = portal("default", first, "") + portal("second", second, "");
        start(config(portal("default", first, ""), "default", ""), first);
        try (RawIscsiClient onFirst = session(first, null)) {
            InitiatorKeepAlive keepAlive = InitiatorKeepAlive.start(onFirst);
            reload(config(both, "default, second", ""));
            assertInquiryWorks("", second);
            assertThat(sendTargets(second)).contains("TargetName=" + DaemonConfig.IQN,
                    "TargetAddress=127.0.0.1:" + first + ",1", "TargetAddress=127.0.0.1:" + second + ",2");

            reload(config(both, "second", ""));
            assertThat(sendTargets(first)).as("the target taken off portal default, asked there")
                    .doesNotContain("TargetName=" + DaemonConfig.IQN);
            assertThat(sendTargets(second)).contains("TargetName=" + DaemonConfig.IQN)
                    .doesNotContain("TargetAddress=127.0.0.1:" + first + ",1");
            try (RawIscsiClient refused = RawIscsiClient.connect(DaemonProcess.HOST, first, Duration.ofSeconds(30))) {
                LoginResult login = refused.login(INITIATOR, DaemonConfig.IQN);
                assertThat(login.succeeded()).as("a login there: " + login).isFalse();
            }

            reload(config(portal("second", second, ""), "second", ""));
            assertThat(DaemonProcess.accepting(first)).as("the removed portal's port\n" + daemon.describe()).isFalse();
            assertThat(daemon.log()).contains("portal default no longer listening on 127.0.0.1:" + first);
            assertInquiryWorks("", second);
            keepAlive.close();

            // a connection made through the removed portal keeps its session, as LIO's do
            assertWritesAndReads(onFirst, 2, (byte) 3);
        }
    }

    /** SendTargets=All in a discovery session on {@code port}: its key=value pairs. */
    private List<String> sendTargets(int port) throws IOException {
        try (RawIscsiClient discovery = RawIscsiClient.connect(DaemonProcess.HOST, port, Duration.ofSeconds(30))) {
            assertThat(discovery.discoveryLogin(INITIATOR).succeeded()).isTrue();
            List<String> pairs = discovery.sendTargets();
            discovery.logout();
            return pairs;
        }
    }

    @Test
    void aluaSetMovesThePortGroupAndAnOpenSessionIsToldOnce() throws Exception {
        int port = DaemonProcess.freePort();
        start(config(portal("default", port, ""), "default", ""), port);
        daemon.await("the management socket", () -> daemon.log().contains("management API on unix:"),
                Duration.ofSeconds(20));
        try (RawIscsiClient open = session(port, null)) {
            assertThat(reportTargetPortGroups(open)).as("before").isEqualTo("group 1 active/optimized");

            InitiatorKeepAlive keepAlive = InitiatorKeepAlive.start(open);
            ClientTool.Result set = ClientTool.jtargetctl(socket(), TIMEOUT, () -> daemon.logTail(40),
                    "alua", "set", "1", "standby");
            keepAlive.close();
            assertThat(set.exitCode()).as(set.describe()).isZero();
            assertThat(set.stdout()).contains("target port group 1 (portals default): standby on " + DaemonConfig.IQN);

            ScsiResult told = open.testUnitReady(0);
            assertThat(SenseText.of(told)).as("the first command after the change: " + told).isEqualTo("06/2A/06");
            ScsiResult standby = open.testUnitReady(0);
            assertThat(SenseText.of(standby)).as("told once; then TEST UNIT READY, not allowed in standby (SPC-4 "
                    + "5.15.2.4.4), is LOGICAL UNIT NOT ACCESSIBLE, TARGET PORT IN STANDBY STATE: " + standby)
                    .isEqualTo("02/04/0B");
            assertThat(reportTargetPortGroups(open)).isEqualTo("group 1 standby");
            assertThat(open.logout()).isZero();
        }
    }

    /**
     * REPORT TARGET PORT GROUPS (SPC-4 6.27, length-only header): the first descriptor's group and
     * asymmetric access state.
     */
    private static String reportTargetPortGroups(RawIscsiClient session) throws IOException {
        byte[] cdb = {(byte) 0xA3, 0x0A, 0, 0, 0, 0, 0, 0, 0x10, 0, 0, 0};
        ScsiResult r = session.execute(0, cdb, 4096);
        assertThat(r.good()).as("REPORT TARGET PORT GROUPS: " + r).isTrue();
        byte[] d = r.data();
        int group = (d[6] & 0xFF) << 8 | d[7] & 0xFF;
        String state = switch (d[4] & 0x0F) {
            case 0 -> "active/optimized";
            case 1 -> "active/non-optimized";
            case 2 -> "standby";
            case 3 -> "unavailable";
            default -> "state " + (d[4] & 0x0F);
        };
        return "group " + group + " " + state;
    }
}
