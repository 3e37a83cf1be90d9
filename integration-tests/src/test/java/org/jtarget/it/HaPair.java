package org.jtarget.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.LocalTime;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jtarget.initiator.raw.ScsiResult;
import org.junit.jupiter.api.TestInfo;

/**
 * An HA pair (issue 17, docs/ha.md) of two real daemons for the integration tests, each in its own
 * folder under the test's folder, on loopback ports: node {@code a} (portal group 1, the preferred
 * primary: its name sorts first, and it is the node that dials the link) and node {@code b} (portal
 * group 2), replicating one store {@code disk} (LUN 0 of {@link #IQN}) with a heartbeat of 200 ms
 * and a timeout of 1 s; optionally a witness ({@code jtargetd --witness}) in a third folder. With
 * the SCSI helpers the HA tests share.
 */
final class HaPair {

    static final String IQN = "iqn.2026-11.org.jtarget:ha";
    static final int LUN = 0;
    /** The file store's default logical block size. */
    static final int BLOCK = 512;
    static final int MIB = 1 << 20;
    static final int MIB_BLOCKS = MIB / BLOCK;
    /** A replicated store of 64 MiB in {@code disk.img} in the node's folder. */
    static final String FILE_STORE = "type: file, path: disk.img, size: 64MiB, create: true";
    static final Duration LOGIN_TIMEOUT = Duration.ofSeconds(10);
    /** Long enough for a role decision and a full 64 MiB copy over the link. */
    static final Duration PAIR_WAIT = Duration.ofSeconds(30);
    /** SPC-4 4.5.6 sense key NOT READY; ASC 04h LOGICAL UNIT NOT ACCESSIBLE with ASCQ 0Ah (ASYMMETRIC ACCESS STATE TRANSITION) or 0Bh (TARGET PORT IN STANDBY STATE). */
    static final int NOT_READY = 0x2;
    static final int TRANSITION_ASCQ = 0x0A;
    static final int STANDBY_ASCQ = 0x0B;
    /** REPORT TARGET PORT GROUPS' asymmetric access states (SPC-4 table 180). */
    static final int ACTIVE_OPTIMIZED = 0x0;
    static final int STANDBY = 0x2;
    static final int UNAVAILABLE = 0x3;

    /** One daemon of the pair: its folder, its portal, its replication listener. */
    static final class Node {
        final String name;
        final String peer;
        final Path dir;
        final int portal = DaemonProcess.freePort();
        final int tag;
        final int haPort = DaemonProcess.freePort();
        DaemonProcess daemon;

        Node(Path root, String name, String peer, int tag) {
            this.name = name;
            this.peer = peer;
            this.dir = root.resolve(name);
            this.tag = tag;
        }

        /**
         * Writes the node's config: {@code store} is the inside of the replicated store's YAML map,
         * the peer's replication listener is on {@code peerHaPort} and the witness on {@code
         * witnessPort} (0: none), both on 127.0.0.1 (a forwarder's port puts the forwarder between).
         */
        Path writeConfig(String store, int peerHaPort, int witnessPort) throws IOException {
            return DaemonConfig.write(dir, """
                    daemon:
                      state-dir: state
                      buffer-pool: { pinned-size: 64MiB, pin: true }
                    portals:
                      - { name: p, listen: "127.0.0.1:%d", portal-group-tag: %d }
                    backstores:
                      - { name: disk, %s }
                    targets:
                      - iqn: %s
                        portals: [p]
                        acl: ["*"]
                        luns: [ { lun: 0, backstore: disk } ]
                    ha:
                      node: %s
                      listen: "127.0.0.1:%d"
                      peer: { node: %s, address: "127.0.0.1:%d" }
                    %s  heartbeat-interval: 200ms
                      heartbeat-timeout: 1s
                      backstores: [disk]
                    """.formatted(portal, tag, store, IQN, name, haPort, peer, peerHaPort,
                    witnessPort == 0 ? "" : "  witness: \"127.0.0.1:" + witnessPort + "\"\n"));
        }

        void start() {
            daemon = DaemonProcess.start(dir.resolve("jtarget.yaml"), portal);
        }

        /** SIGKILL, and wait for the process to be gone. */
        void kill() {
            daemon.kill();
            daemon.awaitExit(Duration.ofSeconds(10));
        }

        /** How much log there is now: what a later {@link HaPair#awaitLog} searches starts here. */
        int mark() {
            return daemon.log().length();
        }

        Path disk() {
            return dir.resolve("disk.img");
        }

        /** The node's status file (docs/ha.md), rewritten when its status changes. */
        Path statusFile() {
            return dir.resolve("state/ha/status");
        }

        String url() {
            return Transport.TCP.url(portal, IQN, LUN);
        }

        ScsiClient login(String initiator) throws IOException {
            return ScsiTransport.TCP.login(portal, initiator, IQN, DaemonConfig.SRP_TARGET_PORT, LOGIN_TIMEOUT);
        }

        /** A session through this node's portal with its unit attentions cleared. */
        ScsiClient login() throws IOException {
            ScsiClient c = login("iqn.2026-11.org.jtarget:ha-it-" + name);
            c.testUnitReadyClearingUnitAttention(LUN);
            return c;
        }
    }

    final Node a;
    final Node b;
    private final Path dir;
    private DaemonProcess witness;
    private int witnessPort;

    HaPair(Path dir) {
        this.dir = dir;
        this.a = new Node(dir, "a", "b", 1);
        this.b = new Node(dir, "b", "a", 2);
    }

    /** Writes both configs without a witness, each node's store as given, and starts a, then b. */
    void start(String aStore, String bStore) throws IOException {
        a.writeConfig(aStore, b.haPort, 0);
        b.writeConfig(bStore, a.haPort, 0);
        startBoth();
    }

    /**
     * Starts the witness, writes both configs with it ({@code store}: the inside of the replicated
     * store's YAML map), starts a, then b, and waits until a serves and b follows; the witness's port.
     */
    int startWithWitness(String store) throws IOException, InterruptedException {
        int witnessPort = startWitness();
        a.writeConfig(store, b.haPort, witnessPort);
        b.writeConfig(store, a.haPort, witnessPort);
        startBoth();
        awaitRoles();
        return witnessPort;
    }

    /** Starts a, then b, on the configs written. */
    void startBoth() {
        a.start();
        b.start();
    }

    /** Starts the witness in folder {@code witness}; returns its port on 127.0.0.1. */
    int startWitness() {
        witnessPort = DaemonProcess.freePort();
        witness = DaemonProcess.startWitness(dir.resolve("witness"), witnessPort);
        return witnessPort;
    }

    /** Waits until a serves and b is its secondary, each with the other's port groups in its targets. */
    void awaitRoles() throws InterruptedException {
        awaitLog(a, 0, Pattern.compile("HA node a: primary, peer b secondary"));
        awaitLog(b, 0, Pattern.compile("HA node b: secondary, peer a primary"));
    }

    void stopBothCleanly() {
        a.daemon.stopCleanly();
        b.daemon.stopCleanly();
    }

    /**
     * Test clean-up: stops what still runs (the nodes cleanly, else failing) and keeps every log in
     * {@code target/daemon-logs/<testClass>.<test>.<node>.log}.
     */
    void stop(String testClass, TestInfo test) throws IOException {
        try {
            DaemonProcess.stopCleanlyIfRunning(a.daemon);
        } finally {
            try {
                DaemonProcess.stopCleanlyIfRunning(b.daemon);
            } finally {
                DaemonProcess.stopCleanlyIfRunning(witness);
                Path logs = Files.createDirectories(Path.of("target", "daemon-logs"));
                String prefix = testClass + "." + test.getTestMethod().map(Method::getName).orElse("test") + ".";
                for (Path folder : new Path[] {a.dir, b.dir, dir.resolve("witness")}) {
                    if (Files.exists(folder.resolve("daemon.log"))) {
                        Files.copy(folder.resolve("daemon.log"), logs.resolve(prefix + folder.getFileName() + ".log"),
                                StandardCopyOption.REPLACE_EXISTING);
                    }
                }
            }
        }
    }

    /** Stops both cleanly, then {@link #assertIdentical()}. */
    void stopBothAndCompare() throws IOException {
        stopBothCleanly();
        assertIdentical();
    }

    /** The two backing files hold the same bytes. */
    void assertIdentical() throws IOException {
        assertThat(Files.size(b.disk())).as("size of b's file").isEqualTo(Files.size(a.disk()));
        long at = Files.mismatch(a.disk(), b.disk());
        assertThat(at).as("first byte where b's file differs from a's (-1: none)\n" + describe()).isEqualTo(-1L);
    }

    /** Waits {@link #PAIR_WAIT} for {@code pattern} in the part of {@code n}'s log from {@code from}; fails with every log. */
    Matcher awaitLog(Node n, int from, Pattern pattern) throws InterruptedException {
        return awaitLog(n, from, pattern, PAIR_WAIT);
    }

    /** Waits {@code within} for {@code pattern} in the part of {@code n}'s log from {@code from}; fails with every log. */
    Matcher awaitLog(Node n, int from, Pattern pattern, Duration within) throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        while (true) {
            Matcher m = pattern.matcher(n.daemon.log());
            if (m.find(from)) {
                return m;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("node " + n.name + " did not log /" + pattern + "/ within "
                        + within.toMillis() + " ms\n" + describe());
            }
            Thread.sleep(20);
        }
    }

    /** The line of {@code primary} once its peer is in sync: "HA node b: a in sync, 64 MiB copied in 0.7 s". */
    static Pattern inSync(Node primary) {
        return Pattern.compile("HA node " + primary.name + ": " + primary.peer + " in sync, (\\d+) MiB copied in [\\d.]+ s");
    }

    /**
     * Waits {@code within} for the line where {@code n} begins to serve ("HA node b: primary"),
     * logged from {@code from}; returns the milliseconds from {@code since} (the test's clock,
     * taken just before a kill) to that line's timestamp (logback's %d{HH:mm:ss.SSS}, the same
     * host clock), so the failover time excludes how often this polls.
     */
    long awaitPrimarySince(Node n, int from, LocalTime since, Duration within) throws InterruptedException {
        Matcher primary = awaitLog(n, from, Pattern.compile("(?m)^(\\d\\d:\\d\\d:\\d\\d\\.\\d{3}) .*HA node " + n.name
                + ": primary"), within);
        return Math.floorMod(Duration.between(since, LocalTime.parse(primary.group(1))).toMillis(),
                Duration.ofDays(1).toMillis());
    }

    /** Each process's state, log tail and stderr, for assertion messages. */
    String describe() {
        StringBuilder s = new StringBuilder();
        for (DaemonProcess d : new DaemonProcess[] {a.daemon, b.daemon, witness}) {
            if (d != null) {
                s.append(d.describe()).append('\n');
            }
        }
        return s.toString();
    }

    // ------------------------------------------------------------------ SCSI

    static byte[] random(int bytes, long seed) {
        byte[] data = new byte[bytes];
        new Random(seed).nextBytes(data);
        return data;
    }

    /** WRITE(10)s of 1 MiB, each of which must succeed. */
    static void write(ScsiClient c, long lba, byte[] data) throws IOException {
        for (int off = 0; off < data.length; off += MIB) {
            ScsiResult r = c.write10(LUN, lba + off / BLOCK, Arrays.copyOfRange(data, off, off + MIB), BLOCK);
            assertThat(r.good()).as("WRITE(10) of 1 MiB at LBA " + (lba + off / BLOCK) + ": " + r).isTrue();
        }
    }

    /** READ(10)s of 1 MiB, each of which must succeed. */
    static byte[] read(ScsiClient c, long lba, int bytes) throws IOException {
        ByteBuffer all = ByteBuffer.allocate(bytes);
        for (int off = 0; off < bytes; off += MIB) {
            ScsiResult r = c.read10(LUN, lba + off / BLOCK, MIB_BLOCKS, BLOCK);
            assertThat(r.good()).as("READ(10) of 1 MiB at LBA " + (lba + off / BLOCK) + ": " + r).isTrue();
            all.put(r.data());
        }
        return all.array();
    }

    interface Command {
        ScsiResult run() throws IOException;
    }

    /**
     * The command, repeated while it answers UNIT ATTENTION (at most 8 times), as an initiator
     * does: a change of the ALUA states reports ASYMMETRIC ACCESS STATE CHANGED first.
     */
    static ScsiResult pastUnitAttention(Command command) throws IOException {
        ScsiResult r = command.run();
        for (int i = 0; i < 7 && r.status() == ScsiResult.CHECK_CONDITION && r.senseKey() == ScsiClient.UNIT_ATTENTION;
             i++) {
            r = command.run();
        }
        return r;
    }

    /** CHECK CONDITION, NOT READY, LOGICAL UNIT NOT ACCESSIBLE, TARGET PORT IN STANDBY STATE (04/0Bh). */
    static void assertStandby(ScsiResult r, String what) {
        assertThat(r.status()).as(what + ": CHECK CONDITION " + r).isEqualTo(ScsiResult.CHECK_CONDITION);
        assertThat(new int[] {r.senseKey(), r.additionalSenseCode(), r.additionalSenseCodeQualifier()})
                .as(what + ": NOT READY, LOGICAL UNIT NOT ACCESSIBLE, TARGET PORT IN STANDBY STATE " + r)
                .containsExactly(NOT_READY, 0x04, STANDBY_ASCQ);
    }

    /**
     * REPORT TARGET PORT GROUPS (SPC-4 6.27, MAINTENANCE IN A3h/0Ah, length-only format): group
     * number to asymmetric access state. Per group: 0 state(3..0) | 1 supported | 2..3 group |
     * 4 | 5 status | 6 | 7 port count, then 4 bytes per port.
     */
    static Map<Integer, Integer> portGroups(ScsiClient c) throws IOException {
        byte[] cdb = {(byte) 0xA3, 0x0A, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0};
        ScsiResult r = c.execute(LUN, cdb, 1024);
        assertThat(r.good()).as("REPORT TARGET PORT GROUPS: " + r).isTrue();
        ByteBuffer page = ByteBuffer.wrap(r.data());
        int end = Math.min(page.limit(), 4 + page.getInt(0));
        Map<Integer, Integer> groups = new LinkedHashMap<>();
        for (int at = 4; at + 8 <= end; at += 8 + 4 * (page.get(at + 7) & 0xFF)) {
            groups.put(page.getShort(at + 2) & 0xFFFF, page.get(at) & 0x0F);
        }
        return groups;
    }

    /** What multipath joins a node's paths by: the LU's NAA designator (VPD 83h) and unit serial number (VPD 80h). */
    record Identity(String naa, String serial) {
    }

    static Identity identity(ScsiClient c) throws IOException {
        return new Identity(HexFormat.of().formatHex(c.naaDesignator(LUN)), c.unitSerialNumber(LUN));
    }
}
