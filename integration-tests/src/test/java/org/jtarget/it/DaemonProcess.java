package org.jtarget.it;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * The real daemon ({@code target-daemon/bin/jtargetd --config FILE}) as a child process: stdout
 * (the log) and stderr captured to files beside the config, started and awaited until its portal
 * accepts TCP connections, stopped with SIGTERM. Every failure message carries the log tail.
 *
 * <p>The repository root comes from system property {@code jtarget.home} (set by failsafe), or is
 * found by walking up from the working directory.
 */
public final class DaemonProcess implements AutoCloseable {

    public static final Duration START_TIMEOUT = Duration.ofSeconds(30);
    public static final Duration STOP_TIMEOUT = Duration.ofSeconds(20);
    public static final String HOST = "127.0.0.1";
    private static final int TAIL_LINES = 60;
    /** What the daemon logs once every portal listens. */
    private static final String READY_LINE = "jtargetd ready";
    /**
     * bin/jtargetd turns Netty's leak detector off; test daemons run it at {@code advanced} (1 buffer
     * in 128 tracked, with its access records): at {@code paranoid} every buffer access records a
     * stack trace and libiscsi's suite takes over ten times as long. {@code LeakIT} runs a daemon at
     * {@code paranoid} under real clients. {@code -Djtarget.it.leakDetection=LEVEL} overrides.
     */
    public static final String LEAK_DETECTION = System.getProperty("jtarget.it.leakDetection", "advanced");

    /** What the witness ({@code jtargetd --witness}) logs once it listens. */
    private static final String WITNESS_READY_LINE = "jtargetd witness started";

    private final Process process;
    private final Path config;
    private final Path stdout;
    private final Path stderr;
    private final int port;
    /** The line that says this process is ready. */
    private final String readyLine;
    /** Ready lines in the (appended) log before this run: a restart must log one more. */
    private final long readyLinesBefore;
    private Integer exitCode;

    private DaemonProcess(Process process, Path config, Path stdout, Path stderr, int port, String readyLine,
                          long readyLinesBefore) {
        this.process = process;
        this.config = config;
        this.stdout = stdout;
        this.stderr = stderr;
        this.port = port;
        this.readyLine = readyLine;
        this.readyLinesBefore = readyLinesBefore;
    }

    /**
     * Starts the daemon on {@code config} and waits until {@code port} on 127.0.0.1 accepts a TCP
     * connection and the log says it is ready, i.e. every portal listens (at most {@link
     * #START_TIMEOUT}); fails with the log tail if it exits or times out.
     * Output goes to {@code daemon.log} / {@code daemon.err} in the config's folder (appended, so a
     * restart keeps the earlier run's log).
     */
    public static DaemonProcess start(Path config, int port) {
        return start(config, port, LEAK_DETECTION);
    }

    /** {@link #start(Path, int)} with Netty's leak detector at {@code leakDetection} (e.g. "paranoid"). */
    public static DaemonProcess start(Path config, int port, String leakDetection) {
        DaemonProcess d = launch(config, port, leakDetection);
        d.awaitListening();
        return d;
    }

    /** Starts the daemon without waiting for anything (bad-config tests wait for the exit instead). */
    public static DaemonProcess launch(Path config, int port) {
        return launch(config, port, LEAK_DETECTION);
    }

    /**
     * {@link #start(Path, int)} under {@code nohup}: the daemon starts with SIGHUP ignored, as under
     * some supervisors and CI runners, and must still take SIGHUP as its reload request.
     */
    public static DaemonProcess startIgnoringHangups(Path config, int port) {
        DaemonProcess d = launch(config, port, LEAK_DETECTION, "nohup");
        d.awaitListening();
        return d;
    }

    /** {@link #start(Path, int)} with {@code env} (NAME=VALUE) added to the daemon's environment. */
    public static DaemonProcess startWithEnvironment(Path config, int port, String... env) {
        String[] prefix = new String[env.length + 1];
        prefix[0] = "env";
        System.arraycopy(env, 0, prefix, 1, env.length);
        DaemonProcess d = launch(config, port, LEAK_DETECTION, prefix);
        d.awaitListening();
        return d;
    }

    /**
     * {@link #start(Path, int)} of another launcher than the checkout's, e.g. an installed package's
     * {@code usr/bin/jtargetd}, with {@code environment} as its whole environment (nothing inherited
     * from the test JVM: no JAVA_HOME, the PATH given).
     */
    public static DaemonProcess startLauncher(Path launcher, Path config, int port, Map<String, String> environment) {
        DaemonProcess d = launch(launcher, config.toAbsolutePath().getParent(), config, port, LEAK_DETECTION,
                READY_LINE, List.of(), List.of("--config", config.toAbsolutePath().toString()), environment);
        d.awaitListening();
        return d;
    }

    /** {@link #launch(Path, int)} with Netty's leak detector at {@code leakDetection} (e.g. "paranoid"). */
    public static DaemonProcess launch(Path config, int port, String leakDetection) {
        return launch(config, port, leakDetection, new String[0]);
    }

    /**
     * The witness of HA pairs ({@code jtargetd --witness --listen 127.0.0.1:PORT --state-dir DIR},
     * docs/ha.md), started in {@code dir} (its state, {@code daemon.log} and {@code daemon.err})
     * and awaited until it accepts connections on {@code port} and logs that it started.
     */
    public static DaemonProcess startWitness(Path dir, int port) {
        Path d = dir.toAbsolutePath();
        try {
            Files.createDirectories(d);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        DaemonProcess w = launch(jtargetd(), d, d.resolve("witness.state"), port, LEAK_DETECTION, WITNESS_READY_LINE,
                List.of(), List.of("--witness", "--listen", HOST + ":" + port, "--state-dir", d.toString()), null);
        w.awaitListening();
        return w;
    }

    private static DaemonProcess launch(Path config, int port, String leakDetection, String... prefix) {
        return launch(jtargetd(), config.toAbsolutePath().getParent(), config, port, leakDetection, READY_LINE,
                List.of(prefix), List.of("--config", config.toAbsolutePath().toString()), null);
    }

    /**
     * Runs {@code prefix} {@code script} {@code args} in {@code dir}, its output appended to the logs there.
     *
     * @param config      what {@link #describe()} shows as the configuration
     * @param environment the process's whole environment, or null to inherit the test JVM's
     */
    private static DaemonProcess launch(Path script, Path dir, Path config, int port, String leakDetection,
                                        String readyLine, List<String> prefix, List<String> args,
                                        Map<String, String> environment) {
        Path out = dir.resolve("daemon.log");
        Path err = dir.resolve("daemon.err");
        List<String> command = new ArrayList<>(prefix);
        command.add(script.toString());
        command.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(command)
                .directory(dir.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(ProcessBuilder.Redirect.appendTo(out.toFile()))
                .redirectError(ProcessBuilder.Redirect.appendTo(err.toFile()));
        if (environment != null) {
            pb.environment().clear();
            pb.environment().putAll(environment);
        }
        // DESIGN 4.1: tests track buffers; a leak report in the log fails stopCleanly()
        pb.environment().merge("JTARGET_JAVA_OPTS", "-Dio.netty.leakDetection.level=" + leakDetection,
                (mine, theirs) -> theirs + " " + mine);
        try {
            Files.deleteIfExists(err);
            long readyBefore = readyLines(readLenient(out), readyLine);
            return new DaemonProcess(pb.start(), config, out, err, port, readyLine, readyBefore);
        } catch (IOException e) {
            throw new AssertionError("could not start " + script + ": " + e, e);
        }
    }

    /** The repository root: {@code -Djtarget.home}, else the first ancestor of the working dir with target-daemon/. */
    public static Path home() {
        String prop = System.getProperty("jtarget.home");
        if (prop != null && !prop.isBlank()) {
            return Path.of(prop).toAbsolutePath().normalize();
        }
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.isDirectory(p.resolve("target-daemon")) && Files.exists(p.resolve("pom.xml"))) {
                return p;
            }
        }
        throw new AssertionError("cannot find the jtarget checkout: set -Djtarget.home=<repo root>");
    }

    /** {@code target-daemon/bin/jtargetd}, failing clearly when the daemon jar has not been built. */
    public static Path jtargetd() {
        Path home = home();
        Path script = home.resolve("target-daemon/bin/jtargetd");
        if (!Files.isExecutable(script)) {
            throw new AssertionError(script + " is missing or not executable");
        }
        if (!Files.isDirectory(home.resolve("target-daemon/target/lib"))) {
            throw new AssertionError("the daemon is not packaged (" + home.resolve("target-daemon/target/lib")
                    + " missing): run `./dev build` or `./dev test`, which package it before the integration tests");
        }
        return script;
    }

    /** Test daemons listen on ports drawn from here (see {@link #freePort}). */
    private static final int LISTEN_PORTS_FROM = 20000;
    private static final int LISTEN_PORTS_TO = 32768;
    private static final java.util.Random RANDOM = new java.util.Random();

    /** A TCP port on 127.0.0.1 that was free a moment ago, below the kernel's ephemeral range. */
    public static int freePort() {
        while (true) {
            // Below Linux's ephemeral range (32768-60999 by default): a port the kernel hands out
            // for outgoing connections cannot take a test daemon's port while it restarts (seen:
            // an HA node killed and restarted could not bind its replication port again).
            int port = LISTEN_PORTS_FROM + RANDOM.nextInt(LISTEN_PORTS_TO - LISTEN_PORTS_FROM);
            synchronized (RECENT_PORTS) {
                if (RECENT_PORTS.contains(port)) {
                    continue;
                }
            }
            try (ServerSocket s = new ServerSocket()) {
                s.bind(new java.net.InetSocketAddress(InetAddress.getByName(HOST), port), 1);
            } catch (IOException inUse) {
                continue;
            }
            synchronized (RECENT_PORTS) {
                if (RECENT_PORTS.add(port)) {
                    if (RECENT_PORTS.size() > RECENT_PORTS_KEPT) {
                        RECENT_PORTS.remove(RECENT_PORTS.iterator().next());
                    }
                    return port;
                }
            }
        }
    }

    private static final int RECENT_PORTS_KEPT = 256;
    /** The ports {@link #freePort} gave out lately, oldest first. */
    private static final LinkedHashSet<Integer> RECENT_PORTS = new LinkedHashSet<>();

    /** Whether something accepts TCP connections on 127.0.0.1:{@code port} right now. */
    public static boolean accepting(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(HOST, port), 500);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static long readyLines(String log, String readyLine) {
        return log.lines().filter(l -> l.contains(readyLine)).count();
    }

    private void awaitListening() {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new AssertionError("jtargetd exited with code " + exitCodeNow() + " before listening on "
                        + HOST + ":" + port + "\n" + describe());
            }
            // the ready line follows the last portal: an iSER portal listens a moment after the TCP one
            if (accepting(port) && readyLines(log(), readyLine) > readyLinesBefore) {
                return;
            }
            sleep(100);
        }
        kill();
        throw new AssertionError("jtargetd did not accept connections on " + HOST + ":" + port + " and log \""
                + readyLine + "\" within " + START_TIMEOUT.toSeconds() + " s (killed)\n" + describe());
    }

    // ------------------------------------------------------------------ facts

    public int port() {
        return port;
    }

    public Path config() {
        return config;
    }

    /** The folder holding the config, the stores' relative paths and the logs. */
    public Path dir() {
        return config.toAbsolutePath().getParent();
    }

    /** {@code iscsi://127.0.0.1:PORT} (discovery URL). */
    public String portalUrl() {
        return "iscsi://" + HOST + ":" + port;
    }

    /** {@code iscsi://127.0.0.1:PORT/IQN/LUN}. */
    public String url(int lun) {
        return portalUrl() + "/" + DaemonConfig.IQN + "/" + lun;
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    public long pid() {
        return process.pid();
    }

    /** Sends signal {@code name} ("USR1", "HUP") to the process with kill(1), failing unless kill succeeds. */
    public void signal(String name) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(pid())).inheritIO().start();
            if (kill.waitFor() != 0) {
                throw new AssertionError("kill -" + name + " " + pid() + " failed\n" + describe());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    /** Everything the daemon wrote to stdout (its log), across restarts on the same folder. */
    public String log() {
        return readLenient(stdout);
    }

    /** Everything the daemon wrote to stderr in this run. */
    public String stderr() {
        return readLenient(stderr);
    }

    /** The last {@code n} lines of the log. */
    public String logTail(int n) {
        List<String> lines = log().lines().toList();
        return String.join("\n", lines.subList(Math.max(0, lines.size() - n), lines.size()));
    }

    /** State, log tail and stderr, for assertion messages. */
    public String describe() {
        return "--- jtargetd pid " + process.pid() + (process.isAlive() ? " (running)" : " (exited " + exitCodeNow()
                + ")") + ", config " + config + " ---\n" + readLenient(config)
                + "--- daemon log, last " + TAIL_LINES + " lines (" + stdout + ") ---\n" + logTail(TAIL_LINES)
                + "\n--- daemon stderr (" + stderr + ") ---\n" + stderr();
    }

    // ------------------------------------------------------------------ stopping

    /**
     * Waits until {@code done} holds (usually a line in this daemon's log), at most {@code timeout};
     * fails naming {@code what}, with this daemon's config and log.
     */
    public void await(String what, java.util.function.BooleanSupplier done, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(what + ": not within " + timeout.toMillis() + " ms\n" + describe());
            }
            Thread.sleep(50);
        }
    }

    /**
     * Waits for the process to exit on its own (bad-config runs) and returns its exit code;
     * fails (after killing it) if it is still running after {@code timeout}.
     */
    public int awaitExit(Duration timeout) {
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                kill();
                process.waitFor(5, TimeUnit.SECONDS);
                throw new AssertionError("jtargetd still running after " + timeout.toSeconds() + " s (killed)\n"
                        + describe());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
        exitCode = process.exitValue();
        return exitCode;
    }

    /**
     * Sends SIGTERM and waits up to {@link #STOP_TIMEOUT}; returns the exit code (fails with the log
     * if the daemon does not exit in time). Idempotent: a stopped daemon returns its earlier code.
     */
    public int stop() {
        if (exitCode != null) {
            return exitCode;
        }
        if (process.isAlive()) {
            process.destroy(); // SIGTERM on Linux; bin/jtargetd execs java, so this is the JVM itself
        }
        return awaitExit(STOP_TIMEOUT);
    }

    /** {@link #stop()} and fail unless the exit code is 0 and Netty reported no leaked buffer. */
    public void stopCleanly() {
        int code = stop();
        if (code != 0) {
            throw new AssertionError("jtargetd exited with code " + code + " after SIGTERM (expected 0)\n"
                    + describe());
        }
        String leaks = log().lines().filter(line -> line.contains("LEAK:")).collect(Collectors.joining("\n"));
        if (!leaks.isEmpty()) {
            throw new AssertionError("Netty's leak detector reported unreleased buffers:\n" + leaks + "\n" + describe());
        }
    }

    /** Stops cleanly (SIGTERM, exit 0 within 20 s, else fails). */
    @Override
    public void close() {
        stopCleanly();
    }

    /** Kills the process and anything it started, without checks (cleanup after a failure). */
    /**
     * Test clean-up: stops {@code daemon} with SIGTERM if it is running (failing the test when it
     * does not exit 0) and kills it if it is still alive after that. Null is nothing to stop.
     */
    public static void stopCleanlyIfRunning(DaemonProcess daemon) {
        if (daemon != null && daemon.isAlive()) {
            try {
                daemon.stopCleanly();
            } finally {
                if (daemon.isAlive()) {
                    daemon.kill();
                }
            }
        }
    }

    public void kill() {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
    }

    private String exitCodeNow() {
        return process.isAlive() ? "?" : Integer.toString(process.exitValue());
    }

    private static String readLenient(Path p) {
        try {
            return Files.exists(p) ? new String(Files.readAllBytes(p), StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            return "(cannot read " + p + ": " + e + ")";
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }
}
