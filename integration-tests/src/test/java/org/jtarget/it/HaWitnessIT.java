package org.jtarget.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.jtarget.it.HaPair.ACTIVE_OPTIMIZED;
import static org.jtarget.it.HaPair.BLOCK;
import static org.jtarget.it.HaPair.FILE_STORE;
import static org.jtarget.it.HaPair.LUN;
import static org.jtarget.it.HaPair.MIB;
import static org.jtarget.it.HaPair.MIB_BLOCKS;
import static org.jtarget.it.HaPair.NOT_READY;
import static org.jtarget.it.HaPair.STANDBY_ASCQ;
import static org.jtarget.it.HaPair.TRANSITION_ASCQ;
import static org.jtarget.it.HaPair.UNAVAILABLE;
import static org.jtarget.it.HaPair.assertStandby;
import static org.jtarget.it.HaPair.pastUnitAttention;
import static org.jtarget.it.HaPair.inSync;
import static org.jtarget.it.HaPair.portGroups;
import static org.jtarget.it.HaPair.random;
import static org.jtarget.it.HaPair.read;
import static org.jtarget.it.HaPair.write;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalTime;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jtarget.initiator.raw.ScsiResult;
import org.jtarget.it.HaPair.Node;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.io.TempDir;

/**
 * An HA pair with its witness (issue 17, docs/ha.md "The witness, leases and promotion"): three
 * real processes on loopback, the witness ({@code jtargetd --witness}) and the nodes {@code a}
 * (the preferred primary, which dials the link) and {@code b}, heartbeat 200 ms, timeout 1 s.
 * Where a test partitions the pair, a {@link TcpForwarder} stands between a and b's replication
 * listener, and another between a and the witness.
 *
 * <ul>
 * <li>The primary killed: the secondary is promoted within seconds with every byte the primary
 * acknowledged, and the old primary, restarted, becomes its secondary and gets its data.</li>
 * <li>The primary cut off from its peer and the witness: the secondary is promoted, the primary
 * stops serving and acknowledges no write after the cut; when the network is back it rejoins as
 * the secondary and the pair converges on the promoted node's data.</li>
 * <li>Only the link cut: the primary still reaches the witness and goes on alone; the secondary
 * is not promoted (no split brain).</li>
 * <li>A planned switchover (SIGUSR1 to the primary) and back.</li>
 * </ul>
 */
class HaWitnessIT {

    /** How long the pair may take to serve again after the primary is killed (docs/ha.md measured 1.7 s). */
    private static final Duration FAILOVER_WAIT = Duration.ofSeconds(10);
    /** How long a secondary cut off from its primary, which still reaches the witness, must not be promoted. */
    private static final Duration NO_PROMOTION_FOR = Duration.ofSeconds(5);

    @TempDir
    Path dir;

    private HaPair pair;
    private Node a;
    private Node b;
    /** Between a and b's replication listener (a dials: "a" sorts first), or null. */
    private TcpForwarder link;
    /** Between a and the witness, or null. */
    private TcpForwarder aToWitness;

    @BeforeEach
    void createPair() {
        pair = new HaPair(dir);
        a = pair.a;
        b = pair.b;
    }

    /** Stops what still runs, and keeps the logs in {@code target/daemon-logs/HaWitnessIT.<test>.<process>.log}. */
    @AfterEach
    void stopAll(TestInfo test) throws IOException {
        try {
            pair.stop("HaWitnessIT", test);
        } finally {
            for (TcpForwarder f : new TcpForwarder[] {link, aToWitness}) {
                if (f != null) {
                    f.close();
                }
            }
        }
    }

    @Test
    void thePrimaryKilledTheSecondaryServesEveryAcknowledgedByteAndTheOldPrimaryRejoinsAsItsSecondary()
            throws Exception {
        startPair(false, false);
        byte[] data = random(4 * MIB, 1);
        try (ScsiClient c = a.login()) {
            write(c, 0, data);
        }

        int bMark = b.mark();
        LocalTime killedAt = LocalTime.now();
        long killed = System.nanoTime();
        a.kill();
        pair.awaitLog(b, bMark, Pattern.compile(
                "HA node b: .*; serving alone \\(degraded\\) as generation 1@b, the witness agreeing"), FAILOVER_WAIT);
        long failoverMillis = pair.awaitPrimarySince(b, bMark, killedAt,
                FAILOVER_WAIT.minusNanos(System.nanoTime() - killed));
        System.out.printf("HaWitnessIT: b logged \"HA node b: primary\" %d ms after the SIGKILL of a%n", failoverMillis);
        assertThat(failoverMillis).as("SIGKILL of a to b's primary line, by the log's clock\n" + pair.describe())
                .isLessThan(FAILOVER_WAIT.toMillis());
        awaitServing(b, bMark);

        try (ScsiClient c = b.login()) {
            assertThat(read(c, 0, data.length)).as("4 MiB written through a, read through b").isEqualTo(data);
            write(c, 16 * MIB_BLOCKS, random(MIB, 2));
            assertThat(portGroups(c)).as("REPORT TARGET PORT GROUPS through b, a dead")
                    .isEqualTo(Map.of(1, UNAVAILABLE, 2, ACTIVE_OPTIMIZED));
        }

        int aMark = a.mark();
        bMark = b.mark();
        a.start();
        pair.awaitLog(a, aMark, Pattern.compile("HA node a: secondary"));
        awaitInSync(b, bMark, "a restarted");
        pair.stopBothAndCompare();
    }

    @Test
    void aPrimaryCutOffFromPeerAndWitnessStopsServingAndThePairConvergesOnThePromotedSecondary() throws Exception {
        startPair(true, true);
        byte[] acknowledged = random(MIB, 3);
        byte[] byB = random(2 * MIB, 4);
        try (ScsiClient ca = a.login()) {
            write(ca, 0, acknowledged);

            int aMark = a.mark();
            int bMark = b.mark();
            link.cut();
            aToWitness.cut();
            // a can neither replicate this nor get the witness's leave to go on alone: not acknowledged
            ScsiResult refused = pastUnitAttention(() -> ca.write10(LUN, 8 * MIB_BLOCKS, random(MIB, 5), BLOCK));
            assertNotReady(refused, "WRITE(10) through a right after a was cut off");

            pair.awaitLog(b, bMark, Pattern.compile("serving alone \\(degraded\\) as generation 1@b, the witness agreeing"));
            awaitServing(b, bMark);
            pair.awaitLog(a, aMark, Pattern.compile("HA node a: stops serving"));
            pair.awaitLog(a, aMark, Pattern.compile("HA node a: undecided, ")); // its port group is standby now
            assertNotReady(pastUnitAttention(() -> ca.write10(LUN, 8 * MIB_BLOCKS, random(MIB, 6), BLOCK)),
                    "WRITE(10) through a, stopped");
            assertStandby(pastUnitAttention(() -> ca.read10(LUN, 0, 8, BLOCK)), "READ(10) through a, stopped");
            try (ScsiClient cb = b.login()) {
                write(cb, 16 * MIB_BLOCKS, byB);
            }
            assertThat(a.daemon.log().substring(aMark)).as("a never goes on alone\n" + pair.describe())
                    .doesNotContain("serving alone");
        }

        int aMark = a.mark();
        int bMark = b.mark();
        link.restore();
        aToWitness.restore();
        pair.awaitLog(a, aMark, Pattern.compile("HA node a: secondary"));
        awaitInSync(b, bMark, "a back after the cut");
        try (ScsiClient cb = b.login()) {
            assertThat(read(cb, 16 * MIB_BLOCKS, byB.length)).as("what b wrote, read through b").isEqualTo(byB);
            assertThat(read(cb, 0, acknowledged.length)).as("what a acknowledged before the cut, read through b")
                    .isEqualTo(acknowledged);
            assertThat(read(cb, 8 * MIB_BLOCKS, MIB)).as("a's refused write is nowhere: b's blocks never had it")
                    .isEqualTo(new byte[MIB]);
        }
        pair.stopBothAndCompare(); // a took b's data, its refused write included
    }

    @Test
    void aPrimaryThatStillReachesTheWitnessGoesOnAloneAndTheSecondaryIsNotPromoted() throws Exception {
        startPair(true, false);
        byte[] alone = random(MIB, 7);
        try (ScsiClient ca = a.login(); ScsiClient cb = b.login()) {
            int aMark = a.mark();
            int bMark = b.mark();
            link.cut();
            // b asks for a promotion 1.4 s after the cut, and again every heartbeat: a's lease must refuse it
            assertNotPromoted(b, cb, bMark, NO_PROMOTION_FOR);
            ca.testUnitReadyClearingUnitAttention(LUN); // the peer's port group turned unavailable
            assertThat(ca.write10(LUN, 0, alone, BLOCK).good())
                    .as("WRITE(10) through a, its link cut: a goes on alone\n" + pair.describe()).isTrue();
            pair.awaitLog(a, aMark, Pattern.compile("serving alone \\(degraded\\) as generation 1@a, the witness agreeing"));
            assertNotPromoted(b, cb, bMark, Duration.ofSeconds(1)); // and now the pair's generation is a's
            assertThat(read(ca, 0, MIB)).as("a serves on").isEqualTo(alone);
        }

        int aMark = a.mark();
        link.restore();
        awaitInSync(a, aMark, "the link back");
        pair.stopBothAndCompare();
    }

    @Test
    void sigusr1HandsThePairOverToTheSecondaryAndBack() throws Exception {
        startPair(false, false);
        byte[] first = random(MIB, 8);
        byte[] second = random(MIB, 9);
        byte[] third = random(MIB, 10);
        try (ScsiClient c = a.login()) {
            write(c, 0, first);
        }

        int aMark = a.mark();
        int bMark = b.mark();
        a.daemon.signal("USR1");
        pair.awaitLog(b, bMark, Pattern.compile("HA node b: takes over from a \\(planned switchover\\)"));
        pair.awaitLog(a, aMark, Pattern.compile("HA node a: handed the pair over to b"));
        pair.awaitLog(b, bMark, Pattern.compile("HA node b: primary, peer a secondary"));
        try (ScsiClient c = b.login()) {
            write(c, 2 * MIB_BLOCKS, second);
            assertThat(read(c, 0, MIB)).as("written through a before the switchover, read through b").isEqualTo(first);
        }
        try (ScsiClient c = a.login()) {
            assertStandby(c.write10(LUN, 0, new byte[BLOCK], BLOCK), "WRITE(10) through a, now the secondary");
        }
        awaitStatus(b, "HA node b: primary", "peer a secondary");

        aMark = a.mark();
        bMark = b.mark();
        b.daemon.signal("USR1");
        pair.awaitLog(a, aMark, Pattern.compile("HA node a: takes over from b \\(planned switchover\\)"));
        pair.awaitLog(b, bMark, Pattern.compile("HA node b: handed the pair over to a"));
        pair.awaitLog(a, aMark, Pattern.compile("HA node a: primary, peer b secondary"));
        try (ScsiClient c = a.login()) {
            write(c, 4 * MIB_BLOCKS, third);
            assertThat(read(c, 2 * MIB_BLOCKS, MIB)).as("written through b, read through a").isEqualTo(second);
        }
        awaitStatus(a, "HA node a: primary", "peer b secondary");
        pair.stopBothAndCompare();
    }

    // ------------------------------------------------------------------ the pair

    /**
     * Starts the witness, then a and b with it, a's link to b and a's way to the witness through
     * forwarders if asked; waits until a serves and b is in sync.
     */
    private void startPair(boolean linkThroughForwarder, boolean witnessThroughForwarder) throws Exception {
        int witness = pair.startWitness();
        if (linkThroughForwarder) {
            link = new TcpForwarder(b.haPort);
        }
        if (witnessThroughForwarder) {
            aToWitness = new TcpForwarder(witness);
        }
        a.writeConfig(FILE_STORE, link == null ? b.haPort : link.port(),
                aToWitness == null ? witness : aToWitness.port());
        b.writeConfig(FILE_STORE, a.haPort, witness);
        pair.startBoth();
        pair.awaitRoles();
        pair.awaitLog(a, 0, inSync(a));
    }

    /** Waits for the line saying {@code primary} brought its peer in sync, logged from {@code from}, and shows it. */
    private void awaitInSync(Node primary, int from, String after) throws InterruptedException {
        Matcher synced = pair.awaitLog(primary, from, inSync(primary));
        System.out.printf("HaWitnessIT: %s, %s logged \"%s\"%n", after, primary.name, synced.group());
    }

    /** Waits for the line {@code n} logs once its port groups are active/optimized without its peer. */
    private void awaitServing(Node n, int from) throws InterruptedException {
        pair.awaitLog(n, from, Pattern.compile("HA node " + n.name + ": primary( \\(degraded\\))?, peer " + n.peer
                + " not connected"));
    }

    /**
     * For {@code duration}, I/O through {@code n} (with session {@code c}) answers NOT READY, target
     * port in standby; then its log from {@code from} has no line saying it is the primary.
     */
    private void assertNotPromoted(Node n, ScsiClient c, int from, Duration duration) throws Exception {
        long start = System.nanoTime();
        do {
            assertStandby(pastUnitAttention(() -> c.read10(LUN, 0, 8, BLOCK)), "READ(10) through " + n.name);
            assertStandby(pastUnitAttention(() -> c.write10(LUN, 0, new byte[BLOCK], BLOCK)), "WRITE(10) through " + n.name);
            Thread.sleep(200);
        } while (System.nanoTime() - start < duration.toNanos());
        assertThat(n.daemon.log().substring(from)).as(n.name + " is not promoted while " + n.peer
                + " serves with the witness's lease\n" + pair.describe()).doesNotContain("HA node " + n.name + ": primary");
    }

    /** Waits (5 s at most) until {@code n}'s status file holds every one of {@code lines}. */
    private void awaitStatus(Node n, String... lines) throws IOException, InterruptedException {
        Path status = n.statusFile();
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (System.nanoTime() < deadline && !(Files.exists(status) && containsAll(Files.readString(status), lines))) {
            Thread.sleep(50);
        }
        assertThat(status).as("status file of " + n.name + "\n" + pair.describe()).exists();
        assertThat(Files.readString(status)).as(status.toString()).contains(lines);
    }

    private static boolean containsAll(String text, String... lines) {
        for (String l : lines) {
            if (!text.contains(l)) {
                return false;
            }
        }
        return true;
    }

    // ------------------------------------------------------------------ SCSI

    /** CHECK CONDITION, NOT READY, LOGICAL UNIT NOT ACCESSIBLE: in transition (04/0Ah) or in standby (04/0Bh). */
    private static void assertNotReady(ScsiResult r, String what) {
        assertThat(r.status()).as(what + ": CHECK CONDITION " + r).isEqualTo(ScsiResult.CHECK_CONDITION);
        assertThat(new int[] {r.senseKey(), r.additionalSenseCode()}).as(what + ": NOT READY 04h " + r)
                .containsExactly(NOT_READY, 0x04);
        assertThat(r.additionalSenseCodeQualifier()).as(what + ": ASCQ 0Ah (transition) or 0Bh (standby) " + r)
                .isIn(TRANSITION_ASCQ, STANDBY_ASCQ);
    }
}
