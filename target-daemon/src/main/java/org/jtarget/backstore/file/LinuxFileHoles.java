package org.jtarget.backstore.file;

import org.jtarget.os.Libc;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;

/**
 * Hole punching and hole finding on a Linux file, through {@link Libc}'s downcalls:
 * {@code fallocate(FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE)} deallocates a range, which
 * then reads as zeros (fallocate(2)); {@code lseek(SEEK_DATA / SEEK_HOLE)} tells allocated ranges
 * from holes (lseek(2)). FileChannel exposes neither, so the store keeps a second descriptor of
 * the same file for these calls; data I/O stays on the FileChannel.
 */
final class LinuxFileHoles implements AutoCloseable {

    private static final int O_RDWR = 0x2;
    private static final int O_CLOEXEC = 0x80000;
    private static final int FALLOC_FL_KEEP_SIZE = 0x01;
    private static final int FALLOC_FL_PUNCH_HOLE = 0x02;
    private static final int SEEK_DATA = 3;
    private static final int SEEK_HOLE = 4;
    private static final int ENXIO = 6;
    private static final int EOPNOTSUPP = 95;

    private final int fd;
    private final Path path;

    private LinuxFileHoles(int fd, Path path) {
        this.fd = fd;
        this.path = path;
    }

    /** Opens a second descriptor of {@code path} for hole operations. */
    static LinuxFileHoles open(Path path) throws IOException {
        Result r = call((state, arena) ->
                Libc.open(state, arena.allocateFrom(path.toString()), O_RDWR | O_CLOEXEC));
        if (r.value() < 0) {
            throw failure("open", path, r.errno());
        }
        return new LinuxFileHoles((int) r.value(), path);
    }

    /**
     * Deallocates {@code length} bytes at {@code offset}; the size stays. Partial file-system
     * blocks at either end are zeroed rather than freed, so the whole range reads as zeros.
     */
    void punchHole(long offset, long length) throws IOException {
        Result r = call((state, arena) ->
                Libc.fallocate(state, fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, offset, length));
        if (r.value() != 0) {
            throw failure(r.errno() == EOPNOTSUPP ? "fallocate(PUNCH_HOLE) not supported by the file system"
                    : "fallocate(PUNCH_HOLE)", path, r.errno());
        }
    }

    /** The first offset at or after {@code offset} that holds data, or -1 if only holes follow. */
    long nextData(long offset) throws IOException {
        return seek(offset, SEEK_DATA);
    }

    /** The first offset at or after {@code offset} that is a hole (the file's end counts as one). */
    long nextHole(long offset) throws IOException {
        return seek(offset, SEEK_HOLE);
    }

    private long seek(long offset, int whence) throws IOException {
        Result r = call((state, arena) -> Libc.lseek(state, fd, offset, whence));
        if (r.value() >= 0) {
            return r.value();
        }
        if (r.errno() == ENXIO) {
            return -1; // lseek(2): no data (SEEK_DATA) or past the end
        }
        throw failure(whence == SEEK_DATA ? "lseek(SEEK_DATA)" : "lseek(SEEK_HOLE)", path, r.errno());
    }

    /** A native call's return value and the errno it left. */
    private record Result(long value, int errno) {
    }

    @FunctionalInterface
    private interface Downcall {
        long invoke(MemorySegment callState, Arena arena);
    }

    /** Runs one downcall with a fresh errno capture area (control path: allocation is fine). */
    private static Result call(Downcall downcall) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = Libc.newCallState(arena);
            long value = downcall.invoke(state, arena);
            return new Result(value, Libc.errno(state));
        }
    }

    private static IOException failure(String call, Path path, int errno) {
        String message = call + " on " + path + " failed: errno " + errno;
        if (errno == 28) {
            message += " (No space left on device)";
        }
        return new IOException(message);
    }

    @Override
    public void close() throws IOException {
        Result r = call((state, arena) -> Libc.close(state, fd));
        if (r.value() != 0) {
            throw failure("close", path, r.errno());
        }
    }
}
