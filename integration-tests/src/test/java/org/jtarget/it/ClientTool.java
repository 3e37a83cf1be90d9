package org.jtarget.it;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Runs external client programs (libiscsi tools, qemu-img) with a timeout and captured output.
 * A missing program is a test FAILURE naming the package to install, never a skip: {@code ./dev test}
 * installs them (DESIGN 5).
 */
public final class ClientTool {

    private static final List<String> EXTRA_BIN_DIRS = List.of("/usr/bin", "/usr/sbin", "/usr/local/bin");

    private ClientTool() {
    }

    /** What a finished command printed. */
    public record Result(List<String> command, int exitCode, String stdout, String stderr) {

        /** The command line, exit code and output, for failure messages. */
        public String describe() {
            return "$ " + String.join(" ", command) + "\n(exit " + exitCode + ")\n--- stdout ---\n" + stdout
                    + "--- stderr ---\n" + stderr;
        }
    }

    /**
     * Finds {@code program} on PATH (or /usr/bin, /usr/sbin, /usr/local/bin) or fails saying which
     * Debian package provides it.
     */
    public static Path require(String program, String debianPackage) {
        List<String> dirs = new ArrayList<>(Arrays.asList(System.getenv().getOrDefault("PATH", "").split(":")));
        dirs.addAll(EXTRA_BIN_DIRS);
        for (String dir : dirs) {
            if (dir.isEmpty()) {
                continue;
            }
            Path p = Path.of(dir, program);
            if (Files.isExecutable(p)) {
                return p;
            }
        }
        throw new AssertionError(program + " is not installed: run `sudo apt-get install -y " + debianPackage
                + "` (./dev test installs it). Integration tests fail rather than skip when a client is missing.");
    }

    /** Fails unless qemu-img and its iSCSI block driver (Debian's qemu-block-extra) are installed. */
    public static Path requireQemuImgWithIscsi() {
        Path qemuImg = require("qemu-img", "qemu-utils");
        for (String libDir : List.of("/usr/lib/x86_64-linux-gnu/qemu", "/usr/lib/aarch64-linux-gnu/qemu",
                "/usr/lib64/qemu", "/usr/lib/qemu")) {
            if (Files.exists(Path.of(libDir, "block-iscsi.so"))) {
                return qemuImg;
            }
        }
        throw new AssertionError("qemu-img's iSCSI driver (block-iscsi.so) is not installed: run `sudo apt-get "
                + "install -y qemu-block-extra` (./dev test installs it).");
    }

    /**
     * Runs a command and returns its result whatever the exit code; fails (after killing it) if it
     * does not finish within {@code timeout}.
     *
     * @param context extra text for failure messages (e.g. the daemon's log tail), may be null
     */
    /** The checkout's {@code jtargetctl ARGS --socket SOCKET}; its result, whatever its exit status. */
    public static Result jtargetctl(java.nio.file.Path socket, Duration timeout, Supplier<String> context, String... args) {
        String[] command = new String[args.length + 3];
        command[0] = DaemonProcess.home().resolve("initiator-tools/bin/jtargetctl").toString();
        System.arraycopy(args, 0, command, 1, args.length);
        command[args.length + 1] = "--socket";
        command[args.length + 2] = socket.toString();
        return run(timeout, context, command);
    }

    public static Result run(Duration timeout, Supplier<String> context, String... command) {
        List<String> cmd = List.of(command);
        try {
            Path out = Files.createTempFile("jtarget-it-cmd-", ".out");
            Path err = Files.createTempFile("jtarget-it-cmd-", ".err");
            try {
                Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile())
                        .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
                if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                    p.descendants().forEach(ProcessHandle::destroyForcibly);
                    p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
                    Result partial = new Result(cmd, -1, read(out), read(err));
                    throw new AssertionError("command did not finish within " + timeout.toSeconds() + " s and was "
                            + "killed:\n" + partial.describe() + contextText(context));
                }
                return new Result(cmd, p.exitValue(), read(out), read(err));
            } finally {
                Files.deleteIfExists(out);
                Files.deleteIfExists(err);
            }
        } catch (IOException e) {
            throw new AssertionError("could not run " + String.join(" ", cmd) + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while running " + String.join(" ", cmd), e);
        }
    }

    /** Runs a command that must exit 0; fails with the command line, its output and {@code context}. */
    public static Result runOk(Duration timeout, Supplier<String> context, String... command) {
        Result r = run(timeout, context, command);
        if (r.exitCode() != 0) {
            throw new AssertionError("command failed:\n" + r.describe() + contextText(context));
        }
        return r;
    }

    private static String contextText(Supplier<String> context) {
        return context == null ? "" : "\n" + context.get();
    }

    private static String read(Path p) throws IOException {
        return new String(Files.readAllBytes(p), StandardCharsets.UTF_8);
    }

    /**
     * The stdout and stderr files of a client started in the background (the crashcheck writer),
     * for a failure message: never throws, says so if a file cannot be read.
     */
    static String outputOf(String what, Path stdout, Path stderr) {
        return "--- " + what + " stdout ---\n" + readQuietly(stdout) + "--- " + what + " stderr ---\n"
                + readQuietly(stderr);
    }

    private static String readQuietly(Path p) {
        try {
            return Files.exists(p) ? read(p) : "";
        } catch (IOException e) {
            return "(cannot read " + p + ": " + e + ")";
        }
    }
}
