package org.jtarget.initiator.cli;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class CommandHelpTest {

    /** Every option each command's parser takes (CliArguments, BenchArguments, ...). */
    private static final Map<String, List<String>> OPTIONS = Map.of(
            "discover", List.of("--initiator-name", "--digests", "--timeout"),
            "inquiry", List.of("--vpd", "--initiator-name", "--digests", "--timeout", "iser://", "srp://"),
            "readcap", List.of("rdma://", "--timeout"),
            "read", List.of("--lba", "--blocks", "--out", "rdma://", "--timeout"),
            "write", List.of("--lba", "--blocks", "--in", "--pattern", "random:SEED", "--fua", "--initiator-name"),
            "verify", List.of("--lba", "--blocks", "--in", "--pattern", "--digests"),
            "crashcheck", List.of("write", "verify", "--url", "--journal", "--seconds", "--mode", "--lba", "--blocks",
                    "--initiator-name", "--digests", "--timeout"),
            "bench", List.of("--url", "--sessions", "--qd", "--rw", "--rwmixread", "--bs", "--seconds", "--ramp", "--lba",
                    "--blocks", "--initiator-name", "--digests", "--timeout"),
            "rdma-bench", List.of("--seconds", "--provider", "--op", "--size", "--buffers"),
            "rping", List.of("-s", "-c", "-P", "-a ADDR", "-p PORT", "-C COUNT", "-S SIZE", "-v", "-V", "--crc", "--p2p"));

    @Test
    void everyCommandHasAHelpNamingEachOfItsOptions() {
        assertThat(CommandHelp.commands()).containsExactlyInAnyOrderElementsOf(OPTIONS.keySet());
        OPTIONS.forEach((command, options) -> {
            CliRun r = CliRun.run(command, "--help");
            assertThat(r.code()).as(command).isZero();
            assertThat(r.err()).as(command).isEmpty();
            assertThat(r.out()).as(command).startsWith("usage: jtarget-initiator " + command + " ")
                    .contains(options).contains("Exit status:");
            assertThat(r.out().lines()).as(command + ": option lines are indented, none is too long")
                    .allSatisfy(line -> assertThat(line.length()).isLessThanOrEqualTo(110))
                    .anySatisfy(line -> assertThat(line).startsWith("  -"));
        });
    }

    @Test
    void helpWinsWhereverItStandsAndOverOtherwiseBadArguments() {
        assertThat(CliRun.run("bench", "--url", "iscsi://nowhere/x/0", "--qd", "0", "--help").code()).isZero();
        assertThat(CliRun.run("crashcheck", "write", "-h").out()).startsWith("usage: jtarget-initiator crashcheck ");
    }

    @Test
    void rpingKeepsItsOwnOptionsAndTheSummaryPointsToTheCommandHelp() {
        assertThat(CommandHelp.asked(new String[] {"rping", "-h"})).as("not an rping option, not help either").isFalse();
        assertThat(CliRun.run("--help").out()).contains("jtarget-initiator COMMAND --help");
        assertThat(CliRun.run("frobnicate", "--help").code()).as("no such command").isEqualTo(CliFailure.USAGE);
    }
}
