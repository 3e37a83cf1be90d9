package org.jtarget.backstore.block;

import org.jtarget.os.Libc;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;

/**
 * The Linux system calls behind block device (and O_DIRECT file) stores, through Java 25's foreign
 * function API (no JNI): open(2), close(2), pread(2), pwrite(2), fdatasync(2), fallocate(2) and
 * the block layer ioctls of {@code <linux/fs.h>} (BLKGETSIZE64, BLKSSZGET, BLKPBSZGET).
 *
 * <p>Every downcall captures errno into a caller-supplied call-state segment
 * ({@link #newCallState}). Data calls take the buffer address as a {@code long}: on the 64-bit
 * Linux ABIs this runs on (x86-64, AArch64) a pointer and a long travel in the same register, and
 * a long needs no {@code MemorySegment} object per I/O, so the hot path allocates nothing.
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

    private static final MethodHandle OPEN = downcall("open",
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
    private static final MethodHandle CLOSE = downcall("close",
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
    private static final MethodHandle PREAD = downcall("pread",
            FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG,
                    ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG));
    private static final MethodHandle PWRITE = downcall("pwrite",
            FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG,
                    ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG));
    private static final MethodHandle FDATASYNC = downcall("fdatasync",
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
    private static final MethodHandle FALLOCATE = downcall("fallocate",
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
                    ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG));
    /** {@code int ioctl(int fd, unsigned long request, ...)}: variadic from the third argument. */
    private static final MethodHandle IOCTL = downcall("ioctl",
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG,
                    ValueLayout.ADDRESS), Linker.Option.firstVariadicArg(2));

    private NativeIo() {
    }

    private static MethodHandle downcall(String name, FunctionDescriptor descriptor, Linker.Option... extra) {
        return Libc.downcall(name, descriptor, extra);
    }

    /** A segment for one thread's downcalls to leave errno in; reuse it, one per concurrent caller. */
    static MemorySegment newCallState(Arena arena) {
        return Libc.newCallState(arena);
    }

    /** The errno the last downcall with this call state left. */
    static int errno(MemorySegment callState) {
        return Libc.errno(callState);
    }

    /** open(2) of {@code path} with {@code flags}; returns the descriptor. */
    static int open(Path path, int flags) throws ErrnoException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = newCallState(arena);
            int fd = (int) OPEN.invokeExact(state, arena.allocateFrom(path.toString()), flags);
            if (fd < 0) {
                throw new ErrnoException("open", path.toString(), errno(state));
            }
            return fd;
        } catch (ErrnoException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** close(2). */
    static void close(int fd, String what) throws ErrnoException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = newCallState(arena);
            if ((int) CLOSE.invokeExact(state, fd) != 0) {
                throw new ErrnoException("close", what, errno(state));
            }
        } catch (ErrnoException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** pread(2): bytes read (0 at end of file) or -1 with errno in {@code state}. */
    static long pread(MemorySegment state, int fd, long address, long count, long offset) {
        try {
            return (long) PREAD.invokeExact(state, fd, address, count, offset);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** pwrite(2): bytes written or -1 with errno in {@code state}. */
    static long pwrite(MemorySegment state, int fd, long address, long count, long offset) {
        try {
            return (long) PWRITE.invokeExact(state, fd, address, count, offset);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** fdatasync(2): 0 or -1 with errno in {@code state}. */
    static int fdatasync(MemorySegment state, int fd) {
        try {
            return (int) FDATASYNC.invokeExact(state, fd);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** fallocate(2): 0 or -1 with errno in {@code state}. */
    static int fallocate(MemorySegment state, int fd, int mode, long offset, long length) {
        try {
            return (int) FALLOCATE.invokeExact(state, fd, mode, offset, length);
        } catch (Throwable t) {
            throw rethrow(t);
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
        MemorySegment state = newCallState(arena);
        int r;
        try {
            r = (int) IOCTL.invokeExact(state, fd, request, arg);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        if (r != 0) {
            throw new ErrnoException("ioctl(0x" + Long.toHexString(request) + ")", what, errno(state));
        }
    }

    private static RuntimeException rethrow(Throwable t) {
        return Libc.rethrow(t);
    }
}
