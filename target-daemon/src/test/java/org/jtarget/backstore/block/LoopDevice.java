package org.jtarget.backstore.block;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assumptions.assumeThat;

/**
 * A loop device over a sparse file, for tests that need a real block device: {@code losetup -f
 * --show} attaches it (root only; the test is skipped with the reason when that fails) and
 * {@link #close} detaches it.
 */
final class LoopDevice implements AutoCloseable {

    private final Path backing;
    private final Path device;

    private LoopDevice(Path backing, Path device) {
        this.backing = backing;
        this.device = device;
    }

    /** Attaches a loop device over a new sparse file of {@code bytes}, or skips the test. */
    static LoopDevice attach(Path backing, long bytes, int sectorSize) throws IOException, InterruptedException {
        try (RandomAccessFile raf = new RandomAccessFile(backing.toFile(), "rw")) {
            raf.setLength(bytes);
        }
        List<String> cmd = new ArrayList<>(List.of("losetup", "-f", "--show"));
        if (sectorSize != 512) {
            cmd.addAll(List.of("-b", Integer.toString(sectorSize)));
        }
        cmd.add(backing.toString());
        Result r = run(cmd);
        assumeThat(r.code()).as("losetup cannot attach a loop device here (needs root and /dev/loop*): " + r.output())
                .isZero();
        return new LoopDevice(backing, Path.of(r.output().trim()));
    }

    Path device() {
        return device;
    }

    Path backing() {
        return backing;
    }

    /** Bytes the backing file has allocated (st_blocks * 512, as du counts). */
    long allocatedBytes() throws IOException, InterruptedException {
        Result r = run(List.of("stat", "-c", "%b", backing.toString()));
        return Long.parseLong(r.output().trim()) * 512;
    }

    @Override
    public void close() throws IOException, InterruptedException {
        run(List.of("losetup", "-d", device.toString()));
    }

    record Result(int code, String output) {
    }

    static Result run(List<String> cmd) throws IOException, InterruptedException {
        Process p;
        try {
            p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        } catch (IOException e) {
            return new Result(-1, e.getMessage());
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return new Result(-1, "timed out: " + cmd);
        }
        return new Result(p.exitValue(), out);
    }
}
