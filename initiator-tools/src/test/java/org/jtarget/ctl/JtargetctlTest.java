package org.jtarget.ctl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.jtarget.config.ConfigLoader;
import org.jtarget.daemon.JtargetDaemon;
import org.jtarget.daemon.TargetRuntime;
import org.jtarget.daemon.api.ManagedDaemon;
import org.jtarget.daemon.api.ManagementServer;
import org.jtarget.initiator.raw.RawIscsiClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every jtargetctl command against a started runtime's management socket: its table, its
 * {@code --json}, and its exit status when the daemon refuses or cannot be reached.
 */
class JtargetctlTest {

    private static final String T = "iqn.2026-11.org.jtarget:ctl";
    private static final String INITIATOR = "iqn.2026-11.org.jtarget:ctl-initiator";
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private Path socket;
    private Path configFile;
    private int port;
    private TargetRuntime runtime;
    private ManagementServer server;
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private String yaml(String luns) {
        return """
                daemon: { buffer-pool: { pinned-size: 0 }, sanitize-rate: 1MiB }
                portals:
                  - { name: default, listen: "127.0.0.1:%d" }
                backstores:
                  - { name: ram0, type: memory, size: 1MiB }
                  - { name: ram1, type: memory, size: 4MiB }
                targets:
                  - iqn: %s
                    portals: [default]
                    acl: ["*"]
                    luns: %s
                management: { socket: %s }
                """.formatted(port, T, luns, socket);
    }

    @BeforeEach
    void start() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        socket = dir.resolve("ctl.sock");
        configFile = Files.writeString(dir.resolve("jtarget.yaml"), yaml("[ {lun: 0, backstore: ram0} ]"));
        var config = ConfigLoader.load(configFile);
        runtime = new TargetRuntime(config);
        runtime.start();
        server = ManagementServer.start(config.management(), new ManagedDaemon(runtime, configFile, Instant.now(),
                () -> JtargetDaemon.reload(runtime, configFile)));
    }

    @AfterEach
    void stop() {
        server.close();
        runtime.stop(Duration.ofSeconds(5));
    }

    private int run(String... args) {
        String[] all = new String[args.length + 2];
        System.arraycopy(args, 0, all, 0, args.length);
        all[args.length] = "--socket";
        all[args.length + 1] = socket.toString();
        return Jtargetctl.commandLine().setOut(new PrintWriter(out)).setErr(new PrintWriter(err)).execute(all);
    }

    @Test
    void statusSaysPidAndWhatIsServed() throws Exception {
        assertThat(run("status")).isZero();
        assertThat(out.toString()).contains("pid " + ProcessHandle.current().pid() + ", running for ")
                .contains("serving: serving 1 target(s) on 1 portal(s)").contains("config:  " + configFile);
        out.getBuffer().setLength(0);
        assertThat(run("status", "--json")).isZero();
        assertThat(JSON.readTree(out.toString()).get("state").asText()).isEqualTo("running");
    }

    @Test
    void statusShowsARunningSanitizeRisingWithItsRateAndTimeLeft() throws Exception {
        assertThat(run("lun", "add", T, "1", "ram1")).isZero(); // 4 MiB at 1 MiB/s: four chunks, a second apart
        try (RawIscsiClient initiator = RawIscsiClient.connect("127.0.0.1", port, Duration.ofSeconds(10))) {
            assertThat(initiator.login(INITIATOR, T).statusClass()).isZero();
            assertThat(initiator.testUnitReadyClearingUnitAttention(1).status()).isZero();
            byte[] overwriteImmed = {0x48, (byte) 0x81, 0, 0, 0, 0, 0, 0, 8, 0};
            byte[] onePass = {0x01, 0, 0, 4, 0x5A, 0x5A, 0x5A, 0x5A};
            assertThat(initiator.execute(1, overwriteImmed, onePass).status()).isZero();
            double first = workPercent(0);
            assertThat(out.toString()).containsPattern("work:    sanitize-overwrite of " + java.util.regex.Pattern.quote(T)
                    + " LUN 1: \\d+\\.\\d% of 4\\.0MiB, [\\d.]+[KM]iB/s, \\d+s left");
            assertThat(workPercent(first)).as("rising while it runs").isGreaterThan(first);
            out.getBuffer().setLength(0);
            assertThat(run("status", "--json")).isZero();
            JsonNode tasks = JSON.readTree(out.toString()).get("tasks");
            assertThat(tasks).as(out.toString()).hasSize(1);
            assertThat(tasks.get(0).get("totalBytes").asLong()).isEqualTo(4L << 20);
        }
    }

    @Test
    void anHaResyncTaskNamesItsBackstore() throws Exception {
        JsonNode resync = JSON.readTree("{\"kind\":\"ha-resync\",\"target\":null,\"lun\":null,\"backstore\":\"ram0\","
                + "\"doneBytes\":1048576,\"totalBytes\":4194304,\"percent\":25.0,\"bytesPerSecond\":524288,"
                + "\"secondsLeft\":6,\"runningSeconds\":2.0}");
        assertThat(Jtargetctl.task(resync)).isEqualTo("ha-resync of backstore ram0: 25.0% of 4.0MiB, 512.0KiB/s, 6s left");
    }

    /** Runs {@code status} until its work line reads more than {@code above} percent; that percentage. */
    private double workPercent(double above) throws InterruptedException {
        java.util.regex.Pattern percent = java.util.regex.Pattern.compile("work: .*: (\\d+\\.\\d)% of");
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (System.nanoTime() < deadline) {
            out.getBuffer().setLength(0);
            assertThat(run("status")).isZero();
            java.util.regex.Matcher m = percent.matcher(out.toString());
            if (m.find() && Double.parseDouble(m.group(1)) > above) {
                return Double.parseDouble(m.group(1));
            }
            Thread.sleep(50);
        }
        throw new AssertionError("no work line above " + above + "%: " + out);
    }

    @Test
    void lsShowsPortalsBackstoresTargetsLunsAndAcl() throws Exception {
        assertThat(run("ls")).isZero();
        assertThat(out.toString()).contains("default", "tcp", "127.0.0.1:" + port)
                .containsPattern("ram1 +memory \\(thin\\) +4MiB \\(0 used\\) +512")
                .contains(T + "  (0 session(s), portals default)")
                .containsPattern("0 +ram0 +1MiB +ready +read-write")
                .contains("acl *");
        out.getBuffer().setLength(0);
        assertThat(run("ls", "--json")).isZero();
        JsonNode all = JSON.readTree(out.toString());
        assertThat(all.get("targets").get(0).get("luns").get(0).get("backstore").asText()).isEqualTo("ram0");
    }

    @Test
    void sessionListShowsTheInitiatorAndSessionKillEndsIt() throws Exception {
        try (RawIscsiClient initiator = RawIscsiClient.connect("127.0.0.1", port, Duration.ofSeconds(10))) {
            assertThat(initiator.login(INITIATOR, T).statusClass()).isZero();
            assertThat(initiator.write10(0, 0, new byte[8192], 512).status()).isZero();
            assertThat(initiator.read10(0, 0, 2, 512).status()).isZero();
            assertThat(run("session", "list")).isZero();
            assertThat(out.toString()).startsWith("ID").contains(INITIATOR, T, "127.0.0.1")
                    .contains("READS  WRITES  READ    WRITTEN  FAILED")
                    .containsPattern("127\\.0\\.0\\.1:\\d+ +1 +1 +1\\.0KiB +8\\.0KiB +0");
            out.getBuffer().setLength(0);
            assertThat(run("session", "list", "--json")).isZero();
            JsonNode sessions = JSON.readTree(out.toString());
            assertThat(sessions).hasSize(1);
            int id = sessions.get(0).get("id").asInt();
            out.getBuffer().setLength(0);

            assertThat(run("session", "kill", Integer.toString(id))).isZero();
            assertThat(out.toString()).startsWith("session " + id + " of " + INITIATOR + " ended (");
            out.getBuffer().setLength(0);
            assertThat(run("session", "list", "--json")).isZero();
            assertThat(JSON.readTree(out.toString())).isEmpty();
            assertThat(run("session", "kill", Integer.toString(id))).isEqualTo(Jtargetctl.EXIT_REFUSED);
            assertThat(err.toString()).contains("jtargetctl: no session " + id + " (not-found)");
        }
    }

    @Test
    void reloadAppliesTheFileAndARefusalIsExitOneWithTheKey() throws Exception {
        Files.writeString(configFile, yaml("[ {lun: 0, backstore: ram0}, {lun: 1, backstore: ram1} ]"));
        assertThat(run("reload")).isZero();
        assertThat(out.toString()).isEqualTo("reloaded " + configFile + ": 1 target(s)" + System.lineSeparator());
        assertThat(runtime.state().targets().target(T).core().lunNumbers()).containsExactly(0, 1);

        Files.writeString(configFile, yaml("[ {lun: 0, backstore: nowhere} ]"));
        assertThat(run("reload")).isEqualTo(Jtargetctl.EXIT_REFUSED);
        assertThat(err.toString()).contains("targets[0].luns[0].backstore").contains("(reload-refused)");
        assertThat(runtime.state().targets().target(T).core().lunNumbers()).containsExactly(0, 1);
    }

    @Test
    void overTcpWithTheTokenFile() throws Exception {
        stop();
        int http;
        try (ServerSocket s = new ServerSocket(0)) {
            http = s.getLocalPort();
        }
        Path token = Files.writeString(dir.resolve("token"), "ctl-test-token\n");
        Files.writeString(configFile, yaml("[ {lun: 0, backstore: ram0} ]").replaceAll("management: .*\n",
                "management: { http: \"127.0.0.1:" + http + "\", token-file: token }\n"));
        var config = ConfigLoader.load(configFile);
        runtime = new TargetRuntime(config);
        runtime.start();
        server = ManagementServer.start(config.management(), new ManagedDaemon(runtime, configFile, Instant.now(),
                () -> null));

        assertThat(run("status", "--http", "127.0.0.1:" + http, "--token-file", token.toString())).isZero();
        assertThat(out.toString()).contains("serving: serving 1 target(s)");
        Path wrong = Files.writeString(dir.resolve("wrong"), "not-the-token\n");
        assertThat(run("status", "--http", "127.0.0.1:" + http, "--token-file", wrong.toString()))
                .isEqualTo(Jtargetctl.EXIT_REFUSED);
        assertThat(err.toString()).contains("(unauthorized)");
        assertThat(run("status", "--http", "127.0.0.1:" + http)).as("no token file").isEqualTo(2);
        assertThat(err.toString()).contains("--http needs --token-file");
    }

    @Test
    void lunAddAndRemoveChangeTheRunningTargetOnly() throws Exception {
        assertThat(run("lun", "add", T, "1", "ram1", "--read-only")).as(err.toString()).isZero();
        assertThat(out.toString()).startsWith("LUN 1 (ram1) added to " + T + System.lineSeparator()
                + "note: applied to the running daemon only");
        assertThat(runtime.state().targets().target(T).core().lunNumbers()).containsExactly(0, 1);
        assertThat(runtime.state().targets().target(T).core().logicalUnit(1).readOnly()).isTrue();
        assertThat(Files.readString(configFile)).doesNotContain("ram1 }");

        assertThat(run("lun", "add", T, "2", "ram1")).isEqualTo(Jtargetctl.EXIT_REFUSED);
        assertThat(err.toString()).contains("backstore 'ram1' is already LUN 1").contains("(edit-refused)");
        assertThat(run("lun", "remove", T, "1")).isZero();
        assertThat(runtime.state().targets().target(T).core().lunNumbers()).containsExactly(0);
    }

    @Test
    void backstoreResizeGrowsTheStoreAndLsShowsItsSizeAndUsage() throws Exception {
        runtime.state().stores().get("ram0").write(0, io.netty.buffer.Unpooled.wrappedBuffer(new byte[512]), false);
        assertThat(run("backstore", "resize", "ram0", "3MiB")).as(err.toString()).isZero();
        assertThat(out.toString()).startsWith("backstore ram0 grown to 3MiB" + System.lineSeparator()
                + "note: applied to the running daemon only");
        assertThat(runtime.state().targets().target(T).core().logicalUnit(0).blockCount()).isEqualTo(6144);
        out.getBuffer().setLength(0);
        assertThat(run("ls")).isZero();
        assertThat(out.toString()).containsPattern("ram0 +memory \\(thin\\) +3MiB \\(1MiB used\\) +512");
        out.getBuffer().setLength(0);
        assertThat(run("backstore", "resize", "ram0", Long.toString(4L << 20), "--json")).isZero();
        assertThat(JSON.readTree(out.toString()).get("backstore").get("sizeBytes").asLong()).isEqualTo(4L << 20);

        assertThat(run("backstore", "resize", "ram0", "1MiB")).isEqualTo(Jtargetctl.EXIT_REFUSED);
        assertThat(err.toString()).contains("backstores[0].size: 1MiB is smaller than the running 4MiB")
                .contains("(edit-refused)");
        assertThat(runtime.state().stores().get("ram0").info().sizeBytes()).isEqualTo(4L << 20);
    }

    @Test
    void aluaSetMovesThePortGroupAndSaysItIsNotSaved() throws Exception {
        assertThat(run("alua", "set", "1", "standby", "--preferred")).as(err.toString()).isZero();
        assertThat(out.toString()).startsWith("target port group 1 (portals default): standby, preferred on " + T
                + System.lineSeparator() + "note: applied to the running daemon only");
        var group = runtime.state().targets().target(T).core().portGroups().group(1);
        assertThat(group.state()).isEqualTo(org.jtarget.scsi.alua.AluaState.STANDBY);
        assertThat(group.preferred()).isTrue();
        assertThat(Files.readString(configFile)).doesNotContain("standby");

        out.getBuffer().setLength(0);
        assertThat(run("--json", "alua", "set", "1", "active-non-optimized", "--no-preferred")).isZero();
        JsonNode answer = JSON.readTree(out.toString());
        assertThat(answer.get("targets").get(0).get("state").asText()).isEqualTo("active-non-optimized");
        assertThat(answer.get("targets").get(0).get("preferred").asBoolean()).isFalse();

        assertThat(run("alua", "set", "1", "sideways")).isEqualTo(Jtargetctl.EXIT_REFUSED);
        assertThat(err.toString()).contains("state: expected one of").contains("(bad-request)");
        assertThat(run("alua", "set", "4", "standby")).isEqualTo(Jtargetctl.EXIT_REFUSED);
        assertThat(err.toString()).contains("no portal has portal-group-tag 4 (not-found)");
        assertThat(run("alua", "set", "1")).as("STATE is required").isEqualTo(2);
    }

    @Test
    void saveWritesTheEditsIntoTheFile() throws Exception {
        assertThat(run("save")).isZero();
        assertThat(out.toString()).startsWith("nothing to save: the file already says what the daemon runs");
        out.getBuffer().setLength(0);
        assertThat(run("lun", "add", T, "1", "ram1")).isZero();
        out.getBuffer().setLength(0);
        assertThat(run("save")).as(err.toString()).isZero();
        assertThat(out.toString()).startsWith("saved 1 edit(s) to " + configFile);
        assertThat(ConfigLoader.load(configFile).targets().get(0).luns()).hasSize(2);
    }

    @Test
    void aclAddAndRemoveChangeWhoMayLogIn() throws Exception {
        // the target admits "*": a name beside it is refused, so first a target with names only
        Files.writeString(configFile, yaml("[ {lun: 0, backstore: ram0} ]").replace("acl: [\"*\"]",
                "acl: [" + INITIATOR + "]"));
        assertThat(run("reload")).isZero();
        String other = "iqn.2026-11.org.jtarget:ctl-other";
        assertThat(run("acl", "add", T, other, "--luns", "0", "--read-only-luns", "0")).as(err.toString()).isZero();
        assertThat(runtime.state().targets().target(T).core().acl().initiators()).containsExactly(INITIATOR, other);
        out.getBuffer().setLength(0);
        assertThat(run("ls")).isZero();
        assertThat(out.toString()).contains("acl " + other + " luns [0] read-only [0]");

        assertThat(run("acl", "remove", T, INITIATOR)).isZero();
        assertThat(runtime.state().targets().target(T).core().acl().initiators()).containsExactly(other);
        assertThat(run("acl", "remove", T, other)).isEqualTo(Jtargetctl.EXIT_REFUSED);
        assertThat(err.toString()).contains("its last entry cannot go");
    }

    @Test
    void anAbsentDaemonIsExitThree() {
        socket = dir.resolve("nobody-here.sock");
        assertThat(run("status")).isEqualTo(Jtargetctl.EXIT_UNREACHABLE);
        assertThat(err.toString()).startsWith("jtargetctl: cannot reach the daemon: ");
    }

    @Test
    void completionIsABashScriptKnowingTheCommands() {
        assertThat(run("completion")).isZero();
        assertThat(out.toString()).contains("complete -F").contains("session").contains("reload").contains("kill");
    }

    @Test
    void anUnknownCommandIsUsageExitTwo() {
        assertThat(run("frobnicate")).isEqualTo(2);
        assertThat(err.toString()).contains("Unmatched argument");
    }

    @Test
    void everyCommandAtEveryDepthExplainsItselfWithHelp() {
        List<List<String>> paths = new ArrayList<>();
        commandPaths(Jtargetctl.commandLine(), new ArrayList<>(), paths);
        assertThat(paths).hasSizeGreaterThan(10).contains(List.of("lun", "add"), List.of("session", "kill"));
        for (List<String> path : paths) {
            out.getBuffer().setLength(0);
            List<String> args = new ArrayList<>(path);
            args.add("--help");
            assertThat(run(args.toArray(String[]::new))).as("%s --help", path).isZero();
            assertThat(out.toString()).as("%s --help", path)
                    .startsWith("Usage: jtargetctl " + String.join(" ", path)).contains("-h, --help");
        }
    }

    private static void commandPaths(picocli.CommandLine line, List<String> prefix, List<List<String>> into) {
        line.getSubcommands().forEach((name, sub) -> {
            List<String> path = new ArrayList<>(prefix);
            path.add(name);
            into.add(path);
            commandPaths(sub, path, into);
        });
    }
}
