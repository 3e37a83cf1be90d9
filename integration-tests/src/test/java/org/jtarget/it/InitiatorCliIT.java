package org.jtarget.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Our own initiator CLI ({@code initiator-tools/bin/jtarget-initiator}) as a process against the
 * real daemon: every command, and the documented exit codes (1 miscompare, 2 usage, 4 CHECK CONDITION).
 */
class InitiatorCliIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    @RegisterExtension
    static final DaemonExtension DAEMON = new DaemonExtension();

    private static Path cli;

    @BeforeAll
    static void findCli() {
        cli = DaemonProcess.home().resolve("initiator-tools/bin/jtarget-initiator");
        assertThat(Files.isExecutable(cli)).as(cli + " executable").isTrue();
    }

    private static ClientTool.Result run(String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(cli.toString());
        cmd.addAll(List.of(args));
        return ClientTool.run(TIMEOUT, () -> DAEMON.daemon().describe(), cmd.toArray(String[]::new));
    }

    private static ClientTool.Result runOk(String... args) {
        ClientTool.Result r = run(args);
        assertThat(r.exitCode()).as(r.describe()).isZero();
        return r;
    }

    private static String url() {
        return DAEMON.daemon().url(DaemonConfig.MEMORY_LUN);
    }

    @Test
    void discoverListsTheTarget() {
        ClientTool.Result r = runOk("discover", DAEMON.daemon().portalUrl());
        assertThat(r.stdout()).as(r.describe()).containsPattern("(?m)^" + DaemonConfig.IQN.replace(".", "\\.") + "$");
    }

    @Test
    void inquiryShowsTheVendor() {
        ClientTool.Result r = runOk("inquiry", url());
        assertThat(r.stdout()).as(r.describe()).containsPattern("(?m)^Vendor: JTARGET$")
                .contains("direct access block device");
    }

    @Test
    void inquiryVpdPagesDecode() {
        ClientTool.Result serial = runOk("inquiry", url(), "--vpd", "0x80");
        assertThat(serial.stdout()).as(serial.describe()).startsWith("Unit serial number: ");
        ClientTool.Result ids = runOk("inquiry", url(), "--vpd", "0x83");
        assertThat(ids.stdout()).as(ids.describe()).contains("Device identification designators:");
    }

    @Test
    void readcapGivesTheConfiguredSize() {
        ClientTool.Result r = runOk("readcap", url(), "--digests");
        long bytes = DAEMON.config().lunBytes(DaemonConfig.MEMORY_LUN);
        assertThat(r.stdout()).as(r.describe()).contains("Block size: 512")
                .contains("Blocks: " + bytes / 512).contains("Bytes: " + bytes);
    }

    @Test
    void writeThenVerifySucceedsAndAnotherPatternFails() {
        // 3000 blocks = 1.5 MB: two chunks per command
        runOk("write", url(), "--lba", "1000", "--blocks", "3000", "--pattern", "random:42", "--fua");
        runOk("verify", url(), "--lba", "1000", "--blocks", "3000", "--pattern", "random:42");
        ClientTool.Result bad = run("verify", url(), "--lba", "1000", "--blocks", "3000", "--pattern", "random:43");
        assertThat(bad.exitCode()).as(bad.describe()).isEqualTo(1);
        assertThat(bad.stderr()).as(bad.describe()).contains("miscompare at byte offset 0");
    }

    @Test
    void writeFromFileReadsBackToFile() throws Exception {
        Path dir = Files.createTempDirectory("jtarget-cli-it");
        Path in = dir.resolve("in.bin");
        byte[] data = new byte[8 * 512];
        new java.util.Random(7).nextBytes(data);
        Files.write(in, data);
        runOk("write", url(), "--lba", "5000", "--blocks", "8", "--in", in.toString());
        Path out = dir.resolve("out.bin");
        runOk("read", url(), "--lba", "5000", "--blocks", "8", "--out", out.toString());
        assertThat(Files.readAllBytes(out)).isEqualTo(data);
        runOk("verify", url(), "--lba", "5000", "--blocks", "8", "--in", in.toString());
        ClientTool.Result dump = runOk("read", url(), "--lba", "5000", "--blocks", "1");
        assertThat(dump.stdout()).startsWith("00000000:").contains("000001f0:");
        DaemonExtension.deleteTree(dir);
    }

    @Test
    void readPastTheEndIsIllegalRequestLbaOutOfRange() {
        long blocks = DAEMON.config().lunBytes(DaemonConfig.MEMORY_LUN) / 512;
        ClientTool.Result r = run("read", url(), "--lba", Long.toString(blocks), "--blocks", "1");
        assertThat(r.exitCode()).as(r.describe()).isEqualTo(4);
        assertThat(r.stderr()).as(r.describe()).contains("ILLEGAL REQUEST").contains("21/00")
                .contains("LOGICAL BLOCK ADDRESS OUT OF RANGE");
    }

    @Test
    void badUrlIsAUsageError() {
        ClientTool.Result r = run("inquiry", "http://127.0.0.1/x/0");
        assertThat(r.exitCode()).as(r.describe()).isEqualTo(2);
        assertThat(r.stderr()).as(r.describe()).contains("bad URL").contains("usage:");
    }

    @Test
    void unknownTargetIsALoginFailure() {
        ClientTool.Result r = run("inquiry", DAEMON.daemon().portalUrl() + "/iqn.2026-11.org.jtarget:nope/0");
        assertThat(r.exitCode()).as(r.describe()).isEqualTo(3);
        assertThat(r.stderr()).as(r.describe()).contains("login failed: 0x0203 not found");
    }
}
