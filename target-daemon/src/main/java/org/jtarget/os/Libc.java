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
 * The C library through Java 25's foreign function API (no JNI): the shared plumbing every libc
 * binding uses (linker lookup, errno capture into a call-state segment) and the memory-management
 * calls of the pinned buffer arena: mmap(2), munmap(2), mlock(2), munlock(2), madvise(2).
 *
 * <p>Every downcall made through {@link #downcall} captures errno into a caller-supplied call
 * state ({@link #newCallState}); read it with {@link #errno} right after a failed call. Addresses
 * travel as {@code long}: on the 64-bit Linux ABIs this runs on (x86-64, AArch64) a pointer and a
 * long use the same register, and a long needs no {@code MemorySegment} object per call.
 */
public final class Libc {

    public static final int EPERM = 1;
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

    private Libc() {
    }

    /**
     * A downcall handle for libc's {@code name} that captures errno: its first parameter is the
     * call state, then the C parameters of {@code descriptor}.
     *
     * @throws UnsatisfiedLinkError if libc has no such symbol
     */
    public static MethodHandle downcall(String name, FunctionDescriptor descriptor, Linker.Option... extra) {
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
        try {
            return (long) MMAP.invokeExact(state, 0L, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                    -1, 0L);
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
}
