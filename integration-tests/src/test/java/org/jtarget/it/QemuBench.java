package org.jtarget.it;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.jtarget.initiator.raw.RawIscsiClient;

/**
 * {@code qemu-img bench} writing 4 KiB blocks to an iSCSI URL in the background (a long run: the
 * test ends it by waiting or by {@link #close}), its output in a file for failure messages.
 */
final class QemuBench implements AutoCloseable {

    private final Process process;
    private final Path output;

    private QemuBench(Process process, Path output) {
        this.process = process;
        this.output = output;
    }

    /** Starts 1,000,000 writes of 4 KiB at queue depth 16 to {@code url}; output in {@code dir}/bench.txt. */
    static QemuBench writes(String url, Path dir) throws IOException {
        Path output = dir.resolve("bench.txt");
        Process p = new ProcessBuilder("qemu-img", "bench", "-f", "raw", "-t", "none", "-n", "-d", "16",
                "-s", "4096", "-c", "1000000", "-w", url)
                .redirectErrorStream(true).redirectOutput(output.toFile()).start();
        return new QemuBench(p, output);
    }

    boolean isAlive() {
        return process.isAlive();
    }

    int exitValue() {
        return process.exitValue();
    }

    /**
     * Waits for the bench to end, at most {@code timeout}, while pinging {@code session}: an idle
     * session that leaves the target's NOP-Ins unanswered is closed after two NOP-In intervals,
     * and a bench on a loaded machine can take longer than that. False when it did not end.
     */
    boolean awaitKeepingAlive(RawIscsiClient session, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!process.waitFor(1, TimeUnit.SECONDS)) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            session.ping();
        }
        return true;
    }

    /** The bench's output so far, for an assertion's message. */
    String output() {
        try {
            return "--- qemu-img bench ---\n" + Files.readString(output) + "\n";
        } catch (IOException e) {
            return e.toString();
        }
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroyForcibly();
        }
    }
}
