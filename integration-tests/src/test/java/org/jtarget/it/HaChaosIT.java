package org.jtarget.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jtarget.initiator.crashcheck.Expectations;
import org.jtarget.initiator.crashcheck.Journal;
import org.jtarget.initiator.crashcheck.JournalRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The chaos loop of issue 17 (docs/ha.md): no acknowledged write is lost while either node of an
 * HA pair with a witness is killed again and again under our own multipath client.
 *
 * <p>A witness ({@code jtargetd --witness}) and nodes {@code a} and {@code b} (heartbeat 200 ms,
 * timeout 1 s), each replicating one 16 MiB file store (memory stores do not survive a kill). Once
 * the pair is in sync, {@code jtarget-initiator crashcheck write --url A --url B --mode fua} runs for
 * the whole test, moving between the two nodes' portals as a multipath initiator does (a lost
 * connection, or ALUA standby/transition, sends it to the other path with the unacknowledged write).
 * Then {@link #KILLS} times: after a random 200..1500 ms of writes, SIGKILL either the primary or the
 * secondary (a coin toss); wait until the survivor serves alone (the secondary promoted by the
 * witness, or the primary degraded); after a random 100..1000 ms restart the killed node; wait until
 * the primary logs that it is {@code in sync} again (a returning secondary gets only what it missed,
 * less than the whole store; a returning old primary may get everything), and until the writer has
 * acknowledged more writes through the healthy pair. At the end the writer is stopped, {@code crashcheck verify}
 * through the primary (both URLs given, the primary's first) must report {@code 0 lost} over every
 * LBA the journal names, and once both nodes stopped cleanly their backing files must be identical.
 *
 * <p>The random choices come from a seeded {@link Random}; the seed is printed and
 * {@code -Dha.chaos.seed=N} replays the sequence ({@code -Dha.chaos.kills=N} changes the count).
 * Both logs, the witness's and the writer's output are kept in {@code target/daemon-logs/HaChaosIT.*}.
 */
class HaChaosIT {

    private static final String IQN = "iqn.2026-11.org.jtarget:ha-chaos";
    private static final int KILLS = Integer.getInteger("ha.chaos.kills", 20);
    private static final long SEED = Long.getLong("ha.chaos.seed", System.nanoTime());
    /** 16 MiB: what a rejoining old primary gets copied whole. */
    private static final int STORE_MIB = 16;
    private static final String FILE_STORE = "type: file, path: disk.img, size: " + STORE_MIB + "MiB, create: true";
    /** The writer's region: 4 MiB from LBA 4096 (2 MiB), across the 4 MiB extent boundary of the dirty-region log. */
    private static final int REGION_LBA = 4096;
    private static final int REGION_BLOCKS = 8192;
    private static final int MIN_RUN_MS = 200;
    private static final int MAX_RUN_MS = 1500;
    private static final int MIN_DOWN_MS = 100;
    private static final int MAX_DOWN_MS = 1000;
    /** Acknowledged writes the healthy pair must take after each resync before the next kill. */
    private static final int ACKS_BETWEEN_KILLS = 20;
    private static final String WRITER_SECONDS = "900";
    /** A role change, a 16 MiB copy, a daemon start: each well within this. */
    private static final Duration PAIR_WAIT = Duration.ofSeconds(30);
    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration PROCESS_EXIT_WAIT = Duration.ofSeconds(20);
    private static final Pattern VERIFIED = Pattern.compile("(?m)^verified (\\d+) blocks, (\\d+) lost$");

    @TempDir
    Path dir;

    private Node a;
    private Node b;
    private Process witness;
    private Process writer;

    /** One daemon of the pair: its folder, its portal, its replication listener. */
    private static final class Node {
        final String name;
        final Path dir;
        final int portal = DaemonProcess.freePort();
        final int tag;
        final int haPort = DaemonProcess.freePort();
        DaemonProcess daemon;

        Node(Path root, String name, int tag) {
            this.name = name;
            this.dir = root.resolve(name);
            this.tag = tag;
        }

        void writeConfig(Node peer, int witnessPort) throws IOException {
            DaemonConfig.write(dir, """
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
                      witness: "127.0.0.1:%d"
                      heartbeat-interval: 200ms
                      heartbeat-timeout: 1s
                      backstores: [disk]
                    """.formatted(portal, tag, FILE_STORE, IQN, name, haPort, peer.name, peer.haPort, witnessPort));
        }

        void start() {
            daemon = DaemonProcess.start(dir.resolve("jtarget.yaml"), portal);
        }

        /** SIGKILL, and wait for the process to be gone. */
        void kill() {
            daemon.kill();
            daemon.awaitExit(PROCESS_EXIT_WAIT);
        }

        int mark() {
            return daemon.log().length();
        }

        Path disk() {
            return dir.resolve("disk.img");
        }

        String url() {
            return Transport.TCP.url(portal, IQN, 0);
        }
    }

    /** What one kill did, for the summary. */
    private record Kill(int number, boolean primary, String victim, int runMs, long aloneMs, int downMs, long syncMs,
                        String synced, long acks) {

        String describe() {
            return String.format("kill %2d: %-9s %s after %4d ms of writes; survivor alone %5d ms later; %s restarted"
                    + " after %3d ms, in sync %5d ms later (\"%s\"); journal at %d acknowledged writes", number,
                    primary ? "primary" : "secondary", victim, runMs, aloneMs, victim, downMs, syncMs, synced, acks);
        }
    }

    @AfterEach
    void stopEverything() throws IOException {
        if (writer != null && writer.isAlive()) {
            writer.destroyForcibly();
        }
        try {
            try {
                DaemonProcess.stopCleanlyIfRunning(a == null ? null : a.daemon);
            } finally {
                DaemonProcess.stopCleanlyIfRunning(b == null ? null : b.daemon);
            }
        } finally {
            if (witness != null && witness.isAlive()) {
                witness.destroy();
                try {
                    if (!witness.waitFor(PROCESS_EXIT_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                        witness.destroyForcibly();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            keepLogs();
        }
    }

    /** Copies the nodes' and the witness's logs and the writer's output to {@code target/daemon-logs/HaChaosIT.*}. */
    private void keepLogs() throws IOException {
        Path logs = Files.createDirectories(Path.of("target", "daemon-logs"));
        List<Path[]> files = new ArrayList<>();
        for (Node n : new Node[] {a, b}) {
            if (n != null) {
                files.add(new Path[] {n.dir.resolve("daemon.log"), logs.resolve("HaChaosIT." + n.name + ".log")});
            }
        }
        files.add(new Path[] {dir.resolve("witness/witness.log"), logs.resolve("HaChaosIT.witness.log")});
        files.add(new Path[] {dir.resolve("writer.out"), logs.resolve("HaChaosIT.writer.out")});
        files.add(new Path[] {dir.resolve("writer.err"), logs.resolve("HaChaosIT.writer.err")});
        for (Path[] f : files) {
            if (Files.exists(f[0])) {
                Files.copy(f[0], f[1], StandardCopyOption.REPLACE_EXISTING);
            }
        }
    }

    @Test
    void killingEitherNodeAgainAndAgainUnderMultipathWritesLosesNoAcknowledgedWrite() throws Exception {
        long start = System.nanoTime();
        System.out.println("HaChaosIT: seed " + SEED + " (replay with -Dha.chaos.seed=" + SEED + "), " + KILLS
                + " kills");
        Random random = new Random(SEED);
        int witnessPort = startWitness();
        a = new Node(dir, "a", 1);
        b = new Node(dir, "b", 2);
        a.writeConfig(b, witnessPort);
        b.writeConfig(a, witnessPort);
        a.start();
        b.start();
        awaitLog(a, 0, Pattern.compile("HA node a: primary, peer b secondary"));
        awaitLog(b, 0, Pattern.compile("HA node b: secondary, peer a primary"));
        awaitLog(a, 0, inSync(a, b));
        long setUp = System.nanoTime();

        Path journal = dir.resolve("journal");
        writer = startWriter(journal);
        awaitAcknowledgements(journal, 1, "the first write");

        Node primary = a;
        Node secondary = b;
        List<Kill> kills = new ArrayList<>();
        for (int i = 1; i <= KILLS; i++) {
            boolean killPrimary = random.nextBoolean();
            int runMs = MIN_RUN_MS + random.nextInt(MAX_RUN_MS - MIN_RUN_MS + 1);
            int downMs = MIN_DOWN_MS + random.nextInt(MAX_DOWN_MS - MIN_DOWN_MS + 1);
            Node victim = killPrimary ? primary : secondary;
            Node survivor = killPrimary ? secondary : primary;
            String where = "kill " + i + "/" + KILLS + " (the " + (killPrimary ? "primary " : "secondary ")
                    + victim.name + "), seed " + SEED;

            Thread.sleep(runMs);
            assertWriterAlive(where);
            int mark = survivor.mark();
            long killed = System.nanoTime();
            victim.kill();
            // the secondary promoted by the witness, or the primary going on alone at its next write
            awaitLog(survivor, mark, Pattern.compile("HA node " + survivor.name + ": .*serving alone \\(degraded\\)"),
                    where);
            long alone = System.nanoTime();
            primary = survivor;
            secondary = victim;

            Thread.sleep(downMs);
            mark = primary.mark();
            long restarted = System.nanoTime();
            victim.start();
            Matcher synced = awaitLog(primary, mark, inSync(primary, secondary), where);
            long inSync = System.nanoTime();
            if (!killPrimary) {
                // the secondary's copy was whole and current: only what it missed comes back (docs/ha.md)
                assertThat(Integer.parseInt(synced.group(1))).as("MiB copied to the returning secondary, not the"
                        + " whole " + STORE_MIB + " MiB store (" + where + "): " + synced.group() + "\n"
                        + describeAll()).isLessThan(STORE_MIB);
            }
            long acks = awaitAcknowledgements(journal, ACKS_BETWEEN_KILLS, where);
            Kill k = new Kill(i, killPrimary, victim.name, runMs, (alone - killed) / 1_000_000, downMs,
                    (inSync - restarted) / 1_000_000, synced.group(), acks);
            kills.add(k);
            System.out.println("HaChaosIT: " + k.describe());
        }
        long chaosEnd = System.nanoTime();

        assertWriterAlive("the end of the chaos loop");
        writer.destroy(); // SIGTERM: the journal is forced record by record, intact at any moment
        assertThat(writer.waitFor(PROCESS_EXIT_WAIT.toMillis(), TimeUnit.MILLISECONDS)).as("the writer stops")
                .isTrue();
        Expectations journaled = Expectations.of(Journal.read(journal).records());
        assertThat(journaled.runCount()).as("one write run across every kill").isOne();

        ClientTool.Result v = ClientTool.run(COMMAND_TIMEOUT, this::describeAll, cli().toString(), "crashcheck",
                "verify", "--url", primary.url(), "--url", secondary.url(), "--journal", journal.toString());
        String context = "seed " + SEED + "\n" + v.describe();
        Matcher m = VERIFIED.matcher(v.stdout());
        assertThat(m.find()).as("verify summary line: " + context).isTrue();
        assertThat(m.group(2)).as("lost blocks: " + context + "\n" + describeAll()).isEqualTo("0");
        assertThat(v.exitCode()).as(context).isZero();
        assertThat(Long.parseLong(m.group(1))).as("verify read every journaled LBA: " + context)
                .isEqualTo(journaled.lbas().length);
        assertThat(v.stdout()).as("verify read through the primary, " + primary.name + ": " + context)
                .contains("read through path 1 (");

        secondary.daemon.stopCleanly();
        primary.daemon.stopCleanly();
        assertThat(Files.size(b.disk())).as("size of b's file").isEqualTo(Files.size(a.disk()));
        assertThat(Files.mismatch(a.disk(), b.disk())).as("first byte where b's file differs from a's (-1: none), "
                + "seed " + SEED).isEqualTo(-1L);

        long primaryKills = kills.stream().filter(Kill::primary).count();
        long switches = Files.readAllLines(dir.resolve("writer.out")).stream().filter(l -> l.contains("; next: path"))
                .count();
        System.out.printf("HaChaosIT: seed %d: %d kills (%d of the primary, %d of the secondary), %d acknowledged"
                        + " writes over %d distinct LBAs, %d path failures seen by the writer, 0 lost, files identical;"
                        + " set-up %.1f s, chaos %.1f s, total %.1f s%n", SEED, kills.size(), primaryKills,
                kills.size() - primaryKills, journaled.acknowledged(), journaled.lbas().length, switches,
                (setUp - start) / 1e9, (chaosEnd - setUp) / 1e9, (System.nanoTime() - start) / 1e9);
    }

    // ------------------------------------------------------------------ processes

    /** {@code jtargetd --witness} on a free port, its log in {@code witness/witness.log}; waits until it accepts. */
    private int startWitness() throws IOException, InterruptedException {
        int port = DaemonProcess.freePort();
        Path wdir = Files.createDirectories(dir.resolve("witness"));
        ProcessBuilder pb = new ProcessBuilder(DaemonProcess.jtargetd().toString(), "--witness", "--listen",
                DaemonProcess.HOST + ":" + port, "--state-dir", wdir.toString())
                .directory(wdir.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(ProcessBuilder.Redirect.appendTo(wdir.resolve("witness.log").toFile()))
                .redirectErrorStream(true);
        witness = pb.start();
        long deadline = System.nanoTime() + DaemonProcess.START_TIMEOUT.toNanos();
        while (!DaemonProcess.accepting(port)) {
            if (!witness.isAlive() || System.nanoTime() - deadline > 0) {
                throw new AssertionError("the witness did not listen on " + port + "\n" + witnessLog());
            }
            Thread.sleep(50);
        }
        return port;
    }

    /** {@code crashcheck write} through both nodes (a's path first) over the region, FUA, in the background. */
    private Process startWriter(Path journal) throws IOException {
        return new ProcessBuilder(cli().toString(), "crashcheck", "write", "--url", a.url(), "--url", b.url(),
                "--journal", journal.toString(), "--seconds", WRITER_SECONDS, "--mode", "fua", "--lba",
                Integer.toString(REGION_LBA), "--blocks", Integer.toString(REGION_BLOCKS))
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(dir.resolve("writer.out").toFile())
                .redirectError(dir.resolve("writer.err").toFile())
                .start();
    }

    private static Path cli() {
        Path cli = DaemonProcess.home().resolve("initiator-tools/bin/jtarget-initiator");
        assertThat(Files.isExecutable(cli)).as(cli + " executable").isTrue();
        return cli;
    }

    // ------------------------------------------------------------------ waiting

    private static Pattern inSync(Node primary, Node secondary) {
        return Pattern.compile("HA node " + primary.name + ": " + secondary.name
                + " in sync, (\\d+) MiB copied in [\\d.]+ s");
    }

    private Matcher awaitLog(Node n, int from, Pattern pattern) throws InterruptedException {
        return awaitLog(n, from, pattern, "setting up the pair");
    }

    /** Waits for {@code pattern} in {@code n}'s log from {@code from}; fails with every log and the writer's output. */
    private Matcher awaitLog(Node n, int from, Pattern pattern, String where) throws InterruptedException {
        long deadline = System.nanoTime() + PAIR_WAIT.toNanos();
        while (true) {
            Matcher m = pattern.matcher(n.daemon.log());
            if (m.find(from)) {
                return m;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("node " + n.name + " did not log /" + pattern + "/ within "
                        + PAIR_WAIT.toSeconds() + " s (" + where + ")\n" + describeAll());
            }
            Thread.sleep(20);
        }
    }

    /**
     * Waits until the journal holds {@code more} acknowledged writes beyond what it held on entry
     * (the writer goes on through the pair); returns the count then.
     */
    private long awaitAcknowledgements(Path journal, int more, String where) throws IOException,
            InterruptedException {
        long before = Files.exists(journal) ? Files.size(journal) / JournalRecord.LENGTH : 0;
        long want = Math.max(before, 1) + more;
        long deadline = System.nanoTime() + PAIR_WAIT.toNanos();
        while (!Files.exists(journal) || Files.size(journal) / JournalRecord.LENGTH < want) {
            assertWriterAlive(where);
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("the writer acknowledged fewer than " + more + " writes within "
                        + PAIR_WAIT.toSeconds() + " s (" + where + ")\n" + describeAll());
            }
            Thread.sleep(20);
        }
        return Files.size(journal) / JournalRecord.LENGTH - 1; // the RUN record is no write
    }

    private void assertWriterAlive(String where) {
        if (!writer.isAlive()) {
            throw new AssertionError("the writer gave up with exit " + writer.exitValue() + " (" + where + ")\n"
                    + describeAll());
        }
    }

    // ------------------------------------------------------------------ failure messages

    private String describeAll() {
        StringBuilder s = new StringBuilder();
        for (Node n : new Node[] {a, b}) {
            if (n != null && n.daemon != null) {
                s.append(n.daemon.describe()).append('\n');
            }
        }
        s.append("--- witness log ---\n").append(witnessLog()).append('\n');
        s.append("--- writer stdout, last lines ---\n").append(tail(dir.resolve("writer.out"))).append('\n');
        s.append("--- writer stderr, last lines ---\n").append(tail(dir.resolve("writer.err"))).append('\n');
        return s.append("(all logs in integration-tests/target/daemon-logs/HaChaosIT.*)").toString();
    }

    private String witnessLog() {
        return tail(dir.resolve("witness/witness.log"));
    }

    /** The last 40 lines of {@code file}; never throws. */
    private static String tail(Path file) {
        try {
            if (!Files.exists(file)) {
                return "";
            }
            List<String> lines = Files.readAllLines(file);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException e) {
            return "(cannot read " + file + ": " + e + ")";
        }
    }
}
