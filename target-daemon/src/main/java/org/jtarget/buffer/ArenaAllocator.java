package org.jtarget.buffer;

import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * Direct buffers carved from a {@link PinnedArena}: page-aligned, page-multiple size classes
 * (4 KiB, 8 KiB ... {@link #MAX_SLOT}), each with a lock-free free list; what the arena cannot
 * give (every slot of the class and above in use and no room left to carve, or a request larger
 * than {@link #MAX_SLOT} or the arena) comes from the {@code fallback} allocator and is counted
 * ({@link #stats()}), so an operator sees the arena is too small.
 *
 * <p>Slots are carved lazily from a bump pointer; a released slot goes onto its class's free
 * list. A request takes a free slot of its class, else carves a new one, else splits a free slot
 * of the smallest larger class that has one, else falls back. A split halves the slot down to the
 * requested class, buddy style: the request gets the first piece and one piece of each class from
 * the requested one up to the split slot's goes onto its free list (a 1 MiB slot split for 16 KiB
 * leaves 16, 16, 32 ... 512 KiB free), so one small request leaves the larger pieces for larger
 * requests and costs one slot object per class, not one per small slot.
 *
 * <p>Split pieces never merge back (merging would need each slot's neighbour state, a lock or a
 * second CAS per release). So after bursts of small requests have split the large slots, a large
 * request whose class is empty and that cannot carve falls back to the pooled allocator even when
 * the arena has enough free bytes in smaller pieces: an operator who sees fallbacks together with
 * a non-zero {@link ArenaStats#splits()} and a high water mark well below the arena's size has a
 * fragmented arena, not a full one (a restart, or a larger arena, cures it). This is what lets a
 * new iSER connection take its hundreds of small registered buffers from an arena that an earlier
 * large transfer carved into a few large slots.
 *
 * <p>Free lists are Treiber stacks of slot page numbers: the head is an {@code AtomicLong}
 * holding {@code tag << 32 | (page + 1)} (the tag, bumped on every change, defeats ABA), the links
 * an {@code AtomicIntegerArray} indexed by page. Allocation and release allocate no Java objects:
 * each slot's {@link ArenaByteBuf} is made once and reused (Netty's leak detector, when it samples
 * an allocation, adds its tracking wrapper as it does for the pooled allocator).
 *
 * <p>Buffers are wrapped leak-aware ({@code toLeakAwareBuffer}), so tests at PARANOID see leaks.
 */
public final class ArenaAllocator extends AbstractByteBufAllocator {

    /** The smallest slot: one page. */
    public static final int MIN_SLOT = PinnedArena.ALIGNMENT;
    /**
     * The largest slot: 16 MiB, the largest READ or WRITE the SCSI core accepts
     * ({@code SbcLimits.MAX_TRANSFER_BYTES}); iSCSI's MaxBurstLength (at most 16 MiB - 1,
     * RFC 7143 13.14) fits too.
     */
    public static final int MAX_SLOT = 16 << 20;
    static final int CLASSES = Integer.numberOfTrailingZeros(MAX_SLOT / MIN_SLOT) + 1;
    private static final int PAGE_SHIFT = Integer.numberOfTrailingZeros(MIN_SLOT);
    /** Free-list heads 128 bytes apart, so threads on different classes do not share a cache line. */
    private static final int HEAD_STRIDE = 16;
    private static final long PAGE_MASK = 0xFFFF_FFFFL;

    private final PinnedArena arena;
    private final ByteBufAllocator fallback;
    private final AtomicLongArray heads = new AtomicLongArray(CLASSES * HEAD_STRIDE);
    private final AtomicIntegerArray next;
    private final ArenaByteBuf[] slots;
    private final AtomicLong carved = new AtomicLong();
    private final AtomicLong inUse = new AtomicLong();
    private final AtomicLong highWater = new AtomicLong();
    private final LongAdder allocations = new LongAdder();
    private final LongAdder fallbacks = new LongAdder();
    private final LongAdder splits = new LongAdder();

    /**
     * @param arena    the region to carve (borrowed: the caller closes it after every buffer is released)
     * @param fallback where requests the arena cannot satisfy go (Netty's pooled allocator)
     */
    public ArenaAllocator(PinnedArena arena, ByteBufAllocator fallback) {
        super(true);
        if (arena.size() >> PAGE_SHIFT > Integer.MAX_VALUE - 1) {
            throw new IllegalArgumentException("arena too large: " + arena.size());
        }
        this.arena = arena;
        this.fallback = fallback;
        int pages = (int) (arena.size() >> PAGE_SHIFT);
        this.next = new AtomicIntegerArray(pages);
        this.slots = new ArenaByteBuf[pages];
    }

    /** The region the buffers come from. */
    public PinnedArena arena() {
        return arena;
    }

    @Override
    public boolean isDirectBufferPooled() {
        return true;
    }

    @Override
    protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
        return fallback.heapBuffer(initialCapacity, maxCapacity);
    }

    /** A page-aligned arena buffer of {@code initialCapacity} bytes, or a counted fallback buffer. */
    @Override
    protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
        ArenaByteBuf slot = take(initialCapacity);
        if (slot == null) {
            fallbacks.increment();
            return fallback.directBuffer(initialCapacity, maxCapacity);
        }
        allocations.increment();
        long used = inUse.addAndGet(slot.slotBytes());
        if (used > highWater.get()) {
            raiseHighWater(used);
        }
        return toLeakAwareBuffer(slot.reuse(initialCapacity));
    }

    /** A free, fresh or split-off slot for {@code bytes}, or null when the arena has none. */
    private ArenaByteBuf take(int bytes) {
        int wanted = sizeClass(bytes);
        if (wanted < 0) {
            return null;
        }
        ArenaByteBuf slot = pop(wanted);
        if (slot == null) {
            slot = carve(wanted);
        }
        if (slot == null) {
            slot = splitLarger(wanted);
        }
        return slot;
    }

    /** The size class for {@code bytes}: the smallest {@code MIN_SLOT << c} that holds them, or -1. */
    static int sizeClass(int bytes) {
        if (bytes <= MIN_SLOT) {
            return 0;
        }
        if (bytes > MAX_SLOT) {
            return -1;
        }
        return 32 - Integer.numberOfLeadingZeros(bytes - 1) - PAGE_SHIFT;
    }

    /** Cuts a new slot of class {@code c} off the uncarved end, or null when it does not fit. */
    private ArenaByteBuf carve(int c) {
        long bytes = (long) MIN_SLOT << c;
        long offset;
        do {
            offset = carved.get();
            if (offset > arena.size() - bytes) {
                return null;
            }
        } while (!carved.compareAndSet(offset, offset + bytes));
        return newSlot(offset, c);
    }

    /** A free slot of the smallest class above {@code wanted} that has one, split down to it; or null. */
    private ArenaByteBuf splitLarger(int wanted) {
        for (int c = wanted + 1; c < CLASSES; c++) {
            ArenaByteBuf larger = pop(c);
            if (larger != null) {
                return split(larger, wanted);
            }
        }
        return null;
    }

    /**
     * Halves {@code larger} down to class {@code wanted}: returns its first piece (class
     * {@code wanted}) and pushes the piece at {@code MIN_SLOT << c} (class {@code c}) for every
     * {@code c} from {@code wanted} below {@code larger}'s class. Safe without a lock: popping
     * {@code larger} made this thread its only owner (its old buffer object is dropped, released,
     * so a stale holder can neither use nor release it again), and each piece reaches other threads
     * only through its free list's CAS, which publishes the piece's new slot object.
     */
    private ArenaByteBuf split(ArenaByteBuf larger, int wanted) {
        long start = (long) larger.page << PAGE_SHIFT;
        for (int c = larger.sizeClass - 1; c >= wanted; c--) {
            push(newSlot(start + ((long) MIN_SLOT << c), c));
        }
        splits.increment();
        return newSlot(start, wanted);
    }

    /** The buffer object of the slot of class {@code c} at {@code offset}, made once per carve or split. */
    private ArenaByteBuf newSlot(long offset, int c) {
        long bytes = (long) MIN_SLOT << c;
        int page = (int) (offset >> PAGE_SHIFT);
        ArenaByteBuf slot = new ArenaByteBuf(this, arena.segment().asSlice(offset, bytes).asByteBuffer(),
                arena.address() + offset, page, c);
        slots[page] = slot; // published to other threads by the free list's CAS when pushed
        return slot;
    }

    private ArenaByteBuf pop(int c) {
        int h = c * HEAD_STRIDE;
        while (true) {
            long head = heads.get(h);
            int top = (int) (head & PAGE_MASK);
            if (top == 0) {
                return null;
            }
            long successor = next.get(top - 1) & PAGE_MASK;
            if (heads.compareAndSet(h, head, ((head >>> 32) + 1) << 32 | successor)) {
                return slots[top - 1];
            }
        }
    }

    /** Called once per allocation by {@link ArenaByteBuf#deallocate()}: the slot is free again. */
    void free(ArenaByteBuf slot) {
        inUse.addAndGet(-slot.slotBytes());
        push(slot);
    }

    private void push(ArenaByteBuf slot) {
        int h = slot.sizeClass * HEAD_STRIDE;
        while (true) {
            long head = heads.get(h);
            next.set(slot.page, (int) head);
            if (heads.compareAndSet(h, head, ((head >>> 32) + 1) << 32 | (slot.page + 1))) {
                return;
            }
        }
    }

    private void raiseHighWater(long used) {
        long seen;
        while (used > (seen = highWater.get()) && !highWater.compareAndSet(seen, used)) {
            Thread.onSpinWait();
        }
    }

    /** Bytes of slots handed out and not yet released. */
    public long bytesInUse() {
        return inUse.get();
    }

    /** Counters for logs and status output (control path: allocates). */
    public ArenaStats stats() {
        return new ArenaStats(arena.size(), arena.isPinned(), carved.get(), inUse.get(), highWater.get(),
                allocations.sum(), fallbacks.sum(), splits.sum());
    }
}
