package org.jtarget.ha;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.jtarget.ha.DirtyRegionLogTest.EXTENT;
import static org.jtarget.ha.DirtyRegionLogTest.LENGTH;
import static org.jtarget.ha.DirtyRegionLogTest.REGION;
import static org.jtarget.ha.DirtyRegionLogTest.dirtyRegions;
import static org.jtarget.ha.DirtyRegionLogTest.open;

/** Many writers at once, writers waiting for a busy table, and the cost of a large LU's bitmap. */
@Timeout(60)
class DirtyRegionLogConcurrencyTest {

    private static final long WAIT_MS = 200;

    @TempDir
    Path dir;

    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void stopThreads() {
        threads.shutdownNow();
    }

    @Test
    void concurrentWritersKeepExactlyTheBitsOfTheWritesThePeerMissed() throws Exception {
        BitSet missed = new BitSet();
        try (DirtyRegionLog log = open(dir, 3)) { // 16 extents, 3 active: evictions and waits
            List<Future<?>> writers = new ArrayList<>();
            for (int t = 0; t < 5; t++) {
                writers.add(threads.submit(() -> writeRandomly(log, 600, missed)));
            }
            for (Future<?> writer : writers) {
                writer.get();
            }
            assertThat(dirtyRegions(log)).containsExactlyElementsOf(regions(missed));
        }
        try (DirtyRegionLog log = open(dir, 3)) {
            assertThat(log.extentsDirtiedAtOpen()).isZero();
            assertThat(dirtyRegions(log)).containsExactlyElementsOf(regions(missed));
        }
    }

    @Test
    void aWriteWaitsWhileEveryActiveExtentIsBusyAndGoesOnWhenOneEnds() throws Exception {
        try (DirtyRegionLog log = open(dir, 2)) {
            log.beginWrite(0, REGION);
            log.beginWrite(EXTENT, REGION);
            Future<?> third = threads.submit(() -> begin(log, 2 * EXTENT, REGION));
            assertStillWaiting(third);
            log.endWrite(EXTENT, REGION, true);
            third.get(5, TimeUnit.SECONDS);
            DirtyRegionLogCrashTest.copyTo(log, dir.resolve("crashed"));
        }
        try (DirtyRegionLog log = open(dir.resolve("crashed"), 2)) {
            assertThat(log.dirtyBytes()).isEqualTo(2 * EXTENT); // extents 0 and 2: 1 was evicted
            assertThat(log.nextDirtyRegion(0)).isZero();
            assertThat(log.nextDirtyRegion(DirtyRegionLogTest.EXTENT_REGIONS))
                    .isEqualTo(2 * DirtyRegionLogTest.EXTENT_REGIONS);
        }
    }

    @Test
    void aWaitingWriteHoldsNoneOfItsExtents() throws Exception {
        try (DirtyRegionLog log = open(dir, 2)) {
            log.beginWrite(0, REGION); // extent 0 busy
            Future<?> across = threads.submit(() -> begin(log, 2 * EXTENT - REGION, 2L * REGION)); // 1 and 2
            assertStillWaiting(across);
            log.beginWrite(EXTENT, REGION); // extent 1, active and idle: not held by the waiting write
            log.endWrite(0, REGION, true); // extent 0 idle: evicted for extent 2
            across.get(5, TimeUnit.SECONDS);
            log.endWrite(2 * EXTENT - REGION, 2L * REGION, false);
            log.endWrite(EXTENT, REGION, true);
            assertThat(dirtyRegions(log)).containsExactly(2L * DirtyRegionLogTest.EXTENT_REGIONS - 1,
                    2L * DirtyRegionLogTest.EXTENT_REGIONS);
        }
    }

    @Test
    void anInterruptedWaitFails() throws Exception {
        try (DirtyRegionLog log = open(dir, 1)) {
            log.beginWrite(0, REGION);
            CompletableFuture<Thread> waiter = new CompletableFuture<>();
            Future<?> second = threads.submit(() -> {
                waiter.complete(Thread.currentThread());
                begin(log, EXTENT, REGION);
            });
            assertStillWaiting(second);
            waiter.get().interrupt();
            assertThatThrownBy(() -> second.get(5, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                    .cause().cause().isInstanceOf(InterruptedIOException.class);
            log.endWrite(0, REGION, true);
        }
    }

    @Test
    void aLargeLuFlushesAndOpensQuicklyAndWritesOnlyChangedPages() throws IOException {
        long fourGiB = 4L << 30;
        long started = System.nanoTime();
        try (DirtyRegionLog log = DirtyRegionLog.open(dir, "big", fourGiB, REGION, 1024, 64)) {
            assertThat(log.regionCount()).isEqualTo(1L << 20);
            log.markAllDirty();
            assertThat(log.flushChangedPages()).isEqualTo(32); // 1 Mi bits: 128 KiB, 32 pages
            log.clear(12345);
            assertThat(log.flushChangedPages()).isEqualTo(1);
            assertThat(log.flushChangedPages()).isZero();
        }
        try (DirtyRegionLog log = DirtyRegionLog.open(dir, "big", fourGiB, REGION, 1024, 64)) {
            assertThat(log.dirtyBytes()).isEqualTo(fourGiB - REGION);
            assertThat(log.nextDirtyRegion(12345)).isEqualTo(12346);
        }
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).isLessThan(5_000);
    }

    @Test
    void writesOnAnActiveExtentAreCheap() throws IOException {
        try (DirtyRegionLog log = open(dir, 4)) {
            log.beginWrite(0, REGION); // activates extent 0 once
            long started = System.nanoTime();
            for (int i = 0; i < 1_000_000; i++) {
                log.beginWrite((i & 15) * REGION, REGION);
                log.endWrite((i & 15) * REGION, REGION, true);
            }
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).isLessThan(5_000);
            log.endWrite(0, REGION, true);
        }
    }

    /** Random writes of up to two regions; the regions of those the peer missed go into {@code missed}. */
    private static Void writeRandomly(DirtyRegionLog log, int writes, BitSet missed) throws IOException {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        for (int i = 0; i < writes; i++) {
            long region = random.nextLong(LENGTH / REGION - 1);
            long offset = region * REGION + random.nextInt(REGION);
            long length = 1 + random.nextInt(REGION);
            boolean replicated = random.nextInt(10) != 0;
            log.beginWrite(offset, length);
            if (!replicated) {
                synchronized (missed) {
                    missed.set((int) (offset / REGION), (int) ((offset + length - 1) / REGION) + 1);
                }
            }
            log.endWrite(offset, length, replicated);
        }
        return null;
    }

    private static void begin(DirtyRegionLog log, long offset, long length) {
        try {
            log.beginWrite(offset, length);
        } catch (IOException e) {
            throw new RuntimeException(e);
        }
    }

    private static void assertStillWaiting(Future<?> write) throws Exception {
        assertThatThrownBy(() -> write.get(WAIT_MS, TimeUnit.MILLISECONDS)).isInstanceOf(TimeoutException.class);
    }

    private static List<Long> regions(BitSet bits) {
        return bits.stream().mapToObj(Long::valueOf).toList();
    }
}
