package org.jtarget.backstore.file;

import org.jtarget.os.Libc;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Reads a file's blocks only when they are already in the page cache: {@code preadv2(2)} with
 * {@code RWF_NOWAIT} (Linux 4.14+) fails with EAGAIN instead of waiting for the disk. The event
 * loop uses it to answer a READ of cached data at once, with no hop to the LU's I/O thread and
 * back (two thread wake-ups, most of a 4 KiB READ's latency at queue depth 1); anything else
 * (not cached, short, an error) is left to the normal blocking path, which reports it properly.
 *
 * <p>It has its own read-only descriptor of the same file. Closing waits for reads in progress
 * so that a descriptor number the kernel hands out again is never read through.
 */
final class PageCacheReader implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(PageCacheReader.class);

    private static final int O_RDONLY = 0;
    private static final int O_CLOEXEC = 0x80000;
    /** linux/fs.h: "per-IO, return -EAGAIN if operation would block". */
    static final int RWF_NOWAIT = 0x08;
    private static final int EOPNOTSUPP = 95;
    /** struct iovec: void *iov_base; size_t iov_len. */
    private static final long IOVEC_BYTES = 16;
    private static final int CLOSED = -1;

    /** Per calling thread (event loops): the iovec and errno slot, made once, freed with the thread. */
    private static final ThreadLocal<Scratch> SCRATCH = ThreadLocal.withInitial(Scratch::new);

    private final int fd;
    private final String what;
    /** Reads in progress, or {@link #CLOSED}. */
    private final AtomicInteger users = new AtomicInteger();
    private volatile boolean unsupported;

    private PageCacheReader(int fd, String what) {
        this.fd = fd;
        this.what = what;
    }

    /** A reader of {@code path}, or null if it cannot be opened (the blocking path still works). */
    static PageCacheReader open(Path path) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = Libc.newCallState(arena);
            int fd = Libc.open(state, arena.allocateFrom(path.toString()), O_RDONLY | O_CLOEXEC);
            if (fd < 0) {
                log.debug("{}: no page-cache reader (open errno {})", path, Libc.errno(state));
                return null;
            }
            return new PageCacheReader(fd, path.toString());
        }
    }

    /**
     * Reads {@code dst}'s remaining bytes from file offset {@code pos} if all of them are cached.
     * Returns true when it did (dst's position and limit are not changed); false leaves the bytes
     * undefined and the caller reads the normal way.
     */
    boolean tryRead(long pos, ByteBuffer dst) {
        if (unsupported || !enter()) {
            return false;
        }
        try {
            int length = dst.remaining();
            Scratch s = SCRATCH.get();
            s.iovec.set(ValueLayout.JAVA_LONG, 0, MemorySegment.ofBuffer(dst).address());
            s.iovec.set(ValueLayout.JAVA_LONG, 8, length);
            long n = Libc.preadv2(s.callState, fd, s.iovec, 1, pos, RWF_NOWAIT);
            if (n < 0 && Libc.errno(s.callState) == EOPNOTSUPP) {
                unsupported = true; // this file system cannot say "would block": stop asking
                log.debug("{}: RWF_NOWAIT not supported; reads go through the I/O threads", what);
            }
            return n == length;
        } finally {
            users.decrementAndGet();
        }
    }

    private boolean enter() {
        int u;
        do {
            u = users.get();
            if (u == CLOSED) {
                return false;
            }
        } while (!users.compareAndSet(u, u + 1));
        return true;
    }

    /** Waits for reads in progress, then closes the descriptor; idempotent. */
    @Override
    public void close() {
        while (!users.compareAndSet(0, CLOSED)) {
            if (users.get() == CLOSED) {
                return;
            }
            Thread.onSpinWait();
        }
        if (Libc.close(Libc.errnoIgnored(), fd) != 0) {
            log.debug("{}: close of the page-cache reader failed", what);
        }
    }

    private static final class Scratch {
        final MemorySegment iovec;
        final MemorySegment callState;

        Scratch() {
            Arena arena = Arena.ofAuto();
            iovec = arena.allocate(IOVEC_BYTES, 8);
            callState = Libc.newCallState(arena);
        }
    }
}
