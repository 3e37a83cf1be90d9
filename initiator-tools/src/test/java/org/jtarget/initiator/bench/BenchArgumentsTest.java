package org.jtarget.initiator.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.jtarget.initiator.cli.CliFailure;
import org.junit.jupiter.api.Test;

class BenchArgumentsTest {

    private static final String URL = "iscsi://127.0.0.1:3261/iqn.2026-11.org.jtarget:t1/1";

    private static BenchArguments parse(String... rest) throws CliFailure {
        String[] args = new String[rest.length + 1];
        args[0] = "bench";
        System.arraycopy(rest, 0, args, 1, rest.length);
        return BenchArguments.parse(args);
    }

    private static void assertUsage(String message, String... rest) {
        assertThatThrownBy(() -> parse(rest)).isInstanceOf(CliFailure.class)
                .hasMessageContaining(message)
                .satisfies(e -> assertThat(((CliFailure) e).exitCode()).isEqualTo(CliFailure.USAGE));
    }

    @Test
    void defaultsAreOneSessionQueueDepthOneSequentialRead4kForTenSeconds() throws CliFailure {
        BenchArguments a = parse("--url", URL);
        assertThat(a.url().port()).isEqualTo(3261);
        assertThat(a.url().lun()).isEqualTo(1);
        assertThat(a.sessions()).isEqualTo(1);
        assertThat(a.queueDepth()).isEqualTo(1);
        assertThat(a.workload()).isEqualTo(Workload.READ);
        assertThat(a.readPercent()).isEqualTo(100);
        assertThat(a.blockBytes()).isEqualTo(4096);
        assertThat(a.seconds()).isEqualTo(10);
        assertThat(a.rampSeconds()).isZero();
        assertThat(a.lba()).isEqualTo(-1);
        assertThat(a.blocks()).isEqualTo(-1);
        assertThat(a.digests()).isFalse();
        assertThat(a.initiatorName()).startsWith("iqn.");
    }

    @Test
    void everyOptionInBothForms() throws CliFailure {
        BenchArguments a = parse("--url=" + URL, "--sessions", "2", "--qd=32", "--rw", "randrw", "--rwmixread", "70",
                "--bs", "1m", "--seconds=3", "--ramp", "1", "--lba", "2048", "--blocks=4096", "--initiator-name",
                "iqn.x:y", "--digests", "--timeout", "5");
        assertThat(a.sessions()).isEqualTo(2);
        assertThat(a.queueDepth()).isEqualTo(32);
        assertThat(a.workload()).isEqualTo(Workload.RANDRW);
        assertThat(a.workload().random()).isTrue();
        assertThat(a.readPercent()).isEqualTo(70);
        assertThat(a.blockBytes()).isEqualTo(1 << 20);
        assertThat(a.seconds()).isEqualTo(3);
        assertThat(a.rampSeconds()).isEqualTo(1);
        assertThat(a.lba()).isEqualTo(2048);
        assertThat(a.blocks()).isEqualTo(4096);
        assertThat(a.initiatorName()).isEqualTo("iqn.x:y");
        assertThat(a.digests()).isTrue();
        assertThat(a.timeout()).isEqualTo(Duration.ofSeconds(5));
    }

    @Test
    void workloadsSetTheirReadShare() throws CliFailure {
        assertThat(parse("--url", URL, "--rw", "randwrite").readPercent()).isZero();
        assertThat(parse("--url", URL, "--rw", "write").workload().random()).isFalse();
        assertThat(parse("--url", URL, "--rw", "rw").readPercent()).isEqualTo(50);
        assertThat(parse("--url", URL, "--rw", "randread").readPercent()).isEqualTo(100);
    }

    @Test
    void sizesTakeBinarySuffixes() throws CliFailure {
        assertThat(BenchArguments.size("--bs", "512")).isEqualTo(512);
        assertThat(BenchArguments.size("--bs", "4k")).isEqualTo(4096);
        assertThat(BenchArguments.size("--bs", "64KiB")).isEqualTo(65536);
        assertThat(BenchArguments.size("--bs", "1M")).isEqualTo(1 << 20);
        assertThat(BenchArguments.size("--bs", "16m")).isEqualTo(16 << 20);
    }

    @Test
    void badValuesAreUsageErrors() {
        assertUsage("bench needs --url", "--qd", "4");
        assertUsage("bad --bs '4x'", "--url", URL, "--bs", "4x");
        assertUsage("bad --bs '1000'", "--url", URL, "--bs", "1000");
        assertUsage("bad --bs '32m'", "--url", URL, "--bs", "32m");
        assertUsage("bad --bs '256'", "--url", URL, "--bs", "256");
        assertUsage("bad --rw 'randomread'", "--url", URL, "--rw", "randomread");
        assertUsage("bad --qd '0'", "--url", URL, "--qd", "0");
        assertUsage("bad --qd '4097'", "--url", URL, "--qd", "4097");
        assertUsage("bad --sessions '257'", "--url", URL, "--sessions", "257");
        assertUsage("bad --rwmixread '101'", "--url", URL, "--rw", "randrw", "--rwmixread", "101");
        assertUsage("bad --seconds '0'", "--url", URL, "--seconds", "0");
        assertUsage("--rwmixread applies to --rw rw or randrw only", "--url", URL, "--rwmixread", "50");
        assertUsage("option --qd given twice", "--url", URL, "--qd", "1", "--qd", "2");
        assertUsage("option --fua is not valid for bench", "--url", URL, "--fua");
        assertUsage("unexpected argument", URL);
        assertUsage("option --seconds needs a value", "--url", URL, "--seconds");
        assertUsage("option --digests takes no value", "--url", URL, "--digests=yes");
        assertUsage("bad URL", "--url", "iscsi://host/iqn.x");
    }
}
