package org.jtarget.backstore.block;

import org.jtarget.os.Libc;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;

/**
 * The Linux constants behind block device (and O_DIRECT file) stores (errno values, open flags,
 * fallocate modes, the block layer ioctls of {@code <linux/fs.h>}: BLKGETSIZE64, BLKSSZGET,
 * BLKPBSZGET) and the control-path calls that turn a failure into an {@link ErrnoException}:
 * open(2), close(2), ioctl(2). The calls themselves are {@link Libc}'s downcalls; the data path
 * ({@link PositionalIo}) calls pread(2), pwrite(2), fdatasync(2) and fallocate(2) there directly.
 */
public final class NativeIo {

    static final int EINTR = 4;
    static final int EIO = 5;
    static final int ENXIO = 6;
    static final int EBADF = 9;
    static final int EACCES = 13;
    static final int EBUSY = 16;
    static final int ENODEV = 19;
    static final int EINVAL = 22;
    static final int ENOSPC = 28;
    static final int EOPNOTSUPP = 95;
    static final int EDQUOT = 122;

    static final int O_RDWR = 0x2;
    static final int O_EXCL = 0x80;
    static final int O_CLOEXEC = 0x80000;
    /** O_DIRECT differs by architecture (asm-generic 040000, arm64 0200000). */
    static final int O_DIRECT = "aarch64".equals(System.getProperty("os.arch")) ? 0x10000 : 0x4000;

    static final int FALLOC_FL_KEEP_SIZE = 0x01;
    static final int FALLOC_FL_PUNCH_HOLE = 0x02;
    static final int FALLOC_FL_ZERO_RANGE = 0x10;

    /** {@code _IOR(0x12, 114, size_t)}: device size in bytes (u64). */
    static final long BLKGETSIZE64 = 0x80081272L;
    /** {@code _IO(0x12, 104)}: logical block size (int). */
    static final long BLKSSZGET = 0x1268L;
    /** {@code _IO(0x12, 123)}: physical block size (unsigned int). */
    static final long BLKPBSZGET = 0x127BL;

    private NativeIo() {
    }

    /** open(2) of {@code path} with {@code flags}; returns the descriptor. */
    static int open(Path path, int flags) throws ErrnoException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = Libc.newCallState(arena);
            int fd = Libc.open(state, arena.allocateFrom(path.toString()), flags);
            if (fd < 0) {
                throw new ErrnoException("open", path.toString(), Libc.errno(state));
            }
            return fd;
        }
    }

    /** close(2). */
    static void close(int fd, String what) throws ErrnoException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = Libc.newCallState(arena);
            if (Libc.close(state, fd) != 0) {
                throw new ErrnoException("close", what, Libc.errno(state));
            }
        }
    }

    /** An ioctl that fills a u64 ({@link #BLKGETSIZE64}). */
    static long ioctlLong(int fd, long request, String what) throws ErrnoException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ValueLayout.JAVA_LONG);
            ioctl(arena, fd, request, out, what);
            return out.get(ValueLayout.JAVA_LONG, 0);
        }
    }

    /** An ioctl that fills an int ({@link #BLKSSZGET}, {@link #BLKPBSZGET}). */
    static int ioctlInt(int fd, long request, String what) throws ErrnoException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ValueLayout.JAVA_INT);
            ioctl(arena, fd, request, out, what);
            return out.get(ValueLayout.JAVA_INT, 0);
        }
    }

    private static void ioctl(Arena arena, int fd, long request, MemorySegment arg, String what)
            throws ErrnoException {
        MemorySegment state = Libc.newCallState(arena);
        if (Libc.ioctl(state, fd, request, arg) != 0) {
            throw new ErrnoException("ioctl(0x" + Long.toHexString(request) + ")", what, Libc.errno(state));
        }
    }
}
