package org.jtarget.buffer;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.IllegalReferenceCountException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntConsumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Size classes, alignment, fallback, reuse and thread safety of buffers carved from a pinned arena. */
class ArenaAllocatorTest {

    private static final PooledByteBufAllocator POOLED = new PooledByteBufAllocator(true);

    private final List<PinnedArena> arenas = new ArrayList<>();
    private final List<ArenaAllocator> allocators = new ArrayList<>();

    private ArenaAllocator allocator(long bytes) throws IOException {
        PinnedArena arena = PinnedArena.map(bytes, false);
        arenas.add(arena);
        ArenaAllocator a = new ArenaAllocator(arena, POOLED);
        allocators.add(a);
        return a;
    }

    @AfterEach
    void everyBufferCameBackAndTheArenasAreUnmapped() {
        for (ArenaAllocator a : allocators) {
            assertThat(a.bytesInUse()).as("arena bytes still in use (a leak)").isZero();
        }
        arenas.forEach(PinnedArena::close);
    }

    @Test
    void sizeClassesArePowerOfTwoPageMultiplesUpTo16MiB() {
        assertThat(ArenaAllocator.sizeClass(1)).isZero();
        assertThat(ArenaAllocator.sizeClass(4096)).isZero();
        assertThat(ArenaAllocator.sizeClass(4097)).isEqualTo(1);
        assertThat(ArenaAllocator.sizeClass(8192)).isEqualTo(1);
        assertThat(ArenaAllocator.sizeClass(1 << 20)).isEqualTo(8);
        assertThat(ArenaAllocator.sizeClass(16 << 20)).isEqualTo(ArenaAllocator.CLASSES - 1);
        assertThat(ArenaAllocator.sizeClass((16 << 20) + 1)).isEqualTo(-1);
        assertThat(ArenaAllocator.MAX_SLOT).as("the largest READ the SCSI core accepts fits one slot")
                .isGreaterThanOrEqualTo(org.jtarget.scsi.sbc.SbcLimits.MAX_TRANSFER_BYTES);
    }

    @Test
    void everyBufferIsPageAlignedInsideTheArenaWithTheCapacityAskedFor() throws IOException {
        ArenaAllocator a = allocator(64 << 20);
        List<ByteBuf> bufs = new ArrayList<>();
        try {
            for (int size : new int[] {1, 512, 4096, 4097, 65536, 100_000, 1 << 20, 16 << 20}) {
                ByteBuf b = a.directBuffer(size);
                bufs.add(b);
                assertThat(b.hasMemoryAddress()).isTrue();
                assertThat(b.memoryAddress() % PinnedArena.ALIGNMENT).as("alignment of %d", size).isZero();
                assertThat(a.arena().contains(b.memoryAddress(), b.maxCapacity())).isTrue();
                assertThat(b.capacity()).isEqualTo(size);
                assertThat(b.maxCapacity()).isEqualTo(ArenaAllocator.MIN_SLOT << ArenaAllocator.sizeClass(size));
                assertThat(b.isDirect()).isTrue();
                assertThat(b.nioBufferCount()).isEqualTo(1);
                assertThat(b.refCnt()).isEqualTo(1);
            }
            assertThat(a.stats().fallbacks()).isZero();
            assertThat(a.stats().allocations()).isEqualTo(8);
        } finally {
            bufs.forEach(ByteBuf::release);
        }
    }

    @Test
    void underParanoidLeakDetectionBuffersAreLeakAwareAndBehaveLikeNettyBuffers() throws IOException {
        ArenaAllocator a = allocator(1 << 20);
        ByteBuf b = a.directBuffer(10_000);
        try {
            assertThat(b.getClass().getSimpleName()).contains("LeakAware");
            b.writeLong(0x0102030405060708L).writeBytes(new byte[100]).writeInt(42);
            assertThat(b.readLong()).isEqualTo(0x0102030405060708L);
            assertThat(b.getInt(108)).isEqualTo(42);
            assertThat(b.nioBuffer(0, 8).getLong()).isEqualTo(0x0102030405060708L);
            ByteBuf copy = b.copy(0, 8);
            assertThat(copy.getLong(0)).isEqualTo(0x0102030405060708L);
            copy.release();
            b.ensureWritable(12_000); // grows in place inside its 16 KiB slot
            assertThat(b.capacity()).isGreaterThanOrEqualTo(b.writerIndex() + 12_000);
            assertThatThrownBy(() -> b.capacity(b.maxCapacity() + 1)).isInstanceOf(IllegalArgumentException.class);
        } finally {
            b.release();
        }
    }

    @Test
    void aReleasedSlotIsReusedAndItsBufferStartsFresh() throws IOException {
        ArenaAllocator a = allocator(1 << 20);
        ByteBuf first = a.directBuffer(4096).writeInt(7);
        long address = first.memoryAddress();
        first.release();
        ByteBuf second = a.directBuffer(3000);
        try {
            assertThat(second.memoryAddress()).isEqualTo(address);
            assertThat(second.readerIndex()).isZero();
            assertThat(second.writerIndex()).isZero();
            assertThat(second.capacity()).isEqualTo(3000);
            assertThat(second.refCnt()).isEqualTo(1);
            assertThat(a.stats().carvedBytes()).as("no second slot carved").isEqualTo(4096);
        } finally {
            second.release();
        }
    }

    @Test
    void anExhaustedArenaFallsBackToThePooledAllocatorAndCountsIt() throws IOException {
        ArenaAllocator a = allocator(64 << 10);
        List<ByteBuf> bufs = new ArrayList<>();
        try {
            for (int i = 0; i < 16; i++) {
                bufs.add(a.directBuffer(4096));
            }
            ByteBuf extra = a.directBuffer(4096);
            bufs.add(extra);
            ByteBuf tooBig = a.directBuffer(128 << 10);
            bufs.add(tooBig);
            assertThat(a.arena().contains(extra.memoryAddress(), 1)).isFalse();
            assertThat(a.arena().contains(tooBig.memoryAddress(), 1)).isFalse();
            ArenaStats s = a.stats();
            assertThat(s.allocations()).isEqualTo(16);
            assertThat(s.fallbacks()).isEqualTo(2);
            assertThat(s.inUseBytes()).isEqualTo(64 << 10);
            assertThat(s.highWaterBytes()).isEqualTo(64 << 10);
            assertThat(s.describe()).contains("fallbacks 2").contains("in use 64KiB");
        } finally {
            bufs.forEach(ByteBuf::release);
        }
        assertThat(a.stats().highWaterBytes()).isEqualTo(64 << 10);
    }

    @Test
    void whenNothingIsLeftToCarveAFreeLargerSlotIsHalvedDownToTheRequest() throws IOException {
        ArenaAllocator a = allocator(64 << 10);
        ByteBuf big = a.directBuffer(64 << 10);
        long address = big.memoryAddress();
        big.release();
        ByteBuf small = a.directBuffer(4096);
        List<ByteBuf> pieces = new ArrayList<>();
        try {
            assertThat(small.memoryAddress()).as("the first piece").isEqualTo(address);
            assertThat(small.maxCapacity()).isEqualTo(4096);
            assertThat(a.stats().inUseBytes()).as("only the piece is in use").isEqualTo(4096);
            assertThat(a.stats().splits()).isEqualTo(1);
            for (int size : new int[] {32 << 10, 16 << 10, 8 << 10, 4 << 10}) {
                ByteBuf piece = a.directBuffer(size);
                pieces.add(piece);
                assertThat(piece.memoryAddress()).as("the %d-byte piece", size).isEqualTo(address + size);
            }
            assertThat(a.stats().splits()).as("the halves served those without another split").isEqualTo(1);
            assertThat(a.stats().inUseBytes()).isEqualTo(64 << 10);
            assertThat(a.stats().fallbacks()).isZero();
        } finally {
            small.release();
            pieces.forEach(ByteBuf::release);
        }
        ByteBuf again = a.directBuffer(64 << 10);
        try {
            assertThat(a.arena().contains(again.memoryAddress(), 1)).as("split pieces never merge back").isFalse();
            assertThat(a.stats().fallbacks()).isEqualTo(1);
            assertThat(a.stats().describe()).contains("splits 1");
        } finally {
            again.release();
        }
    }

    /**
     * Issue 15: qemu-img over TCP carved the whole test arena into a few large slots; the next iSER
     * connection needed 272 registered 16 KiB buffers and got 8 (each lent a whole large slot).
     */
    @Test
    void anArenaCarvedIntoLargeSlotsServesManySmallRequestsOnceThoseAreFree() throws IOException {
        ArenaAllocator a = allocator(6 << 20);
        List<ByteBuf> large = new ArrayList<>();
        for (int size : new int[] {2 << 20, 1 << 20, 1 << 20, 1 << 20, 512 << 10, 256 << 10, 128 << 10, 128 << 10}) {
            large.add(a.directBuffer(size));
        }
        assertThat(a.stats().carvedBytes()).as("nothing left to carve").isEqualTo(6 << 20);
        assertThat(a.stats().fallbacks()).isZero();
        large.forEach(ByteBuf::release);

        List<ByteBuf> ring = new ArrayList<>();
        try {
            for (int i = 0; i < 272; i++) {
                ring.add(a.directBuffer(16 << 10));
            }
            assertThat(ring).allSatisfy(b -> assertThat(a.arena().contains(b.memoryAddress(), b.capacity())).isTrue());
            ArenaStats s = a.stats();
            assertThat(s.fallbacks()).isZero();
            assertThat(s.inUseBytes()).isEqualTo(272L * (16 << 10));
            assertThat(s.highWaterBytes()).isEqualTo(6 << 20);
            assertThat(s.carvedBytes()).as("split, not carved").isEqualTo(6 << 20);
            assertThat(s.splits()).isPositive();
            assertThat(a.directBuffer(1 << 20).release()).as("a remaining 1 MiB piece still serves 1 MiB").isTrue();
            assertThat(a.stats().fallbacks()).isZero();
        } finally {
            ring.forEach(ByteBuf::release);
        }
        assertThat(everyPageIsStillThere(a)).isTrue();
    }

    /** Takes 4 KiB buffers until the arena falls back: true when they covered the whole arena once. */
    private static boolean everyPageIsStillThere(ArenaAllocator a) {
        long fallbacksBefore = a.stats().fallbacks();
        long pages = a.arena().size() / PinnedArena.ALIGNMENT;
        List<ByteBuf> all = new ArrayList<>();
        Set<Long> addresses = new HashSet<>();
        try {
            while (a.stats().fallbacks() == fallbacksBefore && all.size() <= pages) {
                ByteBuf b = a.directBuffer(4096);
                all.add(b);
                if (a.arena().contains(b.memoryAddress(), 1)) {
                    addresses.add(b.memoryAddress());
                }
            }
            return all.size() == pages + 1 && addresses.size() == pages;
        } finally {
            all.forEach(ByteBuf::release);
        }
    }

    @Test
    void aDoubleReleaseIsRejectedAndTheFreeListStaysSound() throws IOException {
        ArenaAllocator a = allocator(1 << 20);
        ByteBuf b = a.directBuffer(4096);
        b.release();
        assertThatThrownBy(b::release).isInstanceOf(IllegalReferenceCountException.class);
        ByteBuf x = a.directBuffer(4096);
        ByteBuf y = a.directBuffer(4096);
        try {
            assertThat(x.memoryAddress()).as("the slot was freed once, so handed out once")
                    .isNotEqualTo(y.memoryAddress());
        } finally {
            x.release();
            y.release();
        }
    }

    @Test
    void manyThreadsNeverGetTheSameSlotTwice() throws Exception {
        ArenaAllocator a = allocator(8 << 20);
        int threads = 4;
        int rounds = 20_000;
        ConcurrentHashMap<Long, Integer> owners = new ConcurrentHashMap<>();
        onThreadsStartedTogether(threads, id -> churn(a, id, rounds, owners));
        assertThat(a.stats().allocations() + a.stats().fallbacks()).isEqualTo((long) threads * rounds);
    }

    /**
     * Threads race to split an arena carved into large free slots while others release their
     * pieces: no page is ever in two buffers at once (a page-owner map claimed by CAS, and a
     * pattern written on every page of a buffer and checked before its release), the counters add
     * up, and afterwards every page of the arena is still there exactly once.
     */
    @Test
    void concurrentSplitsAndReleasesOfMixedSizesNeverOverlapAndKeepTheCountersSound() throws Exception {
        ArenaAllocator a = allocator(8 << 20);
        List<ByteBuf> large = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            large.add(a.directBuffer(2 << 20));
        }
        large.forEach(ByteBuf::release);
        int threads = 4;
        int rounds = 4_000;
        AtomicIntegerArray pageOwners = new AtomicIntegerArray((int) (a.arena().size() / PinnedArena.ALIGNMENT));
        AtomicLong requests = new AtomicLong();
        onThreadsStartedTogether(threads, id -> requests.addAndGet(churnMixedSizes(a, id, rounds, pageOwners)));
        ArenaStats s = a.stats();
        assertThat(s.allocations() + s.fallbacks()).isEqualTo(requests.get() + 4);
        assertThat(s.allocations()).isPositive();
        assertThat(s.splits()).isPositive();
        assertThat(s.inUseBytes()).isZero();
        assertThat(s.carvedBytes()).isEqualTo(8 << 20);
        assertThat(s.highWaterBytes()).isBetween(2L << 20, 8L << 20);
        assertThat(everyPageIsStillThere(a)).as("no page lost or handed out twice").isTrue();
    }

    /**
     * Takes 1-4 buffers of 1 byte to 1 MiB, claims their pages and writes a pattern on each page,
     * yields, checks the pattern and the claim, releases. Returns the number of requests made.
     */
    private static long churnMixedSizes(ArenaAllocator a, int id, int rounds, AtomicIntegerArray pageOwners) {
        Random random = new Random(id);
        ByteBuf[] held = new ByteBuf[4];
        long requests = 0;
        for (int r = 0; r < rounds; r++) {
            int n = 1 + random.nextInt(held.length);
            for (int i = 0; i < n; i++, requests++) {
                held[i] = a.directBuffer(1 + random.nextInt(ArenaAllocator.MIN_SLOT << random.nextInt(9)));
                claimPages(a, held[i], 0, id, pageOwners);
                long tag = (long) id << 32 | r << 3 | i;
                for (int p = 0; p + 8 <= held[i].capacity(); p += PinnedArena.ALIGNMENT) {
                    held[i].setLong(p, tag + p);
                }
            }
            Thread.yield();
            for (int i = 0; i < n; i++) {
                long tag = (long) id << 32 | r << 3 | i;
                for (int p = 0; p + 8 <= held[i].capacity(); p += PinnedArena.ALIGNMENT) {
                    assertThat(held[i].getLong(p)).as("someone else wrote into my buffer").isEqualTo(tag + p);
                }
                claimPages(a, held[i], id, 0, pageOwners);
                held[i].release();
                held[i] = null;
            }
        }
        return requests;
    }

    /** Moves every page of an arena buffer's slot from owner {@code from} to {@code to}, or fails. */
    private static void claimPages(ArenaAllocator a, ByteBuf b, int from, int to, AtomicIntegerArray pageOwners) {
        if (!a.arena().contains(b.memoryAddress(), 1)) {
            return;
        }
        int first = (int) ((b.memoryAddress() - a.arena().address()) / PinnedArena.ALIGNMENT);
        for (int page = first; page < first + b.maxCapacity() / PinnedArena.ALIGNMENT; page++) {
            if (!pageOwners.compareAndSet(page, from, to)) {
                throw new AssertionError("page " + page + " belongs to " + pageOwners.get(page) + ", not " + from);
            }
        }
    }

    /** Runs {@code work} on {@code threads} threads (ids 1 to {@code threads}) released at once; fails with the first failure. */
    private static void onThreadsStartedTogether(int threads, IntConsumer work) throws InterruptedException {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> workers = new ArrayList<>();
        for (int id = 1; id <= threads; id++) {
            int workerId = id;
            workers.add(Thread.ofPlatform().start(() -> {
                try {
                    start.await();
                    work.accept(workerId);
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }));
        }
        start.countDown();
        for (Thread w : workers) {
            w.join();
        }
        assertThat(failure.get()).isNull();
    }

    /** Allocates 1-3 buffers of random classes, marks both ends, checks the marks, releases. */
    private static void churn(ArenaAllocator a, int id, int rounds, ConcurrentHashMap<Long, Integer> owners) {
        Random random = new Random(id);
        ByteBuf[] held = new ByteBuf[3];
        for (int r = 0; r < rounds; ) {
            int n = 1 + random.nextInt(3);
            for (int i = 0; i < n && r < rounds; i++, r++) {
                held[i] = a.directBuffer(1 + random.nextInt(256 << 10));
                long marker = ((long) id << 32) | r;
                int end = held[i].capacity() - 8;
                if (held[i].capacity() >= 16) {
                    held[i].setLong(0, marker).setLong(end, marker);
                }
                if (a.arena().contains(held[i].memoryAddress(), 1)) {
                    assertThat(owners.putIfAbsent(held[i].memoryAddress(), id)).as("slot handed out twice").isNull();
                }
            }
            Thread.yield();
            for (int i = 0; i < n && held[i] != null; i++) {
                ByteBuf b = held[i];
                if (b.capacity() >= 16) {
                    assertThat(b.getLong(0) >>> 32).as("someone else wrote into my buffer").isEqualTo(id);
                    assertThat(b.getLong(0)).isEqualTo(b.getLong(b.capacity() - 8));
                }
                if (a.arena().contains(b.memoryAddress(), 1)) {
                    owners.remove(b.memoryAddress());
                }
                b.release();
                held[i] = null;
            }
        }
    }
}
