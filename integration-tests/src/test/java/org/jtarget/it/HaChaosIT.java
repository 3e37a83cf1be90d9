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
import org.junit.jupiter.api.TestInfo;
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
 * the primary logs that it is {@code in sync} again (a returning secondary gets only what it missed, a
 * returning old primary that and the extents it had writes in flight in: less than the whole store
 * either way), and until the writer has
 * acknowledged more writes through the healthy pair. At the end the writer is stopped, {@code crashcheck verify}
 * through the primary (both URLs given, the primary's first) must report {@code 0 lost} over every
 * LBA the journal names, and once both nodes stopped cleanly their backing files must be identical.
 *
 * <p>The random choices come from a seeded {@link Random}; the seed is printed and
 * {@code -Dha.chaos.seed=N} replays the sequence ({@code -Dha.chaos.kills=N} changes the count).
 * Both logs, the witness's and the writer's output are kept in {@code target/daemon-logs/HaChaosIT.*}.
 */
class HaChaosIT {

    private static final int KILLS = Integer.getInteger("ha.chaos.kills", 20);
    private static final long SEED = Long.getLong("ha.chaos.seed", System.nanoTime());
    /** 16 MiB, of which the writer's region covers two 4 MiB extents: a resync copies less than the whole. */
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

    private HaPair pair;
    private Process writer;

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
    void stopEverything(TestInfo test) throws IOException {
        if (writer != null && writer.isAlive()) {
            writer.destroyForcibly();
        }
        try {
            if (pair != null) {
                pair.stop("HaChaosIT", test); // the nodes cleanly, the witness; their logs kept
            }
        } finally {
            keepWriterOutput();
        }
    }

    /** Copies the writer's output to {@code target/daemon-logs/HaChaosIT.writer.*}. */
    private void keepWriterOutput() throws IOException {
        Path logs = Files.createDirectories(Path.of("target", "daemon-logs"));
        for (String f : new String[] {"writer.out", "writer.err"}) {
            if (Files.exists(dir.resolve(f))) {
                Files.copy(dir.resolve(f), logs.resolve("HaChaosIT." + f), StandardCopyOption.REPLACE_EXISTING);
            }
        }
    }

    @Test
    void killingEitherNodeAgainAndAgainUnderMultipathWritesLosesNoAcknowledgedWrite() throws Exception {
        long start = System.nanoTime();
        System.out.println("HaChaosIT: seed " + SEED + " (replay with -Dha.chaos.seed=" + SEED + "), " + KILLS
                + " kills");
        Random random = new Random(SEED);
        pair = new HaPair(dir);
        HaPair.Node a = pair.a;
        HaPair.Node b = pair.b;
        pair.startWithWitness(FILE_STORE);
        awaitLog(a, 0, HaPair.inSync(a), "setting up the pair");
        long setUp = System.nanoTime();

        Path journal = dir.resolve("journal");
        writer = startWriter(journal);
        awaitAcknowledgements(journal, 1, "the first write");

        HaPair.Node primary = a;
        HaPair.Node secondary = b;
        List<Kill> kills = new ArrayList<>();
        for (int i = 1; i <= KILLS; i++) {
            boolean killPrimary = random.nextBoolean();
            int runMs = MIN_RUN_MS + random.nextInt(MAX_RUN_MS - MIN_RUN_MS + 1);
            int downMs = MIN_DOWN_MS + random.nextInt(MAX_DOWN_MS - MIN_DOWN_MS + 1);
            HaPair.Node victim = killPrimary ? primary : secondary;
            HaPair.Node survivor = killPrimary ? secondary : primary;
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
            Matcher synced = awaitLog(primary, mark, HaPair.inSync(primary), where);
            long inSync = System.nanoTime();
            // the returning node's copy was whole and of a generation the survivor's log counts
            // from: only what it missed comes back, and for an old primary the extents it had writes
            // in flight in (it lists them: docs/ha.md)
            assertThat(Integer.parseInt(synced.group(1))).as("MiB copied to the returning " + (killPrimary
                    ? "old primary" : "secondary") + ", not the whole " + STORE_MIB + " MiB store (" + where + "): "
                    + synced.group() + "\n" + describeAll()).isLessThan(STORE_MIB);
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

    /** {@code crashcheck write} through both nodes (a's path first) over the region, FUA, in the background. */
    private Process startWriter(Path journal) throws IOException {
        return new ProcessBuilder(cli().toString(), "crashcheck", "write", "--url", pair.a.url(), "--url", pair.b.url(),
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

    /** {@link HaPair#awaitLog}, its failure also naming {@code where} and showing the writer's output. */
    private Matcher awaitLog(HaPair.Node n, int from, Pattern pattern, String where) throws InterruptedException {
        try {
            return pair.awaitLog(n, from, pattern, PAIR_WAIT);
        } catch (AssertionError e) {
            throw new AssertionError(where + ": " + e.getMessage() + "\n" + writerOutput(), e);
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

    /** Every process's state and log tail (the nodes', the witness's) and the writer's output. */
    private String describeAll() {
        return pair.describe() + writerOutput();
    }

    private String writerOutput() {
        return "--- writer stdout, last lines ---\n" + tail(dir.resolve("writer.out")) + "\n"
                + "--- writer stderr, last lines ---\n" + tail(dir.resolve("writer.err")) + "\n"
                + "(all logs in integration-tests/target/daemon-logs/HaChaosIT.*)";
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
