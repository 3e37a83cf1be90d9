package org.jtarget.initiator.crashcheck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import org.jtarget.initiator.cli.CliFailure;
import org.jtarget.initiator.cli.JtargetInitiator;
import org.junit.jupiter.api.Test;

class CrashcheckArgumentsTest {

    private static final String URL = "iscsi://127.0.0.1:3261/iqn.x:y/1";

    private static void assertUsage(String... args) {
        assertThatThrownBy(() -> CrashcheckArguments.parse(args)).isInstanceOfSatisfying(CliFailure.class,
                e -> assertThat(e.exitCode()).isEqualTo(CliFailure.USAGE));
    }

    @Test
    void writeWithAllOptions() throws Exception {
        CrashcheckArguments a = CrashcheckArguments.parse(new String[] {"crashcheck", "write", "--url", URL,
                "--journal=/tmp/j", "--seconds", "30", "--mode", "sync", "--lba", "8", "--blocks=512", "--digests"});
        assertThat(a.action()).isEqualTo(CrashcheckArguments.Action.WRITE);
        assertThat(a.paths().get(0).url().lun()).isEqualTo(1);
        assertThat(a.journal()).isEqualTo(Path.of("/tmp/j"));
        assertThat(a.seconds()).isEqualTo(30);
        assertThat(a.mode()).isEqualTo(WriteMode.SYNC);
        assertThat(a.lba()).isEqualTo(8);
        assertThat(a.blocks()).isEqualTo(512);
        assertThat(a.digests()).isTrue();
    }

    @Test
    void defaults() throws Exception {
        CrashcheckArguments a = CrashcheckArguments.parse(new String[] {"crashcheck", "verify", "--journal", "j",
                "--url", URL});
        assertThat(a.action()).isEqualTo(CrashcheckArguments.Action.VERIFY);
        assertThat(a.seconds()).isEqualTo(-1);
        assertThat(a.mode()).isEqualTo(WriteMode.FUA);
        assertThat(a.lba()).isEqualTo(-1);
    }

    @Test
    void modeNoneForALunWithItsWriteCacheOff() throws Exception {
        CrashcheckArguments a = CrashcheckArguments.parse(new String[] {"crashcheck", "write", "--url", URL,
                "--journal", "j", "--mode", "none"});
        assertThat(a.mode()).isEqualTo(WriteMode.NONE);
        assertThat(WriteMode.NONE.word()).isEqualTo("none");
    }

    @Test
    void badCommandLines() {
        assertUsage("crashcheck");
        assertUsage("crashcheck", "read", "--url", URL, "--journal", "j");
        assertUsage("crashcheck", "write", "--journal", "j");
        assertUsage("crashcheck", "write", "--url", URL);
        assertUsage("crashcheck", "write", "--url", URL, "--journal", "j", "--mode", "async");
        assertUsage("crashcheck", "write", "--url", URL, "--journal", "j", "--seconds", "0");
        assertUsage("crashcheck", "verify", "--url", URL, "--journal", "j", "--seconds", "5");
        assertUsage("crashcheck", "verify", "--url", URL, "--journal", "j", URL);
        assertUsage("crashcheck", "verify", "--url", "iscsi://h", "--journal", "j");
    }

    @Test
    void theCliRoutesCrashcheckAndPrintsItsUsage() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = JtargetInitiator.run(new String[] {"crashcheck", "write", "--url", URL}, new PrintStream(out),
                new PrintStream(err));
        assertThat(code).isEqualTo(CliFailure.USAGE);
        assertThat(err.toString()).contains("crashcheck write needs --journal FILE")
                .contains("jtarget-initiator crashcheck verify --url URL [--url URL...] --journal FILE");
    }

    @Test
    void verifyOfAMissingJournalIsAnIoError(@org.junit.jupiter.api.io.TempDir Path dir) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = JtargetInitiator.run(new String[] {"crashcheck", "verify", "--url", URL, "--journal",
                dir.resolve("none").toString()}, new PrintStream(new ByteArrayOutputStream()), new PrintStream(err));
        assertThat(code).isEqualTo(CliFailure.IO_ERROR);
        assertThat(err.toString()).contains("does not exist");
    }
}
