package org.jtarget.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jtarget.initiator.cli.CliFailure;
import org.jtarget.initiator.crashcheck.JournalRecord;
import org.jtarget.initiator.raw.ScsiCdbs;
import org.jtarget.initiator.raw.ScsiResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.io.TempDir;

/**
 * An HA pair (issue 17, docs/ha.md) of two real daemons, each in its own folder on loopback
 * ports: node {@code a} (portal group 1, the preferred primary: its name sorts first) and node
 * {@code b} (portal group 2), replicating one 64 MiB store over their replication link.
 *
 * <ul>
 * <li>A new pair: a serves (active/optimized), b is its standby secondary (I/O through it answers
 * NOT READY 04/0Bh), both report the same LU identity and both port groups; what a acknowledged is
 * on b too, byte for byte, once both stopped.</li>
 * <li>The secondary killed: a serves on alone (degraded) and, when b is back, copies only what b
 * missed.</li>
 * <li>The primary killed under {@code jtarget-initiator crashcheck write} and restarted: it serves
 * again, no acknowledged write is lost, and b ends with the same bytes.</li>
 * <li>Stores of different sizes: the pair is refused at the handshake and neither node serves.</li>
 * <li>Memory stores, the primary killed and restarted empty: the secondary, whose copy is whole,
 * serves and copies it back.</li>
 * </ul>
 *
 * The heartbeat is 200 ms with a 1 s timeout so that the whole class runs in well under 90 s.
 */
class HaPairIT {

    private static final String IQN = "iqn.2026-11.org.jtarget:ha";
    private static final int LUN = 0;
    /** The file store's default logical block size. */
    private static final int BLOCK = 512;
    private static final int MIB = 1 << 20;
    private static final int MIB_BLOCKS = MIB / BLOCK;
    /** The replicated store of each node: a file, or a memory store, of 64 MiB (or half that). */
    private static final String FILE_STORE = "type: file, path: disk.img, size: 64MiB, create: true";
    private static final String SMALLER_FILE_STORE = "type: file, path: disk.img, size: 32MiB, create: true";
    private static final String MEMORY_STORE = "type: memory, size: 64MiB";
    private static final Duration LOGIN_TIMEOUT = Duration.ofSeconds(10);
    /** Long enough for a role decision and a full 64 MiB copy over the link. */
    private static final Duration PAIR_WAIT = Duration.ofSeconds(30);
    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration JOURNAL_WAIT = Duration.ofSeconds(20);
    private static final Duration WRITER_EXIT_WAIT = Duration.ofSeconds(20);
    private static final int CRASHCHECK_BLOCKS = 256;
    private static final int CRASHCHECK_ACKS = 300;
    /** SPC-4 4.5.6 sense key NOT READY, ASC/ASCQ 04/0Bh LOGICAL UNIT NOT ACCESSIBLE, TARGET PORT IN STANDBY STATE. */
    private static final int NOT_READY = 0x2;
    private static final int STANDBY_ASCQ = 0x0B;
    /** REPORT TARGET PORT GROUPS' asymmetric access states (SPC-4 table 180). */
    private static final int ACTIVE_OPTIMIZED = 0x0;
    private static final int STANDBY = 0x2;
    private static final Pattern IN_SYNC = Pattern.compile("HA node a: b in sync, (\\d+) MiB copied in ([\\d.]+) s");
    private static final Pattern VERIFIED = Pattern.compile("(?m)^verified (\\d+) blocks, (\\d+) lost$");

    @TempDir
    Path dir;

    private Node a;
    private Node b;
    private Process writer;

    /** One daemon of the pair: its folder, its portal, its replication listener and the peer's. */
    private static final class Node {
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

        Path writeConfig(int peerHaPort, String store) throws IOException {
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
                      heartbeat-interval: 200ms
                      heartbeat-timeout: 1s
                      backstores: [disk]
                    """.formatted(portal, tag, store, IQN, name, haPort, peer, peerHaPort));
        }

        void start() {
            daemon = DaemonProcess.start(dir.resolve("jtarget.yaml"), portal);
        }

        /** SIGKILL, and wait for the process to be gone. */
        void kill() {
            daemon.kill();
            daemon.awaitExit(Duration.ofSeconds(10));
        }

        /** How much log there is now: what a later {@link #awaitLog} searches starts here. */
        int mark() {
            return daemon.log().length();
        }

        Path disk() {
            return dir.resolve("disk.img");
        }

        String url() {
            return Transport.TCP.url(portal, IQN, LUN);
        }

        ScsiClient login(String initiator) throws IOException {
            return ScsiTransport.TCP.login(portal, initiator, IQN, DaemonConfig.SRP_TARGET_PORT, LOGIN_TIMEOUT);
        }
    }

    /** Stops what still runs, and keeps both logs in {@code target/daemon-logs/HaPairIT.<test>.<node>.log}. */
    @AfterEach
    void stopBoth(TestInfo test) throws IOException {
        if (writer != null && writer.isAlive()) {
            writer.destroyForcibly();
        }
        try {
            DaemonProcess.stopCleanlyIfRunning(a == null ? null : a.daemon);
        } finally {
            DaemonProcess.stopCleanlyIfRunning(b == null ? null : b.daemon);
            Path logs = Files.createDirectories(Path.of("target", "daemon-logs"));
            for (Node n : new Node[] {a, b}) {
                if (n != null && Files.exists(n.dir.resolve("daemon.log"))) {
                    Files.copy(n.dir.resolve("daemon.log"), logs.resolve("HaPairIT." + test.getTestMethod()
                            .map(Method::getName).orElse("test") + "." + n.name + ".log"),
                            StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
    }

    @Test
    void aNewPairServesThroughThePrimaryOnlyWithOneIdentityAndTheSameBytes() throws Exception {
        startPair(FILE_STORE, FILE_STORE);
        awaitRoles();

        byte[] data = random(8 * MIB, 1);
        try (ScsiClient c = a.login("iqn.2026-11.org.jtarget:ha-it-a")) {
            c.testUnitReadyClearingUnitAttention(LUN);
            write(c, 4 * MIB_BLOCKS, data);
            assertThat(read(c, 4 * MIB_BLOCKS, data.length)).as("8 MiB read back through a").isEqualTo(data);
        }
        Identity throughA;
        Identity throughB;
        try (ScsiClient c = a.login("iqn.2026-11.org.jtarget:ha-it-a")) {
            c.testUnitReadyClearingUnitAttention(LUN);
            assertThat(portGroups(c)).as("REPORT TARGET PORT GROUPS through a")
                    .isEqualTo(Map.of(1, ACTIVE_OPTIMIZED, 2, STANDBY));
            throughA = identity(c);
        }
        try (ScsiClient c = b.login("iqn.2026-11.org.jtarget:ha-it-b")) {
            c.testUnitReadyClearingUnitAttention(LUN);
            assertStandby(c.read10(LUN, 4 * MIB_BLOCKS, 8, BLOCK), "READ(10) through b");
            assertStandby(c.write10(LUN, 0, new byte[BLOCK], BLOCK), "WRITE(10) through b");
            assertThat(portGroups(c)).as("REPORT TARGET PORT GROUPS through b")
                    .isEqualTo(Map.of(1, ACTIVE_OPTIMIZED, 2, STANDBY));
            throughB = identity(c);
        }
        assertThat(throughB).as("the LU's identity through b and through a").isEqualTo(throughA);

        awaitLog(a, 0, IN_SYNC); // the first copy of the pair ends before the two files can be alike
        stopBothCleanly();
        assertIdentical();
    }

    @Test
    void theSecondaryKilledGetsOnlyWhatItMissedWhenItReturns() throws Exception {
        startPair(FILE_STORE, FILE_STORE);
        awaitRoles();
        awaitLog(a, 0, IN_SYNC);

        b.kill();
        int mark = a.mark();
        byte[] data = random(16 * MIB, 2);
        try (ScsiClient c = a.login("iqn.2026-11.org.jtarget:ha-it-a")) {
            c.testUnitReadyClearingUnitAttention(LUN);
            write(c, 32 * MIB_BLOCKS, data); // fails unless a serves on alone
            assertThat(read(c, 32 * MIB_BLOCKS, data.length)).as("16 MiB read back through a, alone").isEqualTo(data);
        }
        awaitLog(a, mark, Pattern.compile("HA node a: b is not receiving changes; serving alone \\(degraded\\)"));

        mark = a.mark();
        b.start();
        Matcher synced = awaitLog(a, mark, IN_SYNC);
        long copied = Long.parseLong(synced.group(1));
        System.out.printf("HaPairIT: after b missed 16 MiB, a logged \"%s\"%n", synced.group());
        assertThat(copied).as("MiB copied to b on its return: what it missed (16 MiB), not the store (64 MiB)\n"
                + synced.group()).isBetween(16L, 31L);

        stopBothCleanly();
        assertIdentical();
    }

    @Test
    void thePrimaryKilledMidWriteServesAgainWithoutLosingAnAcknowledgedWrite() throws Exception {
        startPair(FILE_STORE, FILE_STORE);
        awaitRoles();
        awaitLog(a, 0, IN_SYNC);

        Path journal = dir.resolve("journal");
        writer = new ProcessBuilder(cli().toString(), "crashcheck", "write", "--url", a.url(), "--journal",
                journal.toString(), "--seconds", "30", "--mode", "fua", "--lba", "0", "--blocks",
                Integer.toString(CRASHCHECK_BLOCKS))
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(dir.resolve("writer.out").toFile())
                .redirectError(dir.resolve("writer.err").toFile())
                .start();
        awaitAcknowledgements(journal);
        a.kill();
        assertThat(writer.waitFor(WRITER_EXIT_WAIT.toMillis(), TimeUnit.MILLISECONDS))
                .as("the writer ends on its own once the connection drops\n" + writerOutput()).isTrue();
        assertThat(writer.exitValue()).as("exit code for a lost connection\n" + writerOutput())
                .isEqualTo(CliFailure.IO_ERROR);

        int mark = a.mark();
        a.start();
        awaitLog(a, mark, Pattern.compile("HA node a: primary, peer b secondary"));
        Matcher synced = awaitLog(a, mark, IN_SYNC);
        System.out.printf("HaPairIT: after a was killed mid-write, a logged \"%s\"%n", synced.group());

        ClientTool.Result v = ClientTool.run(COMMAND_TIMEOUT, this::describePair, cli().toString(), "crashcheck",
                "verify", "--url", a.url(), "--journal", journal.toString());
        assertThat(v.exitCode()).as(v.describe()).isZero();
        Matcher m = VERIFIED.matcher(v.stdout());
        assertThat(m.find()).as(v.describe()).isTrue();
        assertThat(Integer.parseInt(m.group(1))).as("every LBA of the region was journaled\n" + v.describe())
                .isEqualTo(CRASHCHECK_BLOCKS);
        assertThat(m.group(2)).as("lost blocks\n" + v.describe()).isEqualTo("0");

        stopBothCleanly();
        assertIdentical();
    }

    @Test
    void aPairWhoseStoresDifferInSizeNeverServes() throws Exception {
        startPair(FILE_STORE, SMALLER_FILE_STORE);
        Pattern refused = Pattern.compile("ERROR .* HA: pair \\S+ is inconsistent: store 1 is disk \\(");
        awaitLog(a, 0, refused);
        awaitLog(b, 0, refused);
        Thread.sleep(1000); // the link is dialled again every heartbeat: the pair must still not serve after that

        for (Node n : new Node[] {a, b}) {
            try (ScsiClient c = n.login("iqn.2026-11.org.jtarget:ha-it-" + n.name)) {
                c.testUnitReadyClearingUnitAttention(LUN);
                assertStandby(c.read10(LUN, 0, 8, BLOCK), "READ(10) through " + n.name);
                assertStandby(c.write10(LUN, 0, new byte[BLOCK], BLOCK), "WRITE(10) through " + n.name);
            }
            assertThat(n.daemon.log()).as("node " + n.name + " never serves\n" + describePair())
                    .doesNotContain("HA node " + n.name + ": primary").doesNotContain("HA node " + n.name + ": secondary");
        }
    }

    /**
     * A primary whose memory store restarted empty, still at the pair's first generation (nothing
     * was ever written alone), is no new pair: the secondary, whose copy is whole, serves and copies
     * everything to it (it used to serve its empty store and copy it over the secondary's data).
     */
    @Test
    void aPrimaryWhoseMemoryStoreRestartedEmptyNeitherServesItNorCopiesItOverThePeer() throws Exception {
        startPair(MEMORY_STORE, MEMORY_STORE);
        awaitRoles();
        awaitLog(a, 0, IN_SYNC);
        byte[] data = random(4 * MIB, 3);
        try (ScsiClient c = a.login("iqn.2026-11.org.jtarget:ha-it-a")) {
            c.testUnitReadyClearingUnitAttention(LUN);
            write(c, 0, data);
        }

        a.kill();
        int mark = b.mark();
        a.start();
        awaitLog(b, mark, Pattern.compile("HA node b: primary, peer a secondary"));
        Matcher synced = awaitLog(b, mark, Pattern.compile("HA node b: a in sync, (\\d+) MiB copied"));
        assertThat(synced.group(1)).as("b copies all of its store to a\n" + synced.group()).isEqualTo("64");
        try (ScsiClient c = b.login("iqn.2026-11.org.jtarget:ha-it-b")) {
            c.testUnitReadyClearingUnitAttention(LUN);
            assertThat(read(c, 0, data.length)).as("4 MiB written through a, read through b").isEqualTo(data);
        }
        try (ScsiClient c = a.login("iqn.2026-11.org.jtarget:ha-it-a")) {
            c.testUnitReadyClearingUnitAttention(LUN);
            assertStandby(c.read10(LUN, 0, 8, BLOCK), "READ(10) through a, now the secondary");
        }
    }

    // ------------------------------------------------------------------ the pair

    /** Writes both configs, each node's store as given (the inside of its YAML map), and starts a, then b. */
    private void startPair(String aStore, String bStore) throws IOException {
        a = new Node(dir, "a", "b", 1);
        b = new Node(dir, "b", "a", 2);
        a.writeConfig(b.haPort, aStore);
        b.writeConfig(a.haPort, bStore);
        a.start();
        b.start();
    }

    /** Waits until a serves and b is its secondary, each with the other's port groups in its targets. */
    private void awaitRoles() throws InterruptedException {
        awaitLog(a, 0, Pattern.compile("HA node a: primary, peer b secondary"));
        awaitLog(b, 0, Pattern.compile("HA node b: secondary, peer a primary"));
    }

    private void stopBothCleanly() {
        a.daemon.stopCleanly();
        b.daemon.stopCleanly();
    }

    /** The two backing files hold the same bytes. */
    private void assertIdentical() throws IOException {
        assertThat(Files.size(b.disk())).as("size of b's file").isEqualTo(Files.size(a.disk()));
        long at = Files.mismatch(a.disk(), b.disk());
        assertThat(at).as("first byte where b's file differs from a's (-1: none)\n" + describePair()).isEqualTo(-1L);
    }

    /** Waits for {@code pattern} in the part of {@code n}'s log from {@code from}; fails with both logs. */
    private Matcher awaitLog(Node n, int from, Pattern pattern) throws InterruptedException {
        long deadline = System.nanoTime() + PAIR_WAIT.toNanos();
        while (true) {
            Matcher m = pattern.matcher(n.daemon.log());
            if (m.find(from)) {
                return m;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("node " + n.name + " did not log /" + pattern + "/ within "
                        + PAIR_WAIT.toSeconds() + " s\n" + describePair());
            }
            Thread.sleep(50);
        }
    }

    private String describePair() {
        return (a.daemon == null ? "" : a.daemon.describe() + "\n") + (b.daemon == null ? "" : b.daemon.describe());
    }

    // ------------------------------------------------------------------ SCSI

    private static byte[] random(int bytes, long seed) {
        byte[] data = new byte[bytes];
        new Random(seed).nextBytes(data);
        return data;
    }

    /** WRITE(10)s of 1 MiB, each of which must succeed. */
    private static void write(ScsiClient c, long lba, byte[] data) throws IOException {
        for (int off = 0; off < data.length; off += MIB) {
            ScsiResult r = c.write10(LUN, lba + off / BLOCK, Arrays.copyOfRange(data, off, off + MIB), BLOCK);
            assertThat(r.good()).as("WRITE(10) of 1 MiB at LBA " + (lba + off / BLOCK) + ": " + r).isTrue();
        }
    }

    /** READ(10)s of 1 MiB, each of which must succeed. */
    private static byte[] read(ScsiClient c, long lba, int bytes) throws IOException {
        ByteBuffer all = ByteBuffer.allocate(bytes);
        for (int off = 0; off < bytes; off += MIB) {
            ScsiResult r = c.read10(LUN, lba + off / BLOCK, MIB_BLOCKS, BLOCK);
            assertThat(r.good()).as("READ(10) of 1 MiB at LBA " + (lba + off / BLOCK) + ": " + r).isTrue();
            all.put(r.data());
        }
        return all.array();
    }

    private static void assertStandby(ScsiResult r, String what) {
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
    private static Map<Integer, Integer> portGroups(ScsiClient c) throws IOException {
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
    private record Identity(String naa, String serial) {
    }

    private static Identity identity(ScsiClient c) throws IOException {
        return new Identity(HexFormat.of().formatHex(c.naaDesignator(LUN)), c.unitSerialNumber(LUN));
    }

    // ------------------------------------------------------------------ crashcheck

    private static Path cli() {
        Path cli = DaemonProcess.home().resolve("initiator-tools/bin/jtarget-initiator");
        assertThat(Files.isExecutable(cli)).as(cli + " executable").isTrue();
        return cli;
    }

    /** Polls the journal until it holds {@link #CRASHCHECK_ACKS} acknowledged writes after its RUN record. */
    private void awaitAcknowledgements(Path journal) throws IOException, InterruptedException {
        long want = (long) (CRASHCHECK_ACKS + 1) * JournalRecord.LENGTH;
        long deadline = System.nanoTime() + JOURNAL_WAIT.toNanos();
        while (!Files.exists(journal) || Files.size(journal) < want) {
            if (!writer.isAlive()) {
                throw new AssertionError("the writer exited early with " + writer.exitValue() + "\n" + writerOutput()
                        + "\n" + describePair());
            }
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("fewer than " + CRASHCHECK_ACKS + " acknowledged writes within "
                        + JOURNAL_WAIT.toSeconds() + " s\n" + writerOutput() + "\n" + describePair());
            }
            Thread.sleep(50);
        }
    }

    private String writerOutput() {
        return ClientTool.outputOf("writer", dir.resolve("writer.out"), dir.resolve("writer.err"));
    }
}
