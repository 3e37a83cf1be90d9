package org.jtarget.initiator.crashcheck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.ConnectException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jtarget.initiator.cli.CliFailure;
import org.jtarget.initiator.cli.ScsiSession;
import org.jtarget.initiator.raw.ScsiResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code crashcheck write} and {@code verify} over several paths to one LU ({@link PathSet}):
 * an in-memory LU reached through scripted paths that lose their connection, refuse connections,
 * answer ALUA NOT READY (standby, transition) or UNIT ATTENTION, as the nodes of an HA pair do
 * across a failover. Every run is then checked as the crash tests check a target: the journal is
 * well formed (acknowledgements in order, the write a path failed sent again with the same
 * sequence number) and {@code verify} finds every acknowledged block.
 */
class CrashcheckPathsTest {

    private static final int BLOCK = 512;
    private static final long LUN_BLOCKS = 4096;
    private static final int REGION = 64;
    private static final String URL_1 = "iscsi://127.0.0.1:3261/iqn.2026-11.org.jtarget:ha/0";
    private static final String URL_2 = "iscsi://127.0.0.1:3262/iqn.2026-11.org.jtarget:ha/0";

    @TempDir
    Path dir;

    private final Lu lu = new Lu(LUN_BLOCKS);
    /** What happened, in order: "open 1", "write 2 seq 5", "pause", ... */
    private final List<String> events = new ArrayList<>();
    private final ByteArrayOutputStream output = new ByteArrayOutputStream();
    private final PrintStream out = new PrintStream(output, true, StandardCharsets.UTF_8);

    // ------------------------------------------------------------------ the scripted LU and its paths

    /** What a path answers now. */
    enum State {
        /** Serves (active/optimized). */
        ACTIVE,
        /** Connections refused (its node is down). */
        DOWN,
        /** Logs in, but the LU answers NOT READY 04/0Bh (standby). */
        STANDBY,
        /** Logs in, but the LU answers NOT READY 04/0Ah (transition). */
        TRANSITION
    }

    /** The LU's blocks, shared by every path; a path may be given another capacity (another LU). */
    static final class Lu {
        final Map<Long, byte[]> blocks = new HashMap<>();
        final long blockCount;

        Lu(long blockCount) {
            this.blockCount = blockCount;
        }
    }

    /** What a path does before its Nth write (counting from 1) is applied. */
    @FunctionalInterface
    interface WriteScript {
        Answer before(int nth) throws IOException;
    }

    enum Answer {
        APPLY, UNIT_ATTENTION, DROP_BEFORE_APPLYING, DROP_AFTER_APPLYING
    }

    /** One path: its state per open (a script of states, the last one repeated) and per write. */
    class FakePath {
        final int number;
        final List<State> opens;
        WriteScript writes = n -> Answer.APPLY;
        long blockCount = LUN_BLOCKS;
        State state;
        int opened;
        int written;

        FakePath(int number, State... opens) {
            this.number = number;
            this.opens = List.of(opens);
        }

        /** From now on this path's node is down: connections refused. */
        void down() {
            state = State.DOWN;
        }

        /** Its node dies at its {@code nth} write, which lands or not as {@code how} says; then {@link #down}. */
        void diesAtWrite(int nth, Answer how) {
            writes = n -> {
                if (n == nth) {
                    down();
                    return how;
                }
                return Answer.APPLY;
            };
        }

        ScsiSession open() throws IOException {
            State s = state == State.DOWN ? State.DOWN : opens.get(Math.min(opened, opens.size() - 1));
            opened++;
            events.add("open " + number + (s == State.ACTIVE ? "" : " " + s.name().toLowerCase()));
            if (s == State.DOWN) {
                throw new ConnectException("Connection refused");
            }
            state = s;
            return new Session(this);
        }
    }

    /** A session on a path: answers the few commands crashcheck sends. */
    final class Session implements ScsiSession {
        private final FakePath path;
        private boolean gone;

        Session(FakePath path) {
            this.path = path;
        }

        @Override
        public ScsiResult execute(byte[] cdb, int readLength) throws IOException {
            check();
            if (path.state != State.ACTIVE) {
                return notReady(path.state == State.STANDBY ? 0x0B : 0x0A);
            }
            int op = cdb[0] & 0xff;
            switch (op) {
                case 0x9e -> {
                    byte[] d = new byte[32];
                    BlockImage.putLong(d, 0, path.blockCount - 1);
                    BlockImage.putInt(d, 8, BLOCK);
                    return good(d);
                }
                case 0x88 -> {
                    long lba = BlockImage.getLong(cdb, 2);
                    int n = BlockImage.getInt(cdb, 10);
                    byte[] d = new byte[n * BLOCK];
                    for (int i = 0; i < n; i++) {
                        byte[] b = lu.blocks.get(lba + i);
                        if (b != null) {
                            System.arraycopy(b, 0, d, i * BLOCK, BLOCK);
                        }
                    }
                    return good(d);
                }
                default -> {
                    return good(new byte[0]); // SYNCHRONIZE CACHE
                }
            }
        }

        @Override
        public ScsiResult execute(byte[] cdb, byte[] data) throws IOException {
            check();
            if (path.state != State.ACTIVE) {
                return notReady(path.state == State.STANDBY ? 0x0B : 0x0A);
            }
            assertThat(cdb[0] & 0xff).as("WRITE (10)").isEqualTo(CrashcheckCdbs.WRITE_10);
            long lba = BlockImage.getInt(cdb, 2) & 0xffffffffL;
            BlockImage.Header h = BlockImage.header(data, 0, BLOCK);
            int nth = ++path.written;
            Answer a = path.writes.before(nth);
            events.add("write " + path.number + " seq " + h.sequence() + (a == Answer.APPLY ? ""
                    : " " + a.name().toLowerCase()));
            switch (a) {
                case UNIT_ATTENTION -> {
                    return checkCondition(0x6, 0x2a, 0x06); // ASYMMETRIC ACCESS STATE CHANGED
                }
                case DROP_BEFORE_APPLYING -> {
                    gone = true;
                    throw new IOException("connection reset");
                }
                case DROP_AFTER_APPLYING -> {
                    lu.blocks.put(lba, data.clone());
                    gone = true;
                    throw new IOException("connection reset");
                }
                default -> {
                    lu.blocks.put(lba, data.clone());
                    return good(new byte[0]);
                }
            }
        }

        private void check() throws IOException {
            if (gone || path.state == State.DOWN) {
                gone = true;
                throw new IOException("connection reset");
            }
        }

        @Override
        public void abort() {
            gone = true;
        }

        @Override
        public void close() {
            gone = true;
        }
    }

    private static ScsiResult good(byte[] data) {
        return new ScsiResult(ScsiResult.GOOD, 0, data, new byte[0], 0);
    }

    private static ScsiResult notReady(int ascq) {
        return checkCondition(0x2, 0x04, ascq);
    }

    private static ScsiResult checkCondition(int key, int asc, int ascq) {
        byte[] sense = new byte[18];
        sense[0] = 0x70;
        sense[2] = (byte) key;
        sense[7] = 10;
        sense[12] = (byte) asc;
        sense[13] = (byte) ascq;
        return new ScsiResult(ScsiResult.CHECK_CONDITION, 0, new byte[0], sense, 0);
    }

    // ------------------------------------------------------------------ running crashcheck

    private CrashcheckArguments args(String action, String... urls) throws CliFailure {
        List<String> a = new ArrayList<>(List.of("crashcheck", action));
        for (String u : urls) {
            a.add("--url");
            a.add(u);
        }
        a.addAll(List.of("--journal", dir.resolve("journal").toString()));
        if (action.equals("write")) {
            a.addAll(List.of("--seconds", "1", "--lba", "0", "--blocks", Integer.toString(REGION)));
        }
        return CrashcheckArguments.parse(a.toArray(String[]::new));
    }

    private PathSet paths(CrashcheckArguments a, Duration pause, FakePath... fakes) {
        return new PathSet(a.paths(), p -> fakes[p.number() - 1].open(), out, pause, d -> {
            events.add("pause");
            Thread.sleep(d);
        });
    }

    private void write(Duration pause, FakePath... fakes) throws Exception {
        CrashcheckArguments a = args("write", urls(fakes.length));
        CrashWriter.run(a, out, paths(a, pause, fakes));
    }

    private static String[] urls(int n) {
        return n == 1 ? new String[] {URL_1} : new String[] {URL_1, URL_2};
    }

    /** The journal as verify judges it: well formed, and every journaled block holds its newest version. */
    private Expectations assertNothingLost() throws Exception {
        Expectations e = Expectations.of(Journal.read(dir.resolve("journal")).records());
        for (long lba : e.lbas()) {
            byte[] b = lu.blocks.getOrDefault(lba, new byte[BLOCK]);
            assertThat(e.check(lba, b, 0).lost()).as("LBA " + lba + " holds its newest acknowledged version\n"
                    + output()).isFalse();
        }
        return e;
    }

    private String output() {
        return output.toString(StandardCharsets.UTF_8);
    }

    /** The events from the first one starting with {@code first}. */
    private List<String> eventsFrom(String first) {
        for (int i = 0; i < events.size(); i++) {
            if (events.get(i).startsWith(first)) {
                return events.subList(i, events.size());
            }
        }
        throw new AssertionError("no event " + first + " in " + events);
    }

    // ------------------------------------------------------------------ write

    @Test
    void aLostConnectionMovesTheRunToTheNextPathWhichGetsTheUnacknowledgedWriteAgain() throws Exception {
        FakePath p1 = new FakePath(1, State.ACTIVE);
        FakePath p2 = new FakePath(2, State.ACTIVE);
        p1.diesAtWrite(20, Answer.DROP_AFTER_APPLYING); // the write landed, its GOOD never came
        write(PathSet.ROUND_PAUSE, p1, p2);

        assertThat(eventsFrom("write 1 seq 19").subList(0, 4)).as(output())
                .containsExactly("write 1 seq 19 drop_after_applying", "open 2", "write 2 seq 19", "write 2 seq 20");
        Expectations e = assertNothingLost();
        assertThat(e.acknowledged()).as("the run went on through path 2").isGreaterThan(REGION);
        assertThat(e.runCount()).isOne();
        assertThat(output()).contains("path 1 (" + URL_1 + "): WRITE (10) at LBA 19: connection lost")
                .contains("next: path 2 (" + URL_2 + ")").contains("path 2 (" + URL_2 + ") works (after 1 path failure")
                .containsPattern("acknowledged \\d+ writes \\(run 0x[0-9a-f]+, mode fua, LBA 0..63\\), 1 path switches");
        assertThat(events).as("no pause: path 2 answered at once").doesNotContain("pause");
    }

    /**
     * A failover as an HA pair does it: the primary dies under a write; the secondary answers
     * standby, then transition, then serves. Every full round of failed paths is followed by a
     * pause, and the write that died goes through the promoted path.
     */
    @Test
    void standbyAndTransitionAnswersAreLeftUntilThePromotedPathTakesTheWrite() throws Exception {
        FakePath p1 = new FakePath(1, State.ACTIVE);
        FakePath p2 = new FakePath(2, State.STANDBY, State.STANDBY, State.STANDBY, State.TRANSITION, State.ACTIVE);
        p1.diesAtWrite(30, Answer.DROP_BEFORE_APPLYING);
        write(Duration.ofMillis(1), p1, p2);

        assertThat(eventsFrom("write 1 seq 29").subList(0, 15)).as(output()).containsExactly(
                "write 1 seq 29 drop_before_applying",
                "open 2 standby", "pause",
                "open 1 down", "open 2 standby", "pause",
                "open 1 down", "open 2 standby", "pause",
                "open 1 down", "open 2 transition", "pause",
                "open 1 down", "open 2", "write 2 seq 29");
        assertThat(output()).contains("READ CAPACITY (16): CHECK CONDITION: NOT READY")
                .contains("works (after 9 path failures in a row)");
        assertNothingLost();
    }

    @Test
    void whenNoPathAnswersTheRunGivesUpOnlyWhenItsSecondsEnd() throws Exception {
        FakePath p1 = new FakePath(1, State.ACTIVE);
        FakePath p2 = new FakePath(2, State.DOWN);
        p1.diesAtWrite(11, Answer.DROP_BEFORE_APPLYING);
        long start = System.nanoTime();
        assertThatThrownBy(() -> write(Duration.ofMillis(20), p1, p2)).isInstanceOfSatisfying(CliFailure.class, f -> {
            assertThat(f.exitCode()).isEqualTo(CliFailure.IO_ERROR);
            assertThat(f.getMessage()).contains("no path took write seq 10 to LBA 10 before --seconds ended")
                    .contains("10 acknowledged writes").contains("is intact");
        });
        assertThat(System.nanoTime() - start).as("it kept trying until --seconds 1 ended")
                .isGreaterThan(900_000_000L);
        assertThat(events.stream().filter("pause"::equals).count()).as("rounds, each followed by a pause")
                .isGreaterThan(10);
        assertThat(assertNothingLost().acknowledged()).isEqualTo(10);
        assertThat(output()).contains("acknowledged 10 writes");
    }

    @Test
    void aUnitAttentionIsRetriedOnTheSamePath() throws Exception {
        FakePath p1 = new FakePath(1, State.ACTIVE);
        FakePath p2 = new FakePath(2, State.ACTIVE);
        p1.writes = n -> n == 6 || n == 7 ? Answer.UNIT_ATTENTION : Answer.APPLY;
        write(PathSet.ROUND_PAUSE, p1, p2);

        assertThat(eventsFrom("write 1 seq 5").subList(0, 4)).containsExactly("write 1 seq 5 unit_attention",
                "write 1 seq 5 unit_attention", "write 1 seq 5", "write 1 seq 6");
        assertThat(p2.opened).as("path 2 never needed").isZero();
        assertNothingLost();
    }

    @Test
    void withOnePathALostConnectionStillEndsTheRun() throws Exception {
        FakePath p1 = new FakePath(1, State.ACTIVE);
        p1.writes = n -> n == 11 ? Answer.DROP_BEFORE_APPLYING : Answer.APPLY;
        assertThatThrownBy(() -> write(PathSet.ROUND_PAUSE, p1)).isInstanceOfSatisfying(CliFailure.class, f -> {
            assertThat(f.exitCode()).isEqualTo(CliFailure.IO_ERROR);
            assertThat(f.getMessage()).contains("connection lost after 10 acknowledged writes (write seq 10 to LBA 10"
                    + " was in flight)").contains("is intact");
        });
        assertThat(p1.opened).as("no second try").isOne();
        assertThat(output()).contains("acknowledged 10 writes").doesNotContain("path switches");
        assertNothingLost();
    }

    @Test
    void withOnePathAStandbyAnswerIsACheckCondition() throws Exception {
        FakePath p1 = new FakePath(1, State.STANDBY);
        assertThatThrownBy(() -> write(PathSet.ROUND_PAUSE, p1)).isInstanceOfSatisfying(CliFailure.class, f -> {
            assertThat(f.exitCode()).isEqualTo(CliFailure.CHECK_CONDITION);
            assertThat(f.getMessage()).contains("READ CAPACITY (16): CHECK CONDITION: NOT READY");
        });
        assertThat(p1.opened).isOne();
    }

    @Test
    void pathsToLusOfDifferentSizesAreRefused() throws Exception {
        FakePath p1 = new FakePath(1, State.ACTIVE);
        FakePath p2 = new FakePath(2, State.ACTIVE);
        p2.blockCount = LUN_BLOCKS * 2;
        p1.writes = n -> n == 4 ? Answer.DROP_BEFORE_APPLYING : Answer.APPLY;
        assertThatThrownBy(() -> write(PathSet.ROUND_PAUSE, p1, p2)).isInstanceOfSatisfying(CliFailure.class, f -> {
            assertThat(f.exitCode()).isEqualTo(CliFailure.IO_ERROR);
            assertThat(f.getMessage()).contains("path 2").contains("not paths to one LU");
        });
    }

    // ------------------------------------------------------------------ verify

    @Test
    void verifyReadsThroughTheFirstPathThatAnswers() throws Exception {
        write(PathSet.ROUND_PAUSE, new FakePath(1, State.ACTIVE));
        output.reset();

        CrashcheckArguments a = args("verify", URL_1, URL_2);
        CrashVerifier.run(a, out, paths(a, PathSet.ROUND_PAUSE, new FakePath(1, State.STANDBY),
                new FakePath(2, State.ACTIVE)));
        assertThat(output()).contains("path 1 (" + URL_1 + "): READ CAPACITY (16): CHECK CONDITION: NOT READY")
                .contains("read through path 2 (" + URL_2 + ")").containsPattern("(?m)^verified " + REGION
                        + " blocks, 0 lost$");
    }

    @Test
    void verifyFailsWhenNoPathAnswers() throws Exception {
        write(PathSet.ROUND_PAUSE, new FakePath(1, State.ACTIVE));
        CrashcheckArguments a = args("verify", URL_1, URL_2);
        assertThatThrownBy(() -> CrashVerifier.run(a, out, paths(a, PathSet.ROUND_PAUSE,
                new FakePath(1, State.STANDBY), new FakePath(2, State.DOWN)))).isInstanceOfSatisfying(
                CliFailure.class, f -> {
                    assertThat(f.exitCode()).isEqualTo(CliFailure.IO_ERROR);
                    assertThat(f.getMessage()).startsWith("no path answered: path 1").contains("; path 2 (" + URL_2
                            + "): cannot connect and log in: java.net.ConnectException");
                });
        assertThat(events).as("each path tried once, no pause").containsSubsequence("open 1 standby", "open 2 down")
                .doesNotContain("pause");
    }

    /** A path that dies halfway through the reading: verify starts over on the next one, and counts each block once. */
    @Test
    void verifyStartsOverOnTheNextPathWhenOneDiesMidway() throws Exception {
        for (String lba : new String[] {"0", "100"}) { // two runs on two regions: two READs
            CrashcheckArguments w = CrashcheckArguments.parse(new String[] {"crashcheck", "write", "--url", URL_1,
                    "--journal", dir.resolve("journal").toString(), "--seconds", "1", "--lba", lba, "--blocks", "8"});
            CrashWriter.run(w, out, paths(w, PathSet.ROUND_PAUSE, new FakePath(1, State.ACTIVE)));
        }
        long distinct = Expectations.of(Journal.read(dir.resolve("journal")).records()).lbas().length;
        assertThat(distinct).isEqualTo(16);
        output.reset();

        FakePath dying = new FakePath(1, State.ACTIVE) {
            @Override
            ScsiSession open() throws IOException {
                ScsiSession s = super.open();
                return new ScsiSession() {
                    int reads;

                    @Override
                    public ScsiResult execute(byte[] cdb, int readLength) throws IOException {
                        if ((cdb[0] & 0xff) == 0x88 && ++reads == 2) {
                            throw new IOException("connection reset");
                        }
                        return s.execute(cdb, readLength);
                    }

                    @Override
                    public ScsiResult execute(byte[] cdb, byte[] writeData) throws IOException {
                        return s.execute(cdb, writeData);
                    }

                    @Override
                    public void abort() throws IOException {
                        s.abort();
                    }

                    @Override
                    public void close() throws IOException {
                        s.close();
                    }
                };
            }
        };
        CrashcheckArguments a = args("verify", URL_1, URL_2);
        CrashVerifier.run(a, out, paths(a, PathSet.ROUND_PAUSE, dying, new FakePath(2, State.ACTIVE)));
        assertThat(output()).contains("connection lost").contains("read through path 2")
                .containsPattern("(?m)^verified " + distinct + " blocks, 0 lost$");
    }

    // ------------------------------------------------------------------ arguments

    @Test
    void everyUrlIsAPathInCommandLineOrder() throws Exception {
        CrashcheckArguments a = CrashcheckArguments.parse(new String[] {"crashcheck", "write", "--url", URL_1,
                "--journal", "j", "--url=" + URL_2});
        assertThat(a.multipath()).isTrue();
        assertThat(a.paths()).extracting(LunPath::number).containsExactly(1, 2);
        assertThat(a.paths()).extracting(p -> p.url().port()).containsExactly(3261, 3262);
        assertThat(a.paths().get(1).describe()).isEqualTo("path 2 (" + URL_2 + ")");
        assertThat(CrashcheckArguments.parse(new String[] {"crashcheck", "verify", "--url", URL_1, "--journal", "j"})
                .multipath()).isFalse();
    }

    @Test
    void everyPathIsChecked() {
        assertThatThrownBy(() -> CrashcheckArguments.parse(new String[] {"crashcheck", "write", "--url", URL_1,
                "--url", "iser://127.0.0.1/iqn.x:y/0", "--digests", "--journal", "j"}))
                .isInstanceOfSatisfying(CliFailure.class, f -> assertThat(f.getMessage()).contains("iser://"));
        assertThatThrownBy(() -> CrashcheckArguments.parse(new String[] {"crashcheck", "write", "--url", URL_1,
                "--url", "http://x", "--journal", "j"})).isInstanceOf(CliFailure.class);
        assertThatThrownBy(() -> CrashcheckArguments.parse(new String[] {"crashcheck", "write", "--url", URL_1,
                "--journal", "j", "--journal", "k"})).hasMessageContaining("--journal given twice");
    }

    @Test
    void aChapSecretStaysOutOfPathNames() throws Exception {
        CrashcheckArguments a = CrashcheckArguments.parse(new String[] {"crashcheck", "verify", "--url",
                "iscsi://user%secret@127.0.0.1/iqn.x:y/0", "--journal", "j"});
        assertThat(a.paths().get(0).describe()).doesNotContain("secret").contains("user%***@");
    }
}
