package org.jtarget.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.jtarget.initiator.raw.RawIscsiClient;
import org.jtarget.initiator.raw.ScsiResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 18's live-management acceptance: {@code qemu-img bench} writes to LUN 0 of target A while
 * {@code jtargetctl} adds LUN 1 to A, removes LUN 1 of target B, adds an initiator to B's ACL and
 * saves, and then a reload of the edited file adds target C. The bench ends without an error and
 * with no second login (no reconnect); iscsi-inq reaches A's LUN 1 and target C, the admitted
 * initiator logs in to B and finds no LUN 1 there; an initiator logged in to B
 * before gets 05/25/00 on the removed LUN; a broken file on reload changes nothing and the refusal
 * names the key.
 */
class LiveManagementIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(120);
    private static final String A = "iqn.2026-11.org.jtarget:live-a";
    private static final String B = "iqn.2026-11.org.jtarget:live-b";
    private static final String C = "iqn.2026-11.org.jtarget:live-c";
    private static final String INITIATOR = "iqn.2026-11.org.jtarget:live-it";
    private static final String ADMITTED = "iqn.2026-11.org.example:admitted-live";

    @TempDir
    Path dir;

    private DaemonProcess daemon;
    private QemuBench bench;
    private Path socket;

    @BeforeAll
    static void clientsInstalled() {
        ClientTool.requireQemuImgWithIscsi();
        ClientTool.require("iscsi-inq", "libiscsi-bin");
    }

    @AfterEach
    void stop() {
        if (bench != null) {
            bench.close();
        }
        DaemonProcess.stopCleanlyIfRunning(daemon);
    }

    private String config(int port) {
        return DaemonConfig.portalsYaml(port, 0) + """
                backstores:
                  - { name: bench, type: memory, size: 64MiB }
                  - { name: spare, type: memory, size: 8MiB }
                  - { name: b0, type: memory, size: 8MiB }
                  - { name: b1, type: memory, size: 8MiB }
                  - { name: c0, type: memory, size: 8MiB }
                targets:
                  - iqn: %s
                    portals: [default]
                    acl: ["*"]
                    luns:
                      - { lun: 0, backstore: bench }
                  - iqn: %s
                    portals: [default]
                    acl: [%s]
                    luns:
                      - { lun: 0, backstore: b0 }
                      - { lun: 1, backstore: b1 }
                management: { socket: %s }
                """.formatted(A, B, INITIATOR, socket);
    }

    /** {@code jtargetctl ARGS} on the daemon's socket, which must succeed. */
    private ClientTool.Result ctl(String... args) {
        ClientTool.Result r = ClientTool.jtargetctl(socket, TIMEOUT, () -> daemon.logTail(40), args);
        assertThat(r.exitCode()).as(r.describe()).isZero();
        return r;
    }

    @Test
    void changesMadeWhileABenchRunsReachInitiatorsAndTheBenchNeverNotices() throws Exception {
        int port = DaemonProcess.freePort();
        socket = dir.resolve("jtarget.sock");
        Path config = DaemonConfig.write(dir, config(port));
        daemon = DaemonProcess.start(config, port);
        daemon.await("the management socket", () -> daemon.log().contains("management API on unix:"), Duration.ofSeconds(20));
        try (RawIscsiClient onB = RawIscsiClient.connect(DaemonProcess.HOST, port, Duration.ofSeconds(30))) {
            assertThat(onB.login(INITIATOR, B).succeeded()).isTrue();
            assertThat(onB.testUnitReadyClearingUnitAttention(1).good()).as("B's LUN 1 before").isTrue();

            String url = daemon.portalUrl() + "/" + A + "/0";
            bench = QemuBench.writes(url, dir);
            daemon.await("qemu-img logged in", () -> loginsTo(A) >= 1 || !bench.isAlive(), Duration.ofSeconds(20));
            Thread.sleep(500);
            assertThat(bench.isAlive()).as("the bench runs during the changes\n" + bench.output()).isTrue();

            // an idle initiator answers the target's NOP-Ins only while it reads: it pings while the
            // jtargetctl commands run (a JVM start each), or the target would close it
            InitiatorKeepAlive keepAlive = InitiatorKeepAlive.start(onB);
            ctl("lun", "add", A, "1", "spare");
            ctl("lun", "remove", B, "1");
            ctl("acl", "add", B, ADMITTED);
            ctl("save");
            assertThat(Files.readString(config)).contains("backstore: spare").contains(ADMITTED);

            // the file as an administrator edits it after the save: the live changes, and target C
            String edited = config(port)
                    .replace("      - { lun: 0, backstore: bench }\n",
                            "      - { lun: 0, backstore: bench }\n      - { lun: 1, backstore: spare }\n")
                    .replace("acl: [" + INITIATOR + "]", "acl: [" + INITIATOR + ", " + ADMITTED + "]")
                    .replace("      - { lun: 1, backstore: b1 }\n", "")
                    .replace("management:", "  - iqn: " + C + "\n    portals: [default]\n    acl: [\"*\"]\n"
                            + "    luns:\n      - { lun: 0, backstore: c0 }\nmanagement:");
            Files.writeString(config, edited);
            ctl("reload");
            assertThat(bench.isAlive()).as("the bench outlives every change\n" + bench.output()).isTrue();

            Files.writeString(config, edited.replace("size: 64MiB", "size: 64MiX"));
            ClientTool.Result refused = ClientTool.jtargetctl(socket, TIMEOUT, () -> daemon.logTail(40), "reload");
            assertThat(refused.exitCode()).as(refused.describe()).isEqualTo(1);
            assertThat(refused.stderr()).contains("backstores[0].size").contains("(reload-refused)");
            Files.writeString(config, edited);
            keepAlive.close();

            ScsiResult removed = onB.testUnitReady(1);
            assertThat(SenseText.of(removed)).as("TEST UNIT READY of B's removed LUN 1: " + removed)
                    .isIn("05/25/00", "06/3F/0E");
            if (SenseText.of(removed).equals("06/3F/0E")) { // REPORTED LUNS DATA HAS CHANGED first, then the LUN is gone
                assertThat(SenseText.of(onB.testUnitReady(1))).isEqualTo("05/25/00");
            }

            assertThat(bench.awaitKeepingAlive(onB, TIMEOUT)).as("bench ended\n" + bench.output()).isTrue();
            assertThat(bench.exitValue()).as("qemu-img bench exit status\n" + bench.output() + daemon.describe()).isZero();
            assertThat(loginsTo(A)).as("qemu-img never logged in again (no reconnect)\n" + daemon.describe()).isEqualTo(1);
        }
        // libiscsi sees A's new LUN 1 and the new target C (iscsi-ls would stop at B, whose ACL
        // does not name libiscsi's initiator)
        for (String url : new String[] {daemon.portalUrl() + "/" + A + "/1", daemon.portalUrl() + "/" + C + "/0"}) {
            ClientTool.Result inq = ClientTool.runOk(Duration.ofSeconds(30), daemon::describe, "iscsi-inq", url);
            assertThat(inq.stdout()).as(inq.describe()).contains("Peripheral Device Type:");
        }
        try (RawIscsiClient admitted = RawIscsiClient.connect(DaemonProcess.HOST, port, Duration.ofSeconds(30))) {
            assertThat(admitted.login(ADMITTED, B).succeeded()).as("the initiator the ACL change admitted to B").isTrue();
            assertThat(admitted.testUnitReadyClearingUnitAttention(0).good()).isTrue();
            assertThat(admitted.testUnitReady(1).status()).as("B's LUN 1 is gone for it too").isEqualTo(0x02);
        }
    }

    private long loginsTo(String target) {
        return daemon.log().lines().filter(l -> l.contains(" logged in to " + target)
                && !l.contains(INITIATOR)).count();
    }
}
