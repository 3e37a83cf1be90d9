package org.jtarget.daemon;

import org.jtarget.config.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class JtargetDaemonTest {

    private static final String CONFIG = """
            daemon: { shutdown-timeout: 1 }
            portals:
              - { name: default, listen: 127.0.0.1:3260 }
            backstores:
              - { name: ram0, type: memory, size: 1M }
            """;

    @TempDir
    Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private final TestStop stop = new TestStop();

    /** A runtime that records calls and can fail or hang on demand. */
    static class FakeRuntime implements DaemonRuntime {
        final CountDownLatch started = new CountDownLatch(1);
        volatile Exception startFailure;
        volatile boolean hangOnStop;
        volatile Duration stoppedWith;

        @Override
        public void start() throws Exception {
            if (startFailure != null) {
                throw startFailure;
            }
            started.countDown();
        }

        @Override
        public void stop(Duration timeout) throws InterruptedException {
            stoppedWith = timeout;
            if (hangOnStop) {
                new CountDownLatch(1).await();
            }
        }
    }

    /** Stop requests the test triggers by hand. */
    static final class TestStop implements StopRequests {
        final CountDownLatch requested = new CountDownLatch(1);
        final CountDownLatch stopped = new CountDownLatch(1);

        @Override
        public void await() throws InterruptedException {
            requested.await();
        }

        @Override
        public void stopped() {
            stopped.countDown();
        }
    }

    private Path config(String yaml) throws Exception {
        return Files.writeString(dir.resolve("jtarget.yaml"), yaml);
    }

    private int run(FakeRuntime runtime, String... args) {
        return JtargetDaemon.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), c -> runtime, t -> stop);
    }

    private static int freePort() throws java.io.IOException {
        try (java.net.ServerSocket free = new java.net.ServerSocket(0)) {
            return free.getLocalPort();
        }
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void helpDescribesEveryOptionSignalAndExitStatusAndExitsZero() {
        assertThat(run(new FakeRuntime(), "--help")).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8))
                .startsWith("Usage: jtargetd --config FILE" + System.lineSeparator())
                .contains("The jtarget SCSI target daemon.", "  or:  jtargetd --check --config FILE",
                        "jtargetd --witness --listen HOST:PORT [--state-dir DIR]")
                .contains("--config=FILE", "--check", "--witness", "--listen=HOST:PORT", "--state-dir=DIR", "--version")
                .contains("Signals:", "SIGHUP", "SIGUSR1", "Exit status:", "Files:");
        assertThat(err()).isEmpty();
    }

    @Test
    void versionPrintsOneLineAndExitsZero() {
        assertThat(run(new FakeRuntime(), "--version")).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8).lines()).singleElement().asString().startsWith("jtargetd ");
    }

    @Test
    void unknownArgumentIsOneLineAndExitsTwo() {
        assertThat(run(new FakeRuntime(), "--verbose")).isEqualTo(2);
        assertThat(err().lines()).singleElement().asString()
                .contains("Unknown option: '--verbose'").endsWith("(jtargetd --help shows the usage)");
    }

    @Test
    void missingConfigArgumentExitsTwo() {
        assertThat(run(new FakeRuntime(), "--config")).isEqualTo(2);
        assertThat(run(new FakeRuntime())).isEqualTo(2);
        assertThat(err().lines()).hasSize(2).last().asString().contains("--config FILE is required");
    }

    @Test
    void checkLoadsTheConfigAndProbesTheHostWithoutStartingTheRuntime() throws Exception {
        Path file = config(CONFIG.replace("3260", Integer.toString(freePort())));
        assertThat(JtargetDaemon.run(new String[] {"--check", "--config", file.toString()},
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                c -> {
                    throw new AssertionError("runtime created by --check");
                }, t -> {
                    throw new AssertionError("signals installed by --check");
                })).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8))
                .isEqualTo(file + ": OK, 0 target(s), 0 LUN(s), 1 backstore(s), 1 portal(s)" + System.lineSeparator());
        assertThat(err()).isEmpty();
    }

    @Test
    void checkRefusesAPortInUseNamingThePortal() throws Exception {
        try (java.net.ServerSocket taken = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            Path file = config(CONFIG.replace("3260", Integer.toString(taken.getLocalPort())));
            assertThat(run(new FakeRuntime(), "--check", "--config", file.toString())).isEqualTo(2);
            assertThat(err().lines()).singleElement().asString()
                    .startsWith(file + ": portals[0].listen: 127.0.0.1:" + taken.getLocalPort() + ": cannot listen: ");
        }
    }

    @Test
    void checkRefusesAStoreToBeCreatedInAMissingFolderAndCreatesNothing() throws Exception {
        Path file = config("""
                portals:
                  - { name: default, listen: 127.0.0.1:3260 }
                backstores:
                  - { name: f0, type: file, path: made.img, size: 1M, create: true }
                  - { name: f1, type: file, path: nowhere/made.img, size: 1M, create: true }
                """.replace("3260", Integer.toString(freePort())));
        assertThat(run(new FakeRuntime(), "--check", "--config", file.toString())).isEqualTo(2);
        assertThat(err().lines()).singleElement().asString().isEqualTo(file + ": backstores[1].path: "
                + dir.resolve("nowhere/made.img") + " is to be created, but " + dir.resolve("nowhere")
                + " is not a writable folder");
        assertThat(dir.resolve("made.img")).doesNotExist();
    }

    @Test
    void checkRefusesAFileStoreItCannotOpenForWriting() throws Exception {
        Path store = Files.write(dir.resolve("immutable.img"), new byte[1 << 20]);
        // root may write any file whatever its mode, but not an immutable one (ext4, xfs, btrfs)
        org.junit.jupiter.api.Assumptions.assumeTrue(chattr("+i", store), "chattr +i is not supported here");
        try {
            Path file = config("""
                    portals:
                      - { name: default, listen: 127.0.0.1:3260 }
                    backstores:
                      - { name: f0, type: file, path: immutable.img, size: 1M }
                    """.replace("3260", Integer.toString(freePort())));
            assertThat(run(new FakeRuntime(), "--check", "--config", file.toString())).isEqualTo(2);
            assertThat(err().lines()).singleElement().asString()
                    .isEqualTo(file + ": backstores[0].path: " + store + ": cannot open for reading and writing: "
                            + "Operation not permitted");
        } finally {
            chattr("-i", store);
        }
    }

    private static boolean chattr(String flag, Path file) throws Exception {
        try {
            Process p = new ProcessBuilder("chattr", flag, file.toString()).redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor() == 0;
        } catch (java.io.IOException e) {
            return false; // no chattr
        }
    }

    @Test
    void badConfigIsOneLineOnStderrAndNothingStarts() throws Exception {
        Path file = config(CONFIG + "targetz: []\n");
        FakeRuntime runtime = new FakeRuntime();
        JtargetDaemon.run(new String[] {"--config", file.toString()}, System.out,
                new PrintStream(err, true, StandardCharsets.UTF_8), c -> {
                    throw new AssertionError("runtime created for a bad config");
                }, t -> stop);
        assertThat(err()).isEqualTo(file + ": targetz: unknown key (expected one of: daemon, portals, backstores, targets, rdma, ha, management)"
                + System.lineSeparator());
        assertThat(runtime.stoppedWith).isNull();
    }

    @Test
    void badConfigExitsTwo() throws Exception {
        assertThat(run(new FakeRuntime(), "--config", dir.resolve("absent.yaml").toString())).isEqualTo(2);
        assertThat(err().lines()).containsExactly(dir.resolve("absent.yaml") + ": no such file");
    }

    @Test
    void aManagementSocketThatCannotBeBoundIsOneLineExitTwoAndStopsTheRuntime() throws Exception {
        Path file = config(CONFIG + "management: { socket: " + dir.resolve("no-such-dir/api.sock") + " }\n");
        FakeRuntime runtime = new FakeRuntime();
        assertThat(run(runtime, "--config", file.toString())).isEqualTo(2);
        assertThat(err().lines()).singleElement().asString()
                .startsWith(file + ": management.socket: cannot listen on " + dir.resolve("no-such-dir/api.sock"));
        assertThat(runtime.stoppedWith).isEqualTo(Duration.ofSeconds(1));
        assertThat(stop.stopped.getCount()).isZero();
    }

    @Test
    void configProblemAtStartIsOneLineExitTwoAndStopsWhatWasOpened() throws Exception {
        Path file = config(CONFIG);
        FakeRuntime runtime = new FakeRuntime();
        runtime.startFailure = new ConfigException(null, "portals[0].listen", "address already in use");
        assertThat(run(runtime, "--config", file.toString())).isEqualTo(2);
        assertThat(err().lines()).containsExactly(file + ": portals[0].listen: address already in use");
        assertThat(runtime.stoppedWith).isEqualTo(Duration.ofSeconds(1));
        assertThat(stop.stopped.getCount()).isZero();
    }

    @Test
    void aFailedStartRemovesTheFilesItCreatedAndNothingElse() throws Exception {
        Path existing = Files.write(dir.resolve("existing.img"), new byte[1 << 20]);
        Path file = config("""
                daemon: { shutdown-timeout: 1, state-dir: state }
                portals:
                  - { name: default, listen: 127.0.0.1:3260 }
                backstores:
                  - { name: made, type: file, path: made.img, size: 1M, create: true, encrypt: new }
                  - { name: kept, type: file, path: existing.img, size: 1M, create: true }
                """);
        Path key = org.jtarget.backstore.crypt.EncryptingBackstores.keyFile(dir.resolve("state"), "made");
        FakeRuntime runtime = new FakeRuntime() {
            @Override
            public void start() throws Exception {
                Files.write(dir.resolve("made.img"), new byte[1 << 20]); // as the store opener would
                Files.createDirectories(key.getParent());
                Files.write(key, new byte[64]);
                throw new ConfigException(null, "portals[0].listen", "127.0.0.1:3260: cannot listen: in use");
            }
        };
        assertThat(run(runtime, "--config", file.toString())).isEqualTo(2);
        assertThat(dir.resolve("made.img")).doesNotExist();
        assertThat(key).as("a key left behind would make 'encrypt: new' refuse the next start").doesNotExist();
        assertThat(existing).as("existed before the start").hasSize(1 << 20);
    }

    @Test
    void otherStartFailureExitsOneAndStops() throws Exception {
        FakeRuntime runtime = new FakeRuntime();
        runtime.startFailure = new IllegalStateException("boom");
        assertThat(run(runtime, "--config", config(CONFIG).toString())).isEqualTo(1);
        assertThat(runtime.stoppedWith).isNotNull();
    }

    @Test
    void theWitnessModeAnswersLeasesUntilStopped() throws Exception {
        int port;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            port = s.getLocalPort();
        }
        ExecutorService exec = Executors.newSingleThreadExecutor();
        try {
            Future<Integer> status = exec.submit(() -> run(new FakeRuntime(), "--witness", "--listen",
                    "127.0.0.1:" + port, "--state-dir", dir.toString()));
            org.jtarget.ha.witness.WitnessAnswer answer = null;
            for (int i = 0; i < 100 && !(answer instanceof org.jtarget.ha.witness.WitnessAnswer.Granted); i++) {
                Thread.sleep(50);
                try (org.jtarget.ha.witness.WitnessClient c = new org.jtarget.ha.witness.WitnessClient("127.0.0.1", port,
                        Duration.ofSeconds(1))) {
                    answer = c.ask(org.jtarget.ha.witness.WitnessRequest.decode("LEASE a+b a 0 - 1000"));
                }
            }
            assertThat(answer).isInstanceOf(org.jtarget.ha.witness.WitnessAnswer.Granted.class);
            assertThat(dir.resolve("witness.state")).content().contains("pair a+b 0 - 1000 a");
            stop.requested.countDown();
            assertThat(status.get(30, TimeUnit.SECONDS)).isZero();
        } finally {
            exec.shutdownNow();
        }
    }

    @Test
    void theWitnessModeNeedsAListenAddress() {
        assertThat(run(new FakeRuntime(), "--witness")).isEqualTo(2);
        assertThat(run(new FakeRuntime(), "--witness", "--listen", "nowhere")).isEqualTo(2);
        assertThat(run(new FakeRuntime(), "--witness", "--listen", "127.0.0.1:1", "--state-dir")).isEqualTo(2);
        assertThat(err().lines()).hasSize(3).allSatisfy(line -> assertThat(line).startsWith("jtargetd: "));
        assertThat(err()).contains("--witness needs --listen HOST:PORT", "--listen nowhere: not HOST:PORT");
    }

    @Test
    void runsUntilAStopIsRequestedThenStopsAndExitsZero() throws Exception {
        Path file = config(CONFIG);
        FakeRuntime runtime = new FakeRuntime();
        ExecutorService exec = Executors.newSingleThreadExecutor();
        try {
            Future<Integer> status = exec.submit(() -> run(runtime, "--config=" + file));
            assertThat(runtime.started.await(30, TimeUnit.SECONDS)).isTrue();
            assertThat(status.isDone()).isFalse();
            assertThat(runtime.stoppedWith).isNull();
            stop.requested.countDown();
            assertThat(status.get(30, TimeUnit.SECONDS)).isZero();
            assertThat(runtime.stoppedWith).isEqualTo(Duration.ofSeconds(1));
            assertThat(stop.stopped.getCount()).isZero();
            assertThat(err()).isEmpty();
        } finally {
            exec.shutdownNow();
        }
    }

    @Test
    void aStopThatHangsIsAbandonedWithExitOne() {
        FakeRuntime runtime = new FakeRuntime();
        runtime.hangOnStop = true;
        assertThat(JtargetDaemon.stopBounded(runtime, Duration.ofMillis(10))).isEqualTo(1);
    }
}
