package org.jtarget.backstore.memory;

import org.jtarget.os.Libc;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Locale;

/**
 * One private anonymous mapping ({@code mmap(2)} with MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE),
 * through Java 25's foreign function API. Its pages cost nothing until written and read as zeros
 * until then; {@link #discard} hands a range's pages back to the kernel ({@code madvise(2)}
 * MADV_DONTNEED), after which it reads as zeros again. The calls are {@link Libc}'s. That makes the memory a thin store holds
 * exactly the chunks it has written, which is what {@link MemoryBudget} counts.
 *
 * <p>The mapping stays valid until the object is unreachable (then a cleaner unmaps it), so a read
 * racing a discard sees old data or zeros, never an unmapped page. Linux only.
 */
final class AnonymousMemory {

    private static final int PROT_READ_WRITE = 0x1 | 0x2;
    private static final int MAP_PRIVATE = 0x02;
    private static final int MAP_ANONYMOUS = 0x20;
    /** asm-generic value; powerpc has its own (include/uapi/asm-generic/mman.h, arch/powerpc/.../mman.h). */
    private static final int MAP_NORESERVE = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT)
            .startsWith("ppc") ? 0x40 : 0x4000;
    private static final int MADV_DONTNEED = 4;

    private final MemorySegment segment;

    private AnonymousMemory(MemorySegment segment) {
        this.segment = segment;
    }

    /**
     * Maps {@code size} bytes of zeros (nothing is committed yet).
     *
     * @throws OutOfMemoryError if the kernel refuses the mapping
     */
    static AnonymousMemory map(long size) {
        long address = Libc.mmap(Libc.errnoIgnored(), 0L, size, PROT_READ_WRITE,
                MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0L);
        if (Libc.mapFailed(address) || address == 0L) {
            throw new OutOfMemoryError("mmap of " + size + " bytes refused");
        }
        // the cleanup runs once the segment (and every ByteBuffer view of it) is unreachable
        return new AnonymousMemory(MemorySegment.ofAddress(address)
                .reinterpret(size, Arena.ofAuto(), s -> unmap(address, size)));
    }

    private static void unmap(long address, long size) {
        // a failure leaves nothing to do: the address space stays reserved until exit
        Libc.munmap(Libc.errnoIgnored(), address, size);
    }

    /** The whole mapping. */
    MemorySegment segment() {
        return segment;
    }

    /**
     * Returns the pages of {@code [offset, offset + length)} to the kernel; they read as zeros
     * afterwards. Where that is not possible (a range not aligned to the page size) the range is
     * zeroed instead, which keeps the contents right but the pages committed.
     */
    void discard(long offset, long length) {
        MemorySegment range = segment.asSlice(offset, length);
        if (Libc.madvise(Libc.errnoIgnored(), range.address(), length, MADV_DONTNEED) != 0) {
            range.fill((byte) 0);
        }
    }
}
