package org.jtarget.it;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A QEMU guest running Debian's Linux kernel initiator (open-iscsi) against the daemon on the host:
 * {@code integration-tests/guest/run-guest} boots the image {@code build-image} made (cached under
 * {@code ~/.cache/jtarget-guest}) with one shell script as its workload: the scenario's variables,
 * {@code guest/lib.sh}, then {@code guest/scenarios/<name>.sh}. The guest's console is streamed
 * into the test log line by line as {@code [guest <name>] ...}, kept for failure messages, and
 * can be waited on ({@link #awaitLine}) so a test can act on the host while the guest works (kill
 * the daemon under load). The guest reaches the host's 127.0.0.1 as 10.0.2.2.
 *
 * <p>Every step is bounded: the image build ({@link #ensureImage}), the guest's own run
 * ({@code run-guest --timeout}) and the wait for it here. A guest that cannot be built or booted
 * is a test failure saying so, never a skip.
 */
public final class GuestVm implements AutoCloseable {

    /** Printed by the guest's init with the script's exit status. */
    private static final Pattern EXIT_LINE = Pattern.compile("^JTARGET-GUEST-EXIT (\\d+)$");
    private static final Pattern BOOTED_LINE = Pattern.compile("^guest-init: up after ([0-9.]+) s");
    private static final Duration BUILD_TIMEOUT = Duration.ofMinutes(8);
    /**
     * How long a guest may take to reach its script (normally 3-5 s, 20 s on a loaded machine):
     * past it the boot hung (seen twice in CI runs under load: no console line after QEMU's
     * start for 300 s) and the guest is booted once more.
     */
    private static final Duration BOOT_TIMEOUT = Duration.ofSeconds(120);
    private static final int TAIL_LINES = 80;

    private final String name;
    private final Process process;
    private final long startNanos;
    private final List<String> lines = new ArrayList<>();
    private final Thread reader;
    private boolean ended;

    private GuestVm(String name, Process process) {
        this.name = name;
        this.process = process;
        this.startNanos = System.nanoTime();
        this.reader = Thread.ofPlatform().daemon().name("guest-" + name).start(this::pump);
    }

    /** What a finished guest run gives: the script's exit status and timings. */
    public record Result(String name, int exitCode, Duration wallTime, double bootSeconds, String output) {

        /** The lines the scenario's checks printed on failure ({@code GUEST-CHECK-FAILED: ...}). */
        public String failures() {
            StringBuilder sb = new StringBuilder();
            output.lines().filter(l -> l.startsWith("GUEST-CHECK-FAILED") || l.startsWith("run-guest: GUEST FAILURE"))
                    .forEach(l -> sb.append(l).append('\n'));
            return sb.toString();
        }

        /** One line for the test log: name, status, wall time, boot time. */
        public String summary() {
            return "guest scenario " + name + ": exit " + exitCode + " in " + wallTime.toMillis() / 1000.0 + " s (guest "
                    + "booted to its script in " + bootSeconds + " s)";
        }
    }

    /** The folder holding build-image, run-guest, lib.sh and scenarios/. */
    public static Path guestDir() {
        return DaemonProcess.home().resolve("integration-tests/guest");
    }

    /**
     * Builds the guest image unless cached (at most {@link #BUILD_TIMEOUT}) and returns its folder;
     * fails with build-image's output when it cannot. Needs root, debootstrap and Debian's package
     * mirror the first time (about 2 minutes); afterwards it returns at once.
     */
    public static Path ensureImage() {
        ClientTool.require("qemu-system-x86_64", "qemu-system-x86");
        ClientTool.require("qemu-img", "qemu-utils");
        long t0 = System.nanoTime();
        ClientTool.Result r = ClientTool.run(BUILD_TIMEOUT, null, guestDir().resolve("build-image").toString());
        if (r.exitCode() != 0) {
            throw new AssertionError("GUEST FAILURE: the guest image could not be built (integration-tests/guest/"
                    + "build-image; needs root, debootstrap and deb.debian.org):\n" + r.describe());
        }
        Path image = Path.of(r.stdout().strip().lines().reduce((a, b) -> b).orElse(""));
        System.out.println("guest image " + image + " ready after " + (System.nanoTime() - t0) / 1_000_000 / 1000.0
                + " s" + (r.stderr().isBlank() ? " (cached)" : ":\n" + r.stderr().strip()));
        return image;
    }

    /**
     * Boots a guest running scenario {@code scenario} ({@code guest/scenarios/<scenario>.sh}) with
     * {@code vars} set as shell variables before it; returns at once, the guest runs on.
     *
     * @param guestTimeout how long the guest may run before run-guest kills it
     */
    public static GuestVm start(String scenario, Map<String, String> vars, Duration guestTimeout) throws IOException {
        return start(scenario, vars, guestTimeout, List.of());
    }

    /** A TCP port of the host's 127.0.0.1 that QEMU forwards to a port of the guest (its hostfwd). */
    public record PortForward(int hostPort, int guestPort) {
    }

    /**
     * {@link #start(String, Map, Duration)} with host ports forwarded into the guest: a host process
     * connecting to {@code 127.0.0.1:hostPort} reaches whatever listens on the guest's {@code guestPort}
     * (the connection comes from 10.0.2.2, the host as the guest sees it).
     */
    public static GuestVm start(String scenario, Map<String, String> vars, Duration guestTimeout,
                                List<PortForward> forwards) throws IOException {
        Path dir = guestDir();
        StringBuilder script = new StringBuilder("#!/bin/sh\n# generated by GuestVm for scenario ")
                .append(scenario).append('\n');
        vars.forEach((k, v) -> script.append(k).append("='").append(v.replace("'", "'\\''")).append("'\n"));
        script.append(Files.readString(dir.resolve("lib.sh")));
        script.append(Files.readString(dir.resolve("scenarios").resolve(scenario + ".sh")));
        Path scripts = Files.createDirectories(Path.of("target", "guest-scripts"));
        Path file = Files.writeString(scripts.resolve(scenario + ".sh"), script);
        List<String> command = new ArrayList<>(List.of(dir.resolve("run-guest").toString(), "--timeout",
                Long.toString(guestTimeout.toSeconds())));
        for (PortForward f : forwards) {
            command.addAll(List.of("--forward", f.hostPort() + ":" + f.guestPort()));
        }
        command.add(file.toAbsolutePath().toString());
        ProcessBuilder pb = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        System.out.println("booting the guest for scenario " + scenario);
        GuestVm vm = new GuestVm(scenario, pb.start());
        if (!vm.bootedWithin(BOOT_TIMEOUT)) {
            // A hung boot, before any scenario code ran: nothing of the daemon is being tested yet.
            System.out.println("the guest for scenario " + scenario + " did not reach its script within "
                    + BOOT_TIMEOUT.toSeconds() + " s; killed, booting it once more\n" + vm.tail());
            vm.close();
            vm = new GuestVm(scenario, pb.start());
        }
        return vm;
    }

    /** Whether guest-init reported the guest up within {@code timeout} (false also when it ended first). */
    private boolean bootedWithin(Duration timeout) throws IOException {
        try {
            awaitLine(BOOTED_LINE, timeout);
            return true;
        } catch (AssertionError e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while the guest booted", e);
        }
    }

    private void pump() {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                System.out.println("[guest " + name + "] " + line);
                synchronized (lines) {
                    lines.add(line);
                    lines.notifyAll();
                }
            }
        } catch (IOException e) {
            System.out.println("[guest " + name + "] console read failed: " + e);
        } finally {
            synchronized (lines) {
                ended = true;
                lines.notifyAll();
            }
        }
    }

    /**
     * Waits until the guest prints a line matching {@code pattern} and returns the match; fails if
     * the guest ends first or {@code timeout} passes (the guest keeps running: {@link #close} ends it).
     */
    public Matcher awaitLine(Pattern pattern, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        int seen = 0;
        synchronized (lines) {
            while (true) {
                for (; seen < lines.size(); seen++) {
                    Matcher m = pattern.matcher(lines.get(seen));
                    if (m.find()) {
                        return m;
                    }
                }
                long left = deadline - System.nanoTime();
                if (ended || left <= 0) {
                    throw new AssertionError("the guest (" + name + ") " + (ended ? "ended" : "ran " + timeout.toSeconds()
                            + " s") + " without printing a line matching /" + pattern + "/\n" + tail());
                }
                lines.wait(TimeUnit.NANOSECONDS.toMillis(left) + 1);
            }
        }
    }

    /**
     * Waits for the guest to finish (at most {@code timeout}, then it is killed and this fails) and
     * returns its result. A guest that could not be built or booted, or ended without reporting an
     * exit status, fails here with run-guest's explanation.
     */
    public Result finish(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            close();
            throw new AssertionError("GUEST FAILURE: the guest (" + name + ") did not finish within "
                    + timeout.toSeconds() + " s and was killed\n" + tail());
        }
        reader.join(TimeUnit.SECONDS.toMillis(10));
        Duration wall = Duration.ofNanos(System.nanoTime() - startNanos);
        String output = output();
        Matcher booted = Pattern.compile("(?m)" + BOOTED_LINE.pattern()).matcher(output);
        double boot = booted.find() ? Double.parseDouble(booted.group(1)) : -1;
        Matcher exit = Pattern.compile("(?m)" + EXIT_LINE.pattern()).matcher(output);
        int code = process.exitValue();
        if (!exit.find() && (code == 124 || code == 125)) {
            throw new AssertionError("GUEST FAILURE: the guest (" + name + ") could not be built, booted or "
                    + "finished (run-guest exit " + code + "):\n" + tail());
        }
        Result result = new Result(name, code, wall, boot, output);
        System.out.println(result.summary());
        return result;
    }

    /** Everything the guest printed so far. */
    public String output() {
        synchronized (lines) {
            return String.join("\n", lines) + "\n";
        }
    }

    /** The last lines of the console, for failure messages. */
    public String tail() {
        synchronized (lines) {
            List<String> t = lines.subList(Math.max(0, lines.size() - TAIL_LINES), lines.size());
            return "--- guest " + name + " console, last " + t.size() + " lines ---\n" + String.join("\n", t) + "\n";
        }
    }

    /** Kills run-guest and QEMU if still running. */
    @Override
    public void close() {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
    }
}
