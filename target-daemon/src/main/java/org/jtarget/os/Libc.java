package org.jtarget.os;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

/**
 * The C library through Java 25's foreign function API (no JNI): every downcall handle of the
 * daemon lives here, each behind a thin wrapper named after its libc function that returns what
 * the function returns. Callers (the pinned buffer arena, the file, block and memory stores) keep
 * their own error handling and constants; this class only links and invokes.
 * <ul>
 * <li>memory: mmap(2), munmap(2), mlock(2), munlock(2), madvise(2)</li>
 * <li>files and devices: open(2), close(2), pread(2), pwrite(2), preadv2(2), fdatasync(2),
 *     fallocate(2), lseek(2), ioctl(2)</li>
 * <li>signals: sigaction(2) (query only), signal(2)</li>
 * <li>sockets: socket(2), sendto(2) (systemd's notification datagrams, {@link SystemdNotify})</li>
 * </ul>
 *
 * <p>Every downcall captures errno into a caller-supplied call state ({@link #newCallState});
 * read it with {@link #errno} right after a failed call. Addresses travel as {@code long}: on the
 * 64-bit Linux ABIs this runs on (x86-64, AArch64) a pointer and a long use the same register, and
 * a long needs no {@code MemorySegment} object per call, so the I/O wrappers allocate nothing.
 */
public final class Libc {

    public static final int EPERM = 1;
    public static final int EBADF = 9;
    public static final int EAGAIN = 11;
    public static final int ENOMEM = 12;
    public static final int EINVAL = 22;

    static final int PROT_READ = 0x1;
    static final int PROT_WRITE = 0x2;
    static final int MAP_PRIVATE = 0x02;
    /** MAP_ANONYMOUS: 0x20 on x86-64 and AArch64 (asm-generic/mman-common.h). */
    static final int MAP_ANONYMOUS = 0x20;
    /** madvise(2) MADV_DONTFORK: a child of fork(2) does not get the range (RDMA registered memory). */
    public static final int MADV_DONTFORK = 10;
    /** mmap(2) returns {@code (void *) -1} on failure. */
    static final long MAP_FAILED = -1L;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final Linker.Option CAPTURE_ERRNO = Linker.Option.captureCallState("errno");

    private static final MethodHandle MMAP = downcall("mmap",
            FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
                    ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG));
    private static final MethodHandle MUNMAP = downcall("munmap",
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG));
    private static final MethodHandle MLOCK = downcall("mlock",
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG));
    private static final MethodHandle MUNLOCK = downcall("munlock",
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG));
    private static final MethodHandle MADVISE = downcall("madvise",
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
                    ValueLayout.JAVA_INT));
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
    private static final MethodHandle PREADV2 = downcall("preadv2",
            FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.ADDRESS,
                    ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT));
    private static final MethodHandle FDATASYNC = downcall("fdatasync",
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
    private static final MethodHandle FALLOCATE = downcall("fallocate",
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
                    ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG));
    private static final MethodHandle LSEEK = downcall("lseek",
            FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG,
                    ValueLayout.JAVA_INT));
    /** {@code int ioctl(int fd, unsigned long request, ...)}: variadic from the third argument. */
    private static final MethodHandle IOCTL = downcall("ioctl",
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG,
                    ValueLayout.ADDRESS), Linker.Option.firstVariadicArg(2));

    /** sigaction(2) with a null new action: queries the current one into a struct sigaction. */
    private static final MethodHandle SIGACTION = downcall("sigaction",
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG,
                    ValueLayout.ADDRESS));
    private static final MethodHandle SIGNAL = downcall("signal",
            FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG));
    private static final MethodHandle SOCKET = downcall("socket",
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
    private static final MethodHandle SENDTO = downcall("sendto",
            FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG,
                    ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT));

    public static final int AF_UNIX = 1;
    public static final int SOCK_DGRAM = 2;
    /** socket(2) type flag: closed in a child after exec. */
    public static final int SOCK_CLOEXEC = 0x80000;
    /** sendto(2) flag: no SIGPIPE when the peer is gone. */
    public static final int MSG_NOSIGNAL = 0x4000;
    /**
     * Bytes reserved for glibc's struct sigaction (152 on x86-64 and AArch64), whose first member
     * is the handler (sa_handler / sa_sigaction union) on both.
     */
    private static final long SIGACTION_BYTES = 256;

    public static final int SIGHUP = 1;
    /** signal(2) dispositions as handler addresses. */
    public static final long SIG_DFL = 0;
    public static final long SIG_IGN = 1;

    /** See {@link #errnoIgnored()}. */
    private static final MemorySegment ERRNO_IGNORED = Arena.global().allocate(CALL_STATE);

    private Libc() {
    }

    /**
     * A downcall handle for libc's {@code name} that captures errno: its first parameter is the
     * call state, then the C parameters of {@code descriptor}.
     *
     * @throws UnsatisfiedLinkError if libc has no such symbol
     */
    private static MethodHandle downcall(String name, FunctionDescriptor descriptor, Linker.Option... extra) {
        MemorySegment symbol = LINKER.defaultLookup().find(name)
                .orElseThrow(() -> new UnsatisfiedLinkError("libc has no " + name));
        Linker.Option[] options = new Linker.Option[extra.length + 1];
        options[0] = CAPTURE_ERRNO;
        System.arraycopy(extra, 0, options, 1, extra.length);
        return LINKER.downcallHandle(symbol, descriptor, options);
    }

    /** A segment for one thread's downcalls to leave errno in; reuse it, one per concurrent caller. */
    public static MemorySegment newCallState(Arena arena) {
        return arena.allocate(CALL_STATE);
    }

    /** The errno the last downcall with this call state left. */
    public static int errno(MemorySegment callState) {
        return (int) ERRNO.get(callState, 0L);
    }

    /**
     * A call state for calls whose errno nobody reads (cleanup, best-effort advice): any thread may
     * pass it, and concurrent calls overwriting each other's errno there harms no one.
     */
    public static MemorySegment errnoIgnored() {
        return ERRNO_IGNORED;
    }

    /** A checked-free rethrow for {@code invokeExact}'s {@code Throwable}. */
    public static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException e) {
            throw e;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException(t);
    }

    /**
     * mmap(2) of {@code length} bytes of private anonymous read-write memory: page aligned, zero
     * filled, faulted in on first touch. Returns the address or {@link #MAP_FAILED}.
     */
    public static long mmapAnonymous(MemorySegment state, long length) {
        return mmap(state, 0L, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0L);
    }

    /** mmap(2): the mapping's address, or {@link #MAP_FAILED} with errno in {@code state}. */
    public static long mmap(MemorySegment state, long address, long length, int prot, int flags, int fd,
                            long offset) {
        try {
            return (long) MMAP.invokeExact(state, address, length, prot, flags, fd, offset);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** True if an {@link #mmapAnonymous} result is a failure. */
    public static boolean mapFailed(long address) {
        return address == MAP_FAILED;
    }

    /** munmap(2): 0 or -1 with errno in {@code state}. */
    public static int munmap(MemorySegment state, long address, long length) {
        try {
            return (int) MUNMAP.invokeExact(state, address, length);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * mlock(2): faults the range in and keeps it in RAM. 0, or -1 with errno in {@code state}:
     * EPERM without CAP_IPC_LOCK and a zero RLIMIT_MEMLOCK, ENOMEM past RLIMIT_MEMLOCK.
     */
    public static int mlock(MemorySegment state, long address, long length) {
        try {
            return (int) MLOCK.invokeExact(state, address, length);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** munlock(2): 0 or -1 with errno in {@code state}. */
    public static int munlock(MemorySegment state, long address, long length) {
        try {
            return (int) MUNLOCK.invokeExact(state, address, length);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** madvise(2) with {@code advice} (e.g. {@link #MADV_DONTFORK}): 0 or -1 with errno in {@code state}. */
    public static int madvise(MemorySegment state, long address, long length, int advice) {
        try {
            return (int) MADVISE.invokeExact(state, address, length, advice);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** open(2) of the NUL-terminated {@code path}: a descriptor, or -1 with errno in {@code state}. */
    public static int open(MemorySegment state, MemorySegment path, int flags) {
        try {
            return (int) OPEN.invokeExact(state, path, flags);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** close(2): 0 or -1 with errno in {@code state}. */
    public static int close(MemorySegment state, int fd) {
        try {
            return (int) CLOSE.invokeExact(state, fd);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** pread(2) into {@code address}: bytes read (0 at end of file) or -1 with errno in {@code state}. */
    public static long pread(MemorySegment state, int fd, long address, long count, long offset) {
        try {
            return (long) PREAD.invokeExact(state, fd, address, count, offset);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** pwrite(2) from {@code address}: bytes written or -1 with errno in {@code state}. */
    public static long pwrite(MemorySegment state, int fd, long address, long count, long offset) {
        try {
            return (long) PWRITE.invokeExact(state, fd, address, count, offset);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * preadv2(2) into the {@code iovcnt} {@code struct iovec}s at {@code iov} with {@code flags}
     * (e.g. RWF_NOWAIT): bytes read or -1 with errno in {@code state}.
     */
    public static long preadv2(MemorySegment state, int fd, MemorySegment iov, int iovcnt, long offset, int flags) {
        try {
            return (long) PREADV2.invokeExact(state, fd, iov, iovcnt, offset, flags);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** fdatasync(2): 0 or -1 with errno in {@code state}. */
    public static int fdatasync(MemorySegment state, int fd) {
        try {
            return (int) FDATASYNC.invokeExact(state, fd);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** fallocate(2) with {@code mode} (punch hole, zero range, ...): 0 or -1 with errno in {@code state}. */
    public static int fallocate(MemorySegment state, int fd, int mode, long offset, long length) {
        try {
            return (int) FALLOCATE.invokeExact(state, fd, mode, offset, length);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** lseek(2) (SEEK_DATA, SEEK_HOLE, ...): the resulting offset or -1 with errno in {@code state}. */
    public static long lseek(MemorySegment state, int fd, long offset, int whence) {
        try {
            return (long) LSEEK.invokeExact(state, fd, offset, whence);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** ioctl(2) with one pointer argument {@code arg}: 0 (or a request's value) or -1 with errno in {@code state}. */
    public static int ioctl(MemorySegment state, int fd, long request, MemorySegment arg) {
        try {
            return (int) IOCTL.invokeExact(state, fd, request, arg);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * The current disposition of signal {@code sig} (sigaction(2) queried with a null new action):
     * {@link #SIG_DFL}, {@link #SIG_IGN} or a handler's address; -1 with errno in {@code state}.
     */
    public static long signalDisposition(MemorySegment state, int sig) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment current = arena.allocate(SIGACTION_BYTES, Long.BYTES);
            int rc = (int) SIGACTION.invokeExact(state, sig, 0L, current);
            return rc == 0 ? current.get(ValueLayout.JAVA_LONG, 0) : -1;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** socket(2): a new socket's descriptor, or -1 with errno in {@code state}. */
    public static int socket(MemorySegment state, int domain, int type, int protocol) {
        try {
            return (int) SOCKET.invokeExact(state, domain, type, protocol);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * sendto(2) of {@code message} to the socket address {@code address} (its whole length is the
     * address length): the bytes sent, or -1 with errno in {@code state}.
     */
    public static long sendto(MemorySegment state, int fd, MemorySegment message, int flags, MemorySegment address) {
        try {
            return (long) SENDTO.invokeExact(state, fd, message, message.byteSize(), flags, address,
                    (int) address.byteSize());
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** signal(2): sets {@code sig}'s disposition to {@code handler}; the previous one, or -1 (SIG_ERR). */
    public static long signal(MemorySegment state, int sig, long handler) {
        try {
            return (long) SIGNAL.invokeExact(state, sig, handler);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }
}
