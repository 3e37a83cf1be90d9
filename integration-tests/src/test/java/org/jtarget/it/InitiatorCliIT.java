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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Our own initiator CLI ({@code initiator-tools/bin/jtarget-initiator}) as a process against the
 * real daemon: every command, and the documented exit codes (1 miscompare, 2 usage, 4 CHECK CONDITION).
 * The SCSI commands run over every fabric ({@code iscsi://}, {@code iser://} and {@code srp://}
 * URLs to a TCP, an iSER and an SRP portal of the same target) with the same assertions; discovery
 * and iSCSI's login refusal over the two iSCSI transports.
 */
class InitiatorCliIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    @RegisterExtension
    static final DaemonExtension DAEMON = DaemonExtension.withRdmaPortals();

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

    private static String url(Transport transport) {
        return transport.url(DAEMON.port(transport), DaemonConfig.IQN, DaemonConfig.MEMORY_LUN);
    }

    /** The memory LUN's URL over {@code fabric}: iscsi://, iser:// or srp://. */
    private static String url(ScsiTransport fabric) {
        return fabric.url(DAEMON, DaemonConfig.MEMORY_LUN);
    }

    /** The target with the address of its portal of the discovery's own transport only. */
    @ParameterizedTest(name = "[{0}] discover lists the target")
    @EnumSource(Transport.class)
    void discoverListsTheTarget(Transport transport) {
        ClientTool.Result r = runOk("discover", transport.portalUrl(DAEMON.port(transport)));
        Transport other = transport == Transport.TCP ? Transport.ISER : Transport.TCP;
        assertThat(r.stdout()).as(r.describe()).containsPattern("(?m)^" + DaemonConfig.IQN.replace(".", "\\.") + "$")
                .contains(":" + DAEMON.port(transport) + ",").doesNotContain(":" + DAEMON.port(other) + ",");
    }

    @ParameterizedTest(name = "[{0}] inquiry shows the vendor")
    @EnumSource(ScsiTransport.class)
    void inquiryShowsTheVendor(ScsiTransport transport) {
        ClientTool.Result r = runOk("inquiry", url(transport));
        assertThat(r.stdout()).as(r.describe()).containsPattern("(?m)^Vendor: JTARGET$")
                .contains("direct access block device");
    }

    @ParameterizedTest(name = "[{0}] inquiry VPD pages decode")
    @EnumSource(ScsiTransport.class)
    void inquiryVpdPagesDecode(ScsiTransport transport) {
        ClientTool.Result serial = runOk("inquiry", url(transport), "--vpd", "0x80");
        assertThat(serial.stdout()).as(serial.describe()).startsWith("Unit serial number: ");
        ClientTool.Result ids = runOk("inquiry", url(transport), "--vpd", "0x83");
        assertThat(ids.stdout()).as(ids.describe()).contains("Device identification designators:");
    }

    @ParameterizedTest(name = "[{0}] readcap gives the configured size")
    @EnumSource(ScsiTransport.class)
    void readcapGivesTheConfiguredSize(ScsiTransport transport) {
        assertConfiguredCapacity(runOk("readcap", url(transport)));
    }

    /**
     * TCP only: iSER carries no iSCSI digests (RFC 7145), and {@code --digests} with an iser:// URL is
     * refused (next test).
     */
    @Test
    void readcapWithDigestsGivesTheConfiguredSize() {
        assertConfiguredCapacity(runOk("readcap", url(Transport.TCP), "--digests"));
    }

    @Test
    void digestsOverIserAreAUsageError() {
        ClientTool.Result r = run("readcap", url(Transport.ISER), "--digests");
        assertThat(r.exitCode()).as(r.describe()).isEqualTo(2);
        assertThat(r.stderr()).as(r.describe()).contains("--digests is not valid with an iser:// URL");
    }

    private static void assertConfiguredCapacity(ClientTool.Result r) {
        long bytes = DAEMON.config().lunBytes(DaemonConfig.MEMORY_LUN);
        assertThat(r.stdout()).as(r.describe()).contains("Block size: 512")
                .contains("Blocks: " + bytes / 512).contains("Bytes: " + bytes);
    }

    @ParameterizedTest(name = "[{0}] write then verify succeeds and another pattern fails")
    @EnumSource(ScsiTransport.class)
    void writeThenVerifySucceedsAndAnotherPatternFails(ScsiTransport transport) {
        // 3000 blocks = 1.5 MB: two chunks per command
        runOk("write", url(transport), "--lba", "1000", "--blocks", "3000", "--pattern", "random:42", "--fua");
        runOk("verify", url(transport), "--lba", "1000", "--blocks", "3000", "--pattern", "random:42");
        ClientTool.Result bad = run("verify", url(transport), "--lba", "1000", "--blocks", "3000",
                "--pattern", "random:43");
        assertThat(bad.exitCode()).as(bad.describe()).isEqualTo(1);
        assertThat(bad.stderr()).as(bad.describe()).contains("miscompare at byte offset 0");
    }

    @ParameterizedTest(name = "[{0}] write from a file reads back to a file")
    @EnumSource(ScsiTransport.class)
    void writeFromFileReadsBackToFile(ScsiTransport transport) throws Exception {
        Path dir = Files.createTempDirectory("jtarget-cli-it");
        Path in = dir.resolve("in.bin");
        byte[] data = new byte[8 * 512];
        new java.util.Random(7).nextBytes(data);
        Files.write(in, data);
        runOk("write", url(transport), "--lba", "5000", "--blocks", "8", "--in", in.toString());
        Path out = dir.resolve("out.bin");
        runOk("read", url(transport), "--lba", "5000", "--blocks", "8", "--out", out.toString());
        assertThat(Files.readAllBytes(out)).isEqualTo(data);
        runOk("verify", url(transport), "--lba", "5000", "--blocks", "8", "--in", in.toString());
        ClientTool.Result dump = runOk("read", url(transport), "--lba", "5000", "--blocks", "1");
        assertThat(dump.stdout()).startsWith("00000000:").contains("000001f0:");
        DaemonExtension.deleteTree(dir);
    }

    @ParameterizedTest(name = "[{0}] read past the end is ILLEGAL REQUEST, LBA out of range")
    @EnumSource(ScsiTransport.class)
    void readPastTheEndIsIllegalRequestLbaOutOfRange(ScsiTransport transport) {
        long blocks = DAEMON.config().lunBytes(DaemonConfig.MEMORY_LUN) / 512;
        ClientTool.Result r = run("read", url(transport), "--lba", Long.toString(blocks), "--blocks", "1");
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

    /** Over SRP: a target port identifier the portal does not serve is SRP_LOGIN_REJ, exit 3 too. */
    @Test
    void anUnknownSrpTargetPortIsALoginFailure() {
        ClientTool.Result r = run("inquiry", "srp://" + DaemonProcess.HOST + ":" + DAEMON.srpPort() + "/0x"
                + "0".repeat(31) + "1/0");
        assertThat(r.exitCode()).as(r.describe()).isEqualTo(3);
        assertThat(r.stderr()).as(r.describe()).contains("SRP_LOGIN_REJ 0x00010000");
    }

    @ParameterizedTest(name = "[{0}] unknown target is a login failure")
    @EnumSource(Transport.class)
    void unknownTargetIsALoginFailure(Transport transport) {
        ClientTool.Result r = run("inquiry", transport.url(DAEMON.port(transport), "iqn.2026-11.org.jtarget:nope", 0));
        assertThat(r.exitCode()).as(r.describe()).isEqualTo(3);
        assertThat(r.stderr()).as(r.describe()).contains("login failed: 0x0203 not found");
    }
}
