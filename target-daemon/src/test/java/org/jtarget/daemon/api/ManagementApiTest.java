package org.jtarget.daemon.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.jtarget.config.ConfigLoader;
import org.jtarget.daemon.MemoryTargetYaml;
import org.jtarget.daemon.RawIscsiClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every route of {@code /api/v1} on a started runtime (memory stores, one iSCSI portal), through
 * the Unix socket as {@code jtargetctl} reaches it: what each resource shows, a session listed and
 * ended, a reload applied and one refused, and the refusals' codes.
 */
class ManagementApiTest {

    static final String T = "iqn.2026-11.org.jtarget:api";
    static final String INITIATOR = "iqn.2026-11.org.jtarget:api-initiator";
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private Path configFile;
    private int port;
    private RunningDaemon daemon;
    private ApiClient client;

    /** The test's config: target T with LUN 0 (ram0) and {@code extraLuns}; ram1 of 2 MiB in 4 KiB blocks. */
    static String yaml(int port, Path socket, String extraLuns) {
        return MemoryTargetYaml.of(port, T, "[ { initiator: " + INITIATOR + ", read-only-luns: [0] } ]",
                "[ {lun: 0, backstore: ram0}" + extraLuns + " ]", "management: { socket: " + socket + " }\n")
                .replace("{ name: ram1, type: memory, size: 1MiB }", "{ name: ram1, type: memory, size: 2MiB, block-size: 4096 }");
    }

    @BeforeEach
    void start() throws Exception {
        port = RunningDaemon.freePort();
        configFile = dir.resolve("jtarget.yaml");
        daemon = RunningDaemon.start(configFile, yaml(port, dir.resolve("api.sock"), ""));
        client = ApiClient.unix(dir.resolve("api.sock"));
    }

    @AfterEach
    void stop() {
        daemon.close();
    }

    private JsonNode get(String path) throws IOException {
        ApiClient.Response r = client.get(path);
        assertThat(r.status()).as(path + ": " + r.body()).isEqualTo(200);
        return JSON.readTree(r.body());
    }

    private JsonNode refused(String method, String path, int status, String code) throws IOException {
        ApiClient.Response r = client.send(method, path, null);
        JsonNode error = JSON.readTree(r.body());
        assertThat(r.status()).as(r.body()).isEqualTo(status);
        assertThat(error.get("code").asText()).isEqualTo(code);
        assertThat(error.get("message").asText()).isNotBlank();
        return error;
    }

    @Test
    void theSocketIsTheServiceUsersOnlyAndGoesAwayOnClose() throws Exception {
        Path socket = dir.resolve("api.sock");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(socket))).isEqualTo("rw-------");
        daemon.closeApi();
        assertThat(socket).doesNotExist();
    }

    @Test
    void aFileWhereTheSocketShouldBeIsNeverReplaced() throws Exception {
        Path notASocket = Files.writeString(dir.resolve("precious.yaml"), "keep me\n");
        var api = new ManagementApi(new ManagedDaemon(daemon.runtime, configFile, java.time.Instant.now(), () -> null));
        try {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> UnixSocketListener.start(notASocket, api))
                    .isInstanceOf(IOException.class).hasMessage(notASocket + " exists and is not a socket");
        } finally {
            api.close();
        }
        assertThat(notASocket).hasContent("keep me");
    }

    @Test
    void aSocketInUseIsRefusedAndAStaleOneReplaced() throws Exception {
        var api = new ManagementApi(new ManagedDaemon(daemon.runtime, configFile, java.time.Instant.now(), () -> null));
        try {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> UnixSocketListener.start(dir.resolve("api.sock"), api))
                    .isInstanceOf(IOException.class).hasMessageContaining("is in use by another process");
            Path stale = dir.resolve("stale.sock");
            try (var channel = java.nio.channels.ServerSocketChannel.open(java.net.StandardProtocolFamily.UNIX)) {
                channel.bind(java.net.UnixDomainSocketAddress.of(stale)); // closed without unlinking: a crash's leftover
            }
            try (UnixSocketListener replaced = UnixSocketListener.start(stale, api)) {
                assertThat(ApiClient.unix(stale).get("daemon").status()).isEqualTo(200);
            }
        } finally {
            api.close();
        }
    }

    @Test
    void theDaemonResourceTellsPidStateAndUptime() throws Exception {
        JsonNode d = get("daemon");
        assertThat(d.get("pid").asLong()).isEqualTo(ProcessHandle.current().pid());
        assertThat(d.get("state").asText()).isEqualTo("running");
        assertThat(d.get("uptimeSeconds").asLong()).isNotNegative();
        assertThat(d.get("configFile").asText()).isEqualTo(configFile.toString());
        assertThat(d.get("version").asText()).isNotBlank();
        assertThat(d.get("summary").asText()).isEqualTo("serving 1 target(s) on 1 portal(s)");
    }

    @Test
    void portalsBackstoresTargetsLunsAclAluaAndHaShowTheRunningConfig() throws Exception {
        JsonNode portal = get("portals").get(0);
        assertThat(portal.get("name").asText()).isEqualTo("default");
        assertThat(portal.get("listen").asText()).isEqualTo("127.0.0.1:" + port);
        assertThat(portal.get("transport").asText()).isEqualTo("tcp");

        JsonNode stores = get("backstores");
        assertThat(stores).hasSize(3);
        assertThat(stores.get(1).get("name").asText()).isEqualTo("ram1");
        assertThat(stores.get(1).get("type").asText()).isEqualTo("memory");
        assertThat(stores.get(1).get("sizeBytes").asLong()).isEqualTo(2L << 20);
        assertThat(stores.get(1).get("blockSize").asInt()).isEqualTo(4096);

        JsonNode target = get("targets").get(0);
        assertThat(target.get("iqn").asText()).isEqualTo(T);
        assertThat(target.get("luns").asInt()).isEqualTo(1);
        assertThat(target.get("sessions").asInt()).isZero();

        JsonNode lun = get("targets/" + T + "/luns").get(0);
        assertThat(lun.get("lun").asInt()).isZero();
        assertThat(lun.get("backstore").asText()).isEqualTo("ram0");
        assertThat(lun.get("sizeBytes").asLong()).isEqualTo(1L << 20);
        assertThat(lun.get("medium").asText()).isEqualTo("ready");

        JsonNode acl = get("targets/" + T + "/acl").get(0);
        assertThat(acl.get("initiator").asText()).isEqualTo(INITIATOR);
        assertThat(acl.get("readOnlyLuns").toString()).isEqualTo("[0]");

        JsonNode group = get("alua").get(0).get("groups").get(0);
        assertThat(group.get("id").asInt()).isEqualTo(1);
        assertThat(group.get("state").asText()).isEqualTo("active-optimized");

        assertThat(get("ha").get("configured").asBoolean()).isFalse();
    }

    @Test
    void theConfigIsTheEffectiveOneWithSecretsHidden() throws Exception {
        daemon.close();
        Path socket = dir.resolve("api.sock");
        daemon = RunningDaemon.start(configFile, yaml(port, socket, "").replace("    luns: [", "    chap: { user: u, "
                + "secret: 0123456789abcdef }\n    luns: ["));
        JsonNode c = get("config");
        assertThat(c.get("targets").get(0).get("chap").get("user").asText()).isEqualTo("u");
        assertThat(c.get("targets").get(0).get("chap").get("secret").asText()).isEqualTo("(hidden)");
        assertThat(c.toString()).doesNotContain("0123456789abcdef");
        assertThat(c.get("management").get("socket").asText()).isEqualTo(socket.toString());
        assertThat(c.get("daemon").get("eventLoopThreads").asInt()).as("defaults filled in").isPositive();
    }

    @Test
    void aSessionIsListedWithItsConnectionAndEndedOnRequest() throws Exception {
        try (RawIscsiClient initiator = new RawIscsiClient(new InetSocketAddress("127.0.0.1", port))) {
            initiator.login(INITIATOR, T);
            JsonNode sessions = get("sessions");
            assertThat(sessions).hasSize(1);
            JsonNode s = sessions.get(0);
            assertThat(s.get("initiator").asText()).isEqualTo(INITIATOR);
            assertThat(s.get("target").asText()).isEqualTo(T);
            assertThat(s.get("isid").asText()).isEqualTo("0x800013370001");
            assertThat(s.get("connections").get(0).get("peer").asText()).startsWith("127.0.0.1:");
            assertThat(s.get("parameters").get("HeaderDigest").asText()).isEqualTo("None");
            assertThat(s.get("portal").asText()).isEqualTo("default");
            assertThat(get("targets").get(0).get("sessions").asInt()).isEqualTo(1);

            assertThat(initiator.write(0, 0, 512, new byte[4096])).as("LUN 0 is read-only to this initiator").isEqualTo(2);
            assertThat(initiator.read(0, 0, 512, new byte[4096])).isZero();
            assertThat(initiator.read(0, 8, 512, new byte[1024])).isZero();
            JsonNode carried = get("sessions").get(0);
            assertThat(carried.get("commands").toString()).isEqualTo("{\"read\":2,\"write\":1,\"other\":0}");
            assertThat(carried.get("dataBytes").toString()).isEqualTo("{\"read\":5120,\"write\":0}");
            assertThat(carried.get("failedCommands").asLong()).isEqualTo(1);
            assertThat(carried.get("commandsInFlight").asInt()).as("every command answered").isZero();
            assertThat(carried.get("connections").get(0).get("commandsInFlight").asInt()).isZero();

            ApiClient.Response kicked = client.send("DELETE", "sessions/" + s.get("id").asInt(), null);
            assertThat(kicked.status()).as(kicked.body()).isEqualTo(200);
            assertThat(JSON.readTree(kicked.body()).get("ended").asText())
                    .as("this initiator ignores the logout request: closed after the grace").isEqualTo("closed");
            assertThat(get("sessions")).isEmpty();
        }
    }

    /** SANITIZE with IMMED = 1, OVERWRITE one pass of a 4-byte pattern (SBC-4 5.30): its CDB and parameter list. */
    static final byte[] SANITIZE_OVERWRITE_IMMED = {0x48, (byte) 0x81, 0, 0, 0, 0, 0, 0, 8, 0};
    static final byte[] ONE_PASS_OF_A5 = {0x01, 0, 0, 4, (byte) 0xA5, (byte) 0xA5, (byte) 0xA5, (byte) 0xA5};

    @Test
    void aRunningSanitizeIsATaskWithItsProgressUntilItEnds() throws Exception {
        assertThat(get("tasks")).isEmpty();
        daemon.close();
        // 2 MiB at 1 MiB/s: two chunks of 1 MiB, a second apart
        daemon = RunningDaemon.start(configFile, yaml(port, dir.resolve("api.sock"), ", {lun: 1, backstore: ram1}")
                .replace("daemon: {", "daemon: { sanitize-rate: 1MiB,"));
        try (RawIscsiClient initiator = new RawIscsiClient(new InetSocketAddress("127.0.0.1", port))) {
            initiator.login(INITIATOR, T);
            assertThat(initiator.dataOut(1, SANITIZE_OVERWRITE_IMMED, ONE_PASS_OF_A5)).isZero();
            JsonNode tasks = get("tasks");
            assertThat(tasks).hasSize(1);
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (tasks.get(0).get("doneBytes").asLong() == 0 && System.nanoTime() < deadline) {
                Thread.sleep(20); // the job starts on the LU's I/O thread
                tasks = get("tasks");
            }
            JsonNode task = tasks.get(0);
            assertThat(task.get("kind").asText()).isEqualTo("sanitize-overwrite");
            assertThat(task.get("target").asText()).isEqualTo(T);
            assertThat(task.get("lun").asInt()).isEqualTo(1);
            assertThat(task.get("totalBytes").asLong()).isEqualTo(2L << 20);
            assertThat(task.get("doneBytes").asLong()).as("the first chunk, the second waits for the rate").isEqualTo(1L << 20);
            assertThat(task.get("percent").asDouble()).isEqualTo(50.0);
            assertThat(task.get("bytesPerSecond").asLong()).isPositive();
            assertThat(task.get("secondsLeft").isIntegralNumber()).as(task.toString()).isTrue();
            while (!get("tasks").isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            assertThat(get("tasks")).as("ended: no longer listed").isEmpty();
        }
    }

    @Test
    void reloadAppliesTheEditedFileAndABadOneChangesNothing() throws Exception {
        Path socket = dir.resolve("api.sock");
        Files.writeString(configFile, yaml(port, socket, ", {lun: 1, backstore: ram1}"));
        ApiClient.Response applied = client.send("POST", "reload", null);
        assertThat(applied.status()).as(applied.body()).isEqualTo(200);
        assertThat(get("targets/" + T + "/luns")).hasSize(2);

        Files.writeString(configFile, yaml(port, socket, "").replace("size: 1MiB", "size: lots"));
        JsonNode error = refused("POST", "reload", 409, "reload-refused");
        assertThat(error.get("message").asText()).contains("backstores[0].size");
        assertThat(get("targets/" + T + "/luns")).as("nothing changed").hasSize(2);
    }

    private ApiClient.Response send(String method, String path, String body) throws IOException {
        return client.send(method, path, body);
    }

    @Test
    void lunsAreAddedAndRemovedLiveAndTheFileIsNotTouched() throws Exception {
        String before = Files.readString(configFile);
        ApiClient.Response added = send("POST", "targets/" + T + "/luns", "{\"lun\": 2, \"backstore\": \"ram2\"}");
        assertThat(added.status()).as(added.body()).isEqualTo(200);
        assertThat(JSON.readTree(added.body()).get("note").asText()).contains("config file is unchanged");
        assertThat(daemon.runtime.state().targets().target(T).core().lunNumbers()).containsExactly(0, 2);
        assertThat(get("targets/" + T + "/luns").get(1).get("sizeBytes").asLong()).isEqualTo(1L << 20);

        JsonNode inUse = refusedWith("POST", "targets/" + T + "/luns", "{\"lun\": 3, \"backstore\": \"ram2\"}", 409,
                "edit-refused");
        assertThat(inUse.get("message").asText()).contains("targets[0].luns: backstore 'ram2' is already LUN 2 of " + T);
        refusedWith("POST", "targets/" + T + "/luns", "{\"lun\": 2, \"backstore\": \"ram1\"}", 409, "edit-refused");
        refusedWith("POST", "targets/" + T + "/luns", "{\"lun\": 3, \"backstore\": \"nowhere\"}", 409, "edit-refused");
        assertThat(refusedWith("POST", "targets/" + T + "/luns", "{\"lun\": 3}", 400, "bad-request").get("message")
                .asText()).startsWith("backstore: missing");
        refusedWith("POST", "targets/" + T + "/luns", "{\"lun\": 3, \"backstore\": \"ram1\", \"size\": 1}", 400,
                "bad-request");
        refusedWith("POST", "targets/" + T + "/luns", "not json", 400, "bad-request");

        JsonNode named = refusedWith("DELETE", "targets/" + T + "/luns/0", null, 409, "edit-refused");
        assertThat(named.get("message").asText()).contains("targets[0].acl[0]: names LUN 0");
        assertThat(send("DELETE", "targets/" + T + "/luns/2", null).status()).isEqualTo(200);
        assertThat(daemon.runtime.state().targets().target(T).core().lunNumbers()).containsExactly(0);
        refusedWith("DELETE", "targets/" + T + "/luns/2", null, 409, "edit-refused");
        refusedWith("DELETE", "targets/iqn.2026-11.org.jtarget:nowhere/luns/0", null, 404, "not-found");
        assertThat(Files.readString(configFile)).isEqualTo(before);
    }

    @Test
    void saveWritesTheLiveEditsIntoTheFileKeepingItsModeAndTheRunningConfig() throws Exception {
        Files.setPosixFilePermissions(configFile, PosixFilePermissions.fromString("rw-------"));
        assertThat(JSON.readTree(send("POST", "save", null).body()).get("saved").asBoolean()).as("nothing yet").isFalse();
        assertThat(send("POST", "targets/" + T + "/luns", "{\"lun\": 2, \"backstore\": \"ram2\"}").status())
                .isEqualTo(200);
        assertThat(send("POST", "targets/" + T + "/acl", "{\"initiator\": \"iqn.2026-11.org.x:y\", \"luns\": [2]}")
                .status()).isEqualTo(200);

        ApiClient.Response saved = send("POST", "save", null);
        assertThat(saved.status()).as(saved.body()).isEqualTo(200);
        assertThat(JSON.readTree(saved.body()).get("note").asText()).contains("comments");
        var written = ConfigLoader.load(configFile);
        assertThat(written.targets()).isEqualTo(daemon.runtime.state().config().targets());
        assertThat(written.management()).isEqualTo(daemon.runtime.state().config().management());
        assertThat(Files.readString(configFile)).startsWith("# Written by jtargetd");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(configFile))).isEqualTo("rw-------");
        assertThat(send("POST", "reload", null).status()).isEqualTo(200);
        assertThat(daemon.runtime.state().targets().target(T).core().lunNumbers()).as("kept by the file").containsExactly(0, 2);
    }

    @Test
    void aBackstoreGrowsLiveShowsItsThinUsageAndSaveWritesItsSize() throws Exception {
        var store = daemon.runtime.state().stores().get("ram0");
        assertThat(get("backstores").get(0).get("allocatedBytes").asLong()).as("thin, nothing written").isZero();
        store.write(0, io.netty.buffer.Unpooled.wrappedBuffer(new byte[512]), false);
        assertThat(get("backstores").get(0).get("allocatedBytes").asLong()).as("one 1 MiB chunk").isEqualTo(1L << 20);

        ApiClient.Response grown = send("POST", "backstores/ram0/resize", "{\"size\": \"3MiB\"}");
        assertThat(grown.status()).as(grown.body()).isEqualTo(200);
        JsonNode answer = JSON.readTree(grown.body());
        assertThat(answer.get("backstore").get("sizeBytes").asLong()).isEqualTo(3L << 20);
        assertThat(answer.get("note").asText()).contains("config file is unchanged");
        assertThat(get("targets/" + T + "/luns").get(0).get("sizeBytes").asLong()).isEqualTo(3L << 20);
        assertThat(daemon.runtime.state().targets().target(T).core().logicalUnit(0).blockCount()).isEqualTo(6144);
        assertThat(send("POST", "backstores/ram0/resize", "{\"size\": " + (4L << 20) + "}").status()).isEqualTo(200);

        assertThat(refusedWith("POST", "backstores/ram0/resize", "{\"size\": \"1MiB\"}", 409, "edit-refused")
                .get("message").asText()).contains("backstores[0].size: 1MiB is smaller than the running 4MiB");
        assertThat(refusedWith("POST", "backstores/ram0/resize", "{\"size\": 1000}", 409, "edit-refused")
                .get("message").asText()).contains("backstores[0].size: must be a positive multiple of the block size 512");
        assertThat(refusedWith("POST", "backstores/ram0/resize", "{\"size\": \"2MiX\"}", 400, "bad-request")
                .get("message").asText()).startsWith("size: bad size '2MiX'");
        refusedWith("POST", "backstores/ram0/resize", "{}", 400, "bad-request");
        refusedWith("POST", "backstores/nowhere/resize", "{\"size\": \"8MiB\"}", 404, "not-found");
        assertThat(store.info().sizeBytes()).isEqualTo(4L << 20);

        assertThat(send("POST", "save", null).status()).isEqualTo(200);
        assertThat(Files.readString(configFile)).contains("size: 4MiB");
        assertThat(ConfigLoader.load(configFile).backstores()).isEqualTo(daemon.runtime.state().config().backstores());
        assertThat(send("POST", "reload", null).status()).as("the file says 4MiB now").isEqualTo(200);
    }

    @Test
    void saveRefusesAFileChangedSinceItWasRead() throws Exception {
        assertThat(send("POST", "targets/" + T + "/luns", "{\"lun\": 2, \"backstore\": \"ram2\"}").status())
                .isEqualTo(200);
        String edited = Files.readString(configFile).replace("{ name: ram1, type: memory, size: 2MiB, block-size: 4096 }",
                "{ name: ram1, type: memory, size: 3MiB, block-size: 4096 }");
        Files.writeString(configFile, edited);
        JsonNode refused = refusedWith("POST", "save", null, 409, "save-refused");
        assertThat(refused.get("message").asText()).contains("changed since the daemon read it");
        assertThat(Files.readString(configFile)).as("nothing written").isEqualTo(edited);
    }

    @Test
    void aclEntriesAreAddedAndRemovedLive() throws Exception {
        String other = "iqn.2026-11.org.jtarget:other-initiator";
        ApiClient.Response added = send("POST", "targets/" + T + "/acl", "{\"initiator\": \"" + other
                + "\", \"luns\": [0]}");
        assertThat(added.status()).as(added.body()).isEqualTo(200);
        assertThat(daemon.runtime.state().targets().target(T).core().acl().initiators()).containsExactly(INITIATOR, other);

        refusedWith("POST", "targets/" + T + "/acl", "{\"initiator\": \"" + other + "\"}", 409, "edit-refused");
        refusedWith("POST", "targets/" + T + "/acl", "{\"initiator\": \"*\"}", 409, "edit-refused");
        assertThat(refusedWith("POST", "targets/" + T + "/acl", "{\"initiator\": \"not-a-name\"}", 409, "edit-refused")
                .get("message").asText()).contains("targets[0].acl[2].initiator");
        assertThat(refusedWith("POST", "targets/" + T + "/acl", "{\"initiator\": \"iqn.2026-11.org.x:y\", "
                + "\"luns\": [7]}", 409, "edit-refused").get("message").asText())
                .contains("targets[0].acl[2].luns[0]: LUN 7 is not a LUN of this target");

        assertThat(send("DELETE", "targets/" + T + "/acl/" + INITIATOR, null).status()).isEqualTo(200);
        assertThat(daemon.runtime.state().targets().target(T).core().acl().initiators()).containsExactly(other);
        refusedWith("DELETE", "targets/" + T + "/acl/" + other, null, 409, "edit-refused");
        refusedWith("DELETE", "targets/" + T + "/acl/" + INITIATOR, null, 409, "edit-refused");
    }

    @Test
    void aPortGroupsAluaStateIsSetLiveAndSaveWritesItToTheFile() throws Exception {
        String before = Files.readString(configFile);
        ApiClient.Response set = send("PUT", "alua/1", "{\"state\": \"standby\", \"preferred\": true}");
        assertThat(set.status()).as(set.body()).isEqualTo(200);
        JsonNode answer = JSON.readTree(set.body());
        assertThat(answer.get("note").asText()).contains("config file is unchanged");
        assertThat(answer.get("portals").toString()).isEqualTo("[\"default\"]");
        assertThat(answer.get("targets").get(0).get("iqn").asText()).isEqualTo(T);
        assertThat(answer.get("targets").get(0).get("state").asText()).isEqualTo("standby");
        assertThat(answer.get("targets").get(0).get("preferred").asBoolean()).isTrue();
        assertThat(get("alua").get(0).get("groups").get(0).get("state").asText()).isEqualTo("standby");
        assertThat(daemon.runtime.state().targets().target(T).core().portGroups().stateOf(1))
                .isEqualTo(org.jtarget.scsi.alua.AluaState.STANDBY);
        assertThat(Files.readString(configFile)).as("not saved yet").isEqualTo(before);

        assertThat(send("PUT", "alua/1", "{\"state\": \"active-non-optimized\"}").status()).isEqualTo(200);
        assertThat(get("alua").get(0).get("groups").get(0).get("preferred").asBoolean()).as("left out: kept").isTrue();

        assertThat(send("POST", "save", null).status()).isEqualTo(200);
        var written = ConfigLoader.load(configFile);
        assertThat(written.portals()).isEqualTo(daemon.runtime.state().config().portals());
        assertThat(written.portals().get(0).aluaState()).isEqualTo(org.jtarget.config.AluaSetting.ACTIVE_NON_OPTIMIZED);
        assertThat(written.portals().get(0).aluaPreferred()).isTrue();
    }

    @Test
    void aBadAluaRequestIsRefusedNamingTheField() throws Exception {
        refusedWith("PUT", "alua/9", "{\"state\": \"standby\"}", 404, "not-found");
        refusedWith("PUT", "alua/one", "{\"state\": \"standby\"}", 400, "bad-request");
        assertThat(refusedWith("PUT", "alua/1", "{\"state\": \"sideways\"}", 400, "bad-request").get("message")
                .asText()).startsWith("state: expected one of [active-optimized, active-non-optimized, standby, "
                + "unavailable], got 'sideways'");
        assertThat(refusedWith("PUT", "alua/1", "{\"state\": \"standby\", \"preferred\": \"yes\"}", 400,
                "bad-request").get("message").asText()).startsWith("preferred: expected true or false");
        assertThat(refusedWith("PUT", "alua/1", "{\"preferred\": true}", 400, "bad-request").get("message").asText())
                .startsWith("state: missing");
        refusedWith("PUT", "alua/1", "{\"state\": \"standby\", \"tag\": 1}", 400, "bad-request");
        assertThat(get("alua").get(0).get("groups").get(0).get("state").asText()).as("nothing changed")
                .isEqualTo("active-optimized");
    }

    private JsonNode refusedWith(String method, String path, String body, int status, String code) throws IOException {
        ApiClient.Response r = send(method, path, body);
        assertThat(r.status()).as(r.body()).isEqualTo(status);
        JsonNode error = JSON.readTree(r.body());
        assertThat(error.get("code").asText()).isEqualTo(code);
        return error;
    }

    @Test
    void refusalsAreJsonWithAStableCode() throws Exception {
        refused("GET", "nothing-here", 404, "not-found");
        refused("PUT", "sessions", 405, "method-not-allowed");
        refused("GET", "targets/iqn.2026-11.org.jtarget:nowhere/luns", 404, "not-found");
        refused("DELETE", "sessions/x", 400, "bad-session-id");
        refused("DELETE", "sessions/4242", 404, "not-found");
    }

    @Test
    void garbageOnTheSocketIsA400AndTheConnectionCloses() throws Exception {
        try (var channel = java.nio.channels.SocketChannel.open(java.net.StandardProtocolFamily.UNIX)) {
            channel.connect(java.net.UnixDomainSocketAddress.of(dir.resolve("api.sock")));
            channel.write(java.nio.ByteBuffer.wrap("GET /api/v1/daemon HTTP/1.1\r\nbad header line\r\n\r\n"
                    .getBytes(java.nio.charset.StandardCharsets.US_ASCII)));
            java.io.ByteArrayOutputStream answer = new java.io.ByteArrayOutputStream();
            java.nio.ByteBuffer buffer = java.nio.ByteBuffer.allocate(4096);
            while (channel.read(buffer) >= 0) {
                answer.write(buffer.array(), 0, buffer.position());
                buffer.clear();
            }
            ApiClient.Response r = ApiClient.parse(answer.toByteArray());
            assertThat(r.status()).as(r.body()).isEqualTo(400);
            assertThat(JSON.readTree(r.body()).get("code").asText()).isEqualTo("bad-request");
        }
        assertThat(get("daemon").get("state").asText()).as("still serving").isEqualTo("running");
    }

    @Test
    void theOpenApiDocumentIsServed() throws Exception {
        ApiClient.Response r = client.get("openapi.yaml");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.body()).startsWith("openapi: 3.");
    }
}
