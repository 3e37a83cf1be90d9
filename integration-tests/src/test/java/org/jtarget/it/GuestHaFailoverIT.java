package org.jtarget.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.jtarget.it.HaPair.inSync;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalTime;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jtarget.it.HaPair.Node;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.io.TempDir;

/**
 * The HA pair under the Linux kernel initiator (issue 17's acceptance point "correctness under
 * failover"): an {@link HaPair} with its witness, three real processes on the host, replicating a
 * 256 MiB file store; the QEMU guest ({@link GuestVm}, scenario {@code ha-failover}) logs into
 * both nodes' portals, joins the two paths with dm-multipath grouped by ALUA priority (node a's
 * group active/optimized, node b's standby), puts ext4 on the map and runs fio with crc32c verify
 * on a file in it. When the guest says fio is under way, node a (the primary) is SIGKILLed; b is
 * promoted through the witness, multipath moves the I/O to b's path, and fio must end with err=0
 * and no verify error, then e2fsck -fn must find the file system clean. The test prints fio's
 * latency maxima (the I/O pause the guest saw) and the failover time (the kill to b's "primary"
 * line), and checks that b's log and status file say it serves.
 */
class GuestHaFailoverIT {

    /** Large enough for ext4's metadata and fio's 96 MiB file, small enough for a quick first copy. */
    private static final String STORE = "type: file, path: disk.img, size: 256MiB, create: true";
    /** fio's write phase; the kill comes 6 s into it. */
    private static final String FIO_SECONDS = "25";
    private static final Duration GUEST_TIMEOUT = Duration.ofMinutes(5);
    private static final Duration WAIT_SLACK = Duration.ofSeconds(60);
    /** How long b may take to serve after the kill (docs/ha.md: 1.6 s on this host, 1.4 s of it by design). */
    private static final Duration FAILOVER_WAIT = Duration.ofSeconds(15);
    /**
     * The least I/O pause a failover can cause: b asks for its promotion only after the heartbeat
     * timeout (1 s, {@link HaPair}) plus two intervals with no word from a, so a write in flight at
     * the kill, or the scenario's probe job's next one (it writes 25 times a second), cannot
     * complete sooner. A maximum below it means the kill did not fall under fio.
     */
    private static final Duration LEAST_PAUSE = Duration.ofMillis(1400);
    /** A latency line of fio's report as the guest passes it on: "JTARGET-FIO-LAT clat (msec): min=1, max=6874, ...". */
    private static final Pattern FIO_LAT = Pattern.compile(
            "(?m)^JTARGET-FIO-LAT (slat|clat|lat) \\((nsec|usec|msec|sec)\\): .*?max=([\\d.]+)([kKmM]?),");

    @TempDir
    Path dir;

    private HaPair pair;

    @BeforeAll
    static void buildImage() {
        GuestVm.ensureImage();
    }

    /** Stops what still runs (b and the witness, cleanly) and keeps the logs in target/daemon-logs. */
    @AfterEach
    void stopAll(TestInfo test) throws IOException {
        if (pair != null) {
            pair.stop("GuestHaFailoverIT", test);
        }
    }

    @Test
    void fioOnExt4OverMultipathSurvivesTheSigkillOfThePrimary() throws Exception {
        long t0 = System.nanoTime();
        pair = new HaPair(dir);
        Node a = pair.a;
        Node b = pair.b;
        pair.startWithWitness(STORE);
        pair.awaitLog(a, 0, inSync(a));

        Map<String, String> vars = new LinkedHashMap<>();
        vars.put("PORT", Integer.toString(a.portal));
        vars.put("PORT_B", Integer.toString(b.portal));
        vars.put("IQN", HaPair.IQN);
        vars.put("FIO_SECONDS", FIO_SECONDS);
        long failoverMillis;
        GuestVm.Result result;
        try (GuestVm vm = GuestVm.start("ha-failover", vars, GUEST_TIMEOUT)) {
            vm.awaitLine(Pattern.compile("^JTARGET-GUEST-SIGNAL kill-primary$"), GUEST_TIMEOUT);
            int bMark = b.mark();
            LocalTime killedAt = LocalTime.now();
            a.kill(); // SIGKILL: no GOODBYE, no lease released; b must wait out the heartbeat timeout
            failoverMillis = pair.awaitPrimarySince(b, bMark, killedAt, FAILOVER_WAIT);
            System.out.printf("GuestHaFailoverIT: b logged \"HA node b: primary\" %d ms after the SIGKILL of a%n",
                    failoverMillis);
            pair.awaitLog(b, bMark, Pattern.compile(
                    "HA node b: .*serving alone \\(degraded\\) as generation \\d+@b, the witness agreeing"));
            result = vm.finish(GUEST_TIMEOUT.plus(WAIT_SLACK));
            assertThat(result.exitCode()).as("guest scenario ha-failover failed:\n%s%s\n%s", result.failures(),
                    vm.tail(), pair.describe()).isZero();
        }

        Duration pause = fioLatencyMax(result.output());
        System.out.printf("GuestHaFailoverIT: fio err=0, no verify error, e2fsck clean; fio's latency max (the I/O "
                + "pause the guest saw) %d ms; failover (SIGKILL of a to b primary) %d ms%n", pause.toMillis(),
                failoverMillis);
        assertThat(pause).as("fio's latency max: the first write after the kill waits at least for b's promotion")
                .isGreaterThanOrEqualTo(LEAST_PAUSE);
        assertThat(pause).as("fio's latency max: the guest's I/O paused no longer than a's replacement timeout (5 s), "
                + "b's promotion and multipath's switch allow").isLessThan(Duration.ofSeconds(30));
        assertThat(a.daemon.isAlive()).as("a stays dead").isFalse();
        for (Node n : new Node[] {a, b}) {
            // a command that failed inside a node is answered HARDWARE ERROR with this line
            assertThat(n.daemon.log()).as(n.name + "'s log: no command failed by a bug").doesNotContain("bug: ");
        }
        assertThat(b.daemon.log()).as("b's log")
                .containsPattern("HA node b: primary( \\(degraded\\))?, peer a not connected");
        String status = Files.readString(b.statusFile());
        assertThat(status).as("b's status file " + b.statusFile()).contains("HA node b: primary");
        System.out.printf("GuestHaFailoverIT: wall time %.1f s%n", (System.nanoTime() - t0) / 1e9);
    }

    /**
     * The largest of fio's slat/clat/lat maxima the guest printed (write and read sections); fails
     * when there is none.
     */
    static Duration fioLatencyMax(String output) {
        Matcher m = FIO_LAT.matcher(output);
        double maxNanos = -1;
        while (m.find()) {
            double value = Double.parseDouble(m.group(3)) * switch (m.group(4)) {
                case "k", "K" -> 1e3;
                case "m", "M" -> 1e6;
                default -> 1;
            };
            double nanos = value * switch (m.group(2)) {
                case "nsec" -> 1;
                case "usec" -> 1e3;
                case "msec" -> 1e6;
                default -> 1e9;
            };
            maxNanos = Math.max(maxNanos, nanos);
        }
        assertThat(maxNanos).as("fio's latency lines (JTARGET-FIO-LAT) in the guest's output").isGreaterThan(0);
        return Duration.ofNanos((long) maxNanos);
    }
}
