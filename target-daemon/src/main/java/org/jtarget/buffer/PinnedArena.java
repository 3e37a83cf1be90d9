package org.jtarget.buffer;

import org.jtarget.os.Libc;
import org.jtarget.units.ByteSize;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * One anonymous, page-aligned memory region (mmap(2)) that I/O buffers are carved from
 * ({@link ArenaAllocator}), locked into RAM with mlock(2) when asked so that RDMA fabrics can
 * register it once (DESIGN 3, "Buffer pool"), and kept out of fork(2) children
 * (madvise(MADV_DONTFORK), as RDMA registered memory must be).
 *
 * <p>Locking needs CAP_IPC_LOCK or an RLIMIT_MEMLOCK at least as large as the region (systemd
 * {@code LimitMEMLOCK=}, shell {@code ulimit -l}). When the kernel refuses (EPERM, ENOMEM,
 * EAGAIN) the region stays usable but unpinned: {@link #isPinned()} is false and one warning
 * naming the fix is logged, once, when the region is mapped.
 *
 * <p>Lifetime: the region lives until {@link #close()}; every buffer carved from it must be
 * released before ({@link BufferPool#close()} checks that: a buffer used after the unmap would
 * crash the process).
 */
public final class PinnedArena implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(PinnedArena.class);

    /** Address alignment of the region and of every buffer in it: a 4 KiB page, enough for O_DIRECT. */
    public static final int ALIGNMENT = 4096;

    /** Locks memory: returns 0 or the errno (tests inject refusals; the daemon uses mlock(2)). */
    @FunctionalInterface
    interface Locker {
        int lock(MemorySegment callState, long address, long length);
    }

    /** mlock(2) through {@link Libc}. */
    static final Locker MLOCK = (state, address, length) ->
            Libc.mlock(state, address, length) == 0 ? 0 : Libc.errno(state);

    private final Arena lifetime;
    private final MemorySegment segment;
    private final long address;
    private final long size;
    private final boolean pinned;
    private final int lockErrno;
    private volatile boolean closed;

    private PinnedArena(Arena lifetime, MemorySegment segment, long size, boolean pinned, int lockErrno) {
        this.lifetime = lifetime;
        this.segment = segment;
        this.address = segment.address();
        this.size = size;
        this.pinned = pinned;
        this.lockErrno = lockErrno;
    }

    /**
     * Maps {@code bytes} (rounded up to {@link #ALIGNMENT}) and, if {@code lock}, pins them.
     * A refused lock is not an error (see the class comment); a failed mmap is.
     *
     * @throws IOException if the kernel cannot map the region (ENOMEM: no address space)
     */
    public static PinnedArena map(long bytes, boolean lock) throws IOException {
        return map(bytes, lock, MLOCK);
    }

    static PinnedArena map(long bytes, boolean lock, Locker locker) throws IOException {
        if (bytes <= 0) {
            throw new IllegalArgumentException("arena size must be positive: " + bytes);
        }
        long size = (bytes + ALIGNMENT - 1) & -ALIGNMENT;
        try (Arena scratch = Arena.ofConfined()) {
            MemorySegment state = Libc.newCallState(scratch);
            long address = Libc.mmapAnonymous(state, size);
            if (Libc.mapFailed(address)) {
                throw new IOException("mmap of " + ByteSize.format(size) + " for the buffer arena failed: errno "
                        + Libc.errno(state));
            }
            if (Libc.madvise(state, address, size, Libc.MADV_DONTFORK) != 0) {
                LOG.debug("madvise(MADV_DONTFORK) on the buffer arena failed: errno {}", Libc.errno(state));
            }
            int errno = lock ? locker.lock(state, address, size) : 0;
            if (lock && errno != 0) {
                warnUnpinned(size, errno);
            }
            Arena lifetime = Arena.ofShared();
            MemorySegment segment = MemorySegment.ofAddress(address)
                    .reinterpret(size, lifetime, s -> unmap(s.address(), size));
            return new PinnedArena(lifetime, segment, size, lock && errno == 0, errno);
        }
    }

    private static void warnUnpinned(long size, int errno) {
        String why = switch (errno) {
            case Libc.EPERM -> "EPERM: no CAP_IPC_LOCK and RLIMIT_MEMLOCK is 0";
            case Libc.ENOMEM, Libc.EAGAIN -> "ENOMEM: larger than RLIMIT_MEMLOCK";
            default -> "errno " + errno;
        };
        LOG.warn("buffer arena: mlock of {} refused ({}); running UNPINNED. To pin it, grant CAP_IPC_LOCK "
                + "or raise the memlock limit to at least {} (systemd: LimitMEMLOCK=, shell: ulimit -l), "
                + "or set daemon.buffer-pool.pin: false", ByteSize.format(size), why, ByteSize.format(size));
    }

    /** munlock is implied by munmap(2); failures at shutdown are only worth a debug line. */
    private static void unmap(long address, long size) {
        try (Arena scratch = Arena.ofConfined()) {
            MemorySegment state = Libc.newCallState(scratch);
            if (Libc.munmap(state, address, size) != 0) {
                LOG.debug("munmap of the buffer arena failed: errno {}", Libc.errno(state));
            }
        }
    }

    /** The whole region, for an RDMA fabric to register once (valid until {@link #close()}). */
    public MemorySegment segment() {
        return segment;
    }

    /** The region's first byte: a multiple of {@link #ALIGNMENT}. */
    public long address() {
        return address;
    }

    /** The region's size in bytes: a multiple of {@link #ALIGNMENT}. */
    public long size() {
        return size;
    }

    /** True if the region is locked in RAM (mlock succeeded). */
    public boolean isPinned() {
        return pinned;
    }

    /** The errno mlock(2) failed with, or 0 (pinned, or not asked to pin). */
    public int lockErrno() {
        return lockErrno;
    }

    /** True if {@code [address, address + length)} lies inside the region (e.g. a buffer's memoryAddress). */
    public boolean contains(long address, long length) {
        return length >= 0 && address >= this.address && address - this.address <= size - length;
    }

    /** Unmaps the region. Buffers carved from it must all have been released. */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            lifetime.close();
        }
    }

    @Override
    public String toString() {
        return "arena " + ByteSize.format(size) + (pinned ? " pinned" : " unpinned") + " at 0x"
                + Long.toHexString(address);
    }
}
