package org.jtarget.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jtarget.initiator.cli.CliFailure;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code jtarget-initiator bench} as a process against the real daemon: a short mixed random run
 * over two sessions at queue depth 8 ends GOOD, with commands in both directions and latency
 * percentiles in order; a block size the LUN cannot take is a usage error. The run goes over TCP,
 * iSER and SRP ({@link ScsiTransport}).
 */
class BenchCliIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final Pattern IOPS = Pattern.compile("(?m)^  (read|write): IOPS=([0-9.]+), .*ios=(\\d+), errors=0$");
    private static final Pattern LATENCY = Pattern.compile("(?m)^    lat \\(usec\\): min=([0-9.]+), avg=([0-9.]+), "
            + "p50=([0-9.]+), p99=([0-9.]+), p99\\.9=([0-9.]+), max=([0-9.]+)$");

    @RegisterExtension
    static final DaemonExtension DAEMON = DaemonExtension.withRdmaPortals();

    private static ClientTool.Result bench(ScsiTransport transport, String... options) {
        Path cli = DaemonProcess.home().resolve("initiator-tools/bin/jtarget-initiator");
        String[] cmd = new String[options.length + 4];
        cmd[0] = cli.toString();
        cmd[1] = "bench";
        cmd[2] = "--url";
        cmd[3] = transport.url(DAEMON, DaemonConfig.MEMORY_LUN);
        System.arraycopy(options, 0, cmd, 4, options.length);
        return ClientTool.run(TIMEOUT, () -> DAEMON.daemon().describe(), cmd);
    }

    /**
     * Two sessions over TCP and SRP (two SRP channels of one I_T nexus, about 1.3 MiB of the arena
     * each); one over iSER: the test daemon's pinned arena (6 MiB under the usual 8 MiB memlock
     * limit) holds one iSER connection (about 4.4 MiB at the default command window).
     */
    @ParameterizedTest(name = "[{0}] a random mixed run reports both directions with ordered percentiles")
    @EnumSource(ScsiTransport.class)
    void randomMixedRunReportsBothDirectionsWithOrderedPercentiles(ScsiTransport transport) {
        String sessions = transport == ScsiTransport.ISER ? "1" : "2";
        ClientTool.Result r = bench(transport, "--sessions", sessions, "--qd", "8", "--rw", "randrw", "--bs", "4k",
                "--seconds", "3");
        assertThat(r.exitCode()).as(r.describe()).isZero();
        Matcher iops = IOPS.matcher(r.stdout());
        Matcher lat = LATENCY.matcher(r.stdout());
        for (String direction : new String[] {"read", "write"}) {
            assertThat(iops.find()).as(direction + " line\n" + r.describe()).isTrue();
            assertThat(iops.group(1)).isEqualTo(direction);
            assertThat(Double.parseDouble(iops.group(2))).as(r.describe()).isPositive();
            assertThat(Long.parseLong(iops.group(3))).as(r.describe()).isPositive();
            assertThat(lat.find()).as(direction + " latency line\n" + r.describe()).isTrue();
            double min = Double.parseDouble(lat.group(1));
            double p50 = Double.parseDouble(lat.group(3));
            double p99 = Double.parseDouble(lat.group(4));
            double p999 = Double.parseDouble(lat.group(5));
            double max = Double.parseDouble(lat.group(6));
            assertThat(min).as(r.describe()).isPositive().isLessThanOrEqualTo(p50);
            assertThat(p50).as(r.describe()).isLessThanOrEqualTo(p99);
            assertThat(p99).as(r.describe()).isLessThanOrEqualTo(p999);
            assertThat(p999).as(r.describe()).isLessThanOrEqualTo(max);
        }
        assertThat(DAEMON.daemon().isAlive()).as(DAEMON.daemon().describe()).isTrue();
    }

    @Test
    void aBlockSizeOutsideTheLunsRegionIsAUsageError() {
        ClientTool.Result r = bench(ScsiTransport.TCP, "--bs", "4k", "--lba", "0", "--blocks", "4", "--seconds", "1");
        assertThat(r.exitCode()).as(r.describe()).isEqualTo(CliFailure.USAGE);
        assertThat(r.stderr()).as(r.describe()).contains("smaller than one --bs 4096 command");
    }
}
