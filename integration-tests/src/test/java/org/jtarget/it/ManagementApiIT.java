package org.jtarget.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import org.jtarget.initiator.raw.RawIscsiClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The management API and {@code jtargetctl} (README "Manage") against a real daemon with
 * {@code management.socket}: an initiator logged in shows in {@code session list --json} with its
 * address, {@code session kill} ends it (its connection closes), {@code reload} applies an edited
 * config and refuses a bad one with the key named, {@code lun add} and {@code save} put a LUN into
 * the file, {@code status} reads the daemon; the socket is 0600 and gone once the daemon has stopped.
 */
class ManagementApiIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final String INITIATOR = "iqn.2026-11.org.jtarget:management-it";
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private DaemonProcess daemon;
    private Path socket;

    private ClientTool.Result ctl(String... args) {
        return ClientTool.jtargetctl(socket, TIMEOUT, () -> daemon.logTail(40), args);
    }

    private JsonNode ctlJson(String... args) throws IOException {
        String[] withJson = java.util.Arrays.copyOf(args, args.length + 1);
        withJson[args.length] = "--json";
        ClientTool.Result r = ctl(withJson);
        assertThat(r.exitCode()).as(r.describe()).isZero();
        return JSON.readTree(r.stdout());
    }

    @Test
    void listKickReloadAndStatusThroughJtargetctl() throws Exception {
        int port = DaemonProcess.freePort();
        socket = dir.resolve("jtarget.sock");
        String yaml = DaemonConfig.standard(port).toYaml() + "management: { socket: " + socket + " }\n";
        Path config = DaemonConfig.write(dir, yaml);
        daemon = DaemonProcess.start(config, port);
        try {
            // the API starts right after the runtime's "ready" line the harness waits for
            daemon.await("the management socket", () -> daemon.log().contains("management API on unix:"),
                    Duration.ofSeconds(10));
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(socket))).isEqualTo("rw-------");
            assertThat(daemon.log()).contains("management API on unix:" + socket);

            try (RawIscsiClient initiator = RawIscsiClient.connect(DaemonProcess.HOST, port, Duration.ofSeconds(10))) {
                assertThat(initiator.login(INITIATOR, DaemonConfig.IQN).statusClass()).isZero();
                // an idle initiator answers the target's NOP-Ins only while it reads: it pings
                // while jtargetctl starts (seconds on a busy host), or the target would close it
                InitiatorKeepAlive keepAlive = InitiatorKeepAlive.start(initiator);
                JsonNode sessions = ctlJson("session", "list");
                assertThat(sessions).as(sessions.toString()).hasSize(1);
                JsonNode session = sessions.get(0);
                assertThat(session.get("initiator").asText()).isEqualTo(INITIATOR);
                assertThat(session.get("target").asText()).isEqualTo(DaemonConfig.IQN);
                assertThat(session.get("tsih").asInt()).isEqualTo(initiator.tsih());
                assertThat(session.get("connections").get(0).get("peer").asText()).startsWith(DaemonProcess.HOST + ":");

                ClientTool.Result kill = ctl("session", "kill", session.get("id").asText());
                assertThat(kill.exitCode()).as(kill.describe()).isZero();
                assertThat(kill.stdout()).startsWith("session " + session.get("id").asInt() + " of " + INITIATOR + " ended");
                assertThat(ctlJson("session", "list")).isEmpty();
                keepAlive.close();
                assertThatThrownBy(() -> {
                    for (int i = 0; i < 5; i++) {
                        initiator.testUnitReady(0); // the async logout request may come first; then the close
                    }
                }).as("the kicked initiator's connection is closed").isInstanceOf(IOException.class);
            }

            String withLun2 = yaml.replace("      - { lun: 1, backstore: file0, read-only: false }\n",
                    "      - { lun: 1, backstore: file0, read-only: false }\n      - { lun: 2, backstore: ram1 }\n")
                    .replace("backstores:\n", "backstores:\n  - { name: ram1, type: memory, size: 8MiB }\n"
                            + "  - { name: ram2, type: memory, size: 8MiB }\n");
            Files.writeString(config, withLun2);
            ClientTool.Result reload = ctl("reload");
            assertThat(reload.exitCode()).as(reload.describe()).isZero();
            JsonNode luns = ctlJson("ls").get("targets").get(0).get("luns");
            assertThat(luns).as(luns.toString()).hasSize(3);
            assertThat(luns.get(2).get("backstore").asText()).isEqualTo("ram1");

            Files.writeString(config, yaml.replace("portals: [default]", "portals: [nowhere]"));
            ClientTool.Result refused = ctl("reload");
            assertThat(refused.exitCode()).as(refused.describe()).isEqualTo(1);
            assertThat(refused.stderr()).contains("targets[0].portals").contains("(reload-refused)");
            assertThat(ctlJson("ls").get("targets").get(0).get("luns")).as("nothing changed").hasSize(3);

            Files.writeString(config, withLun2);
            ClientTool.Result added = ctl("lun", "add", DaemonConfig.IQN, "3", "ram2");
            assertThat(added.exitCode()).as(added.describe()).isZero();
            ClientTool.Result saved = ctl("save");
            assertThat(saved.exitCode()).as(saved.describe()).isZero();
            assertThat(Files.readString(config)).contains("backstore: ram2").startsWith("# Written by jtargetd");
            assertThat(ctl("reload").exitCode()).isZero();
            assertThat(ctlJson("ls").get("targets").get(0).get("luns")).as("LUN 3 kept by the saved file").hasSize(4);

            ClientTool.Result status = ctl("status");
            assertThat(status.exitCode()).as(status.describe()).isZero();
            assertThat(status.stdout()).contains("pid " + daemon.pid() + ", running for ")
                    .contains("serving: serving 1 target(s) on 1 portal(s)");
        } finally {
            DaemonProcess.stopCleanlyIfRunning(daemon);
        }
        assertThat(socket).as("removed at stop").doesNotExist();
    }
}
