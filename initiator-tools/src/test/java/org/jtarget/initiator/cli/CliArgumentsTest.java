package org.jtarget.initiator.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class CliArgumentsTest {

    private static final String URL = "iscsi://127.0.0.1/iqn.x:y/0";

    private static CliArguments parse(String... args) throws CliFailure {
        return CliArguments.parse(args);
    }

    private static void assertUsage(String... args) {
        assertThatThrownBy(() -> parse(args)).isInstanceOfSatisfying(CliFailure.class,
                e -> assertThat(e.exitCode()).isEqualTo(CliFailure.USAGE));
    }

    @Test
    void writeWithPatternFuaAndCommonOptionsInAnyOrder() throws Exception {
        CliArguments a = parse("write", "--fua", "--lba=0x10", URL, "--blocks", "8", "--pattern", "random:7",
                "--initiator-name", "iqn.me:1", "--digests", "--timeout", "5");
        assertThat(a.command()).isEqualTo(Command.WRITE);
        assertThat(a.url().target()).isEqualTo("iqn.x:y");
        assertThat(a.lba()).isEqualTo(16);
        assertThat(a.blocks()).isEqualTo(8);
        assertThat(a.fua()).isTrue();
        assertThat(a.digests()).isTrue();
        assertThat(a.initiatorName()).isEqualTo("iqn.me:1");
        assertThat(a.timeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(a.dataPattern()).isInstanceOf(DataPattern.Random.class);
    }

    @Test
    void defaultsForInquiryAndRead() throws Exception {
        CliArguments inq = parse("inquiry", URL);
        assertThat(inq.vpdPage()).isEqualTo(-1);
        assertThat(inq.initiatorName()).startsWith(CliArguments.INITIATOR_NAME_PREFIX);
        assertThat(inq.timeout()).isEqualTo(CliArguments.DEFAULT_TIMEOUT);
        assertThat(parse("inquiry", URL, "--vpd", "0x83").vpdPage()).isEqualTo(0x83);
        CliArguments read = parse("read", URL, "--lba", "0", "--blocks", "1", "--out", "/tmp/x");
        assertThat(read.out()).isEqualTo(Path.of("/tmp/x"));
    }

    @Test
    void discoverTakesAPortalUrl() throws Exception {
        assertThat(parse("discover", "iscsi://h:3261").url().port()).isEqualTo(3261);
        assertUsage("discover", URL);
    }

    @Test
    void badCommandLinesAreUsageErrors() {
        assertUsage();
        assertUsage("frobnicate", URL);
        assertUsage("inquiry");
        assertUsage("inquiry", URL, URL);
        assertUsage("inquiry", URL, "--lba", "1");               // not an inquiry option
        assertUsage("inquiry", URL, "--vpd", "256");
        assertUsage("inquiry", URL, "--vpd");                    // missing value
        assertUsage("read", URL, "--lba", "0");                  // --blocks missing
        assertUsage("read", URL, "--lba", "-1", "--blocks", "1");
        assertUsage("read", URL, "--lba", "0", "--blocks", "0");
        assertUsage("read", URL, "--lba", "0", "--lba", "1", "--blocks", "1");
        assertUsage("write", URL, "--lba", "0", "--blocks", "1"); // no data
        assertUsage("write", URL, "--lba", "0", "--blocks", "1", "--in", "f", "--pattern", "1");
        assertUsage("write", URL, "--lba", "0", "--blocks", "1", "--pattern", "256");
        assertUsage("write", URL, "--lba", "0", "--blocks", "1", "--pattern", "random:x");
        assertUsage("write", URL, "--lba", "0", "--blocks", "1", "--pattern", "1", "--fua=yes");
        assertUsage("verify", URL, "--lba", "0", "--blocks", "1", "--pattern", "1", "--fua");
        assertUsage("readcap", URL, "--timeout", "0");
        assertUsage("readcap", URL, "--initiator-name", " ");
    }

    @Test
    void usageFailuresExitTwoWithTheUsageLine() {
        var out = new java.io.ByteArrayOutputStream();
        var err = new java.io.ByteArrayOutputStream();
        int code = JtargetInitiator.run(new String[] {"inquiry", "nope"}, new java.io.PrintStream(out),
                new java.io.PrintStream(err));
        assertThat(code).isEqualTo(2);
        assertThat(err.toString()).contains("bad URL 'nope'").contains(CliArguments.USAGE);
        assertThat(out.toString()).isEmpty();
    }
}
