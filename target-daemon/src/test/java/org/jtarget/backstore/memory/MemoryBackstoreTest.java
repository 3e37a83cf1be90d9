package org.jtarget.backstore.memory;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import org.jtarget.backstore.spi.Backstore;
import org.jtarget.backstore.spi.StoreException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MemoryBackstoreTest {

    private static final int CHUNK = 8192;
    private final ByteBufAllocator alloc = new PooledByteBufAllocator(true);
    private final List<ByteBuf> buffers = new ArrayList<>();
    private MemoryBackstore store;

    /** 64 blocks of 512 = 32 KiB in 4 chunks of 8 KiB. */
    private MemoryBackstore thinStore() throws StoreException {
        store = new MemoryBackstore("ram0", 512, 64, true, false, CHUNK);
        return store;
    }

    private ByteBuf pattern(int bytes, int seed) {
        ByteBuf b = alloc.directBuffer(bytes);
        buffers.add(b);
        for (int i = 0; i < bytes; i++) {
            b.writeByte((byte) (seed + i * 7));
        }
        return b;
    }

    private byte[] read(long lba, int blocks) throws Exception {
        ByteBuf dst = alloc.directBuffer(blocks * 512);
        try {
            store.read(lba, blocks, dst);
            byte[] out = new byte[dst.readableBytes()];
            dst.readBytes(out);
            return out;
        } finally {
            dst.release();
        }
    }

    private static byte[] bytes(ByteBuf b) {
        byte[] out = new byte[b.readableBytes()];
        b.getBytes(b.readerIndex(), out);
        return out;
    }

    @AfterEach
    void release() {
        buffers.forEach(ByteBuf::release);
        if (store != null) {
            store.close();
        }
    }

    @Test
    void describesItself() throws Exception {
        thinStore();
        assertThat(store.info().sizeBytes()).isEqualTo(32768);
        assertThat(store.info().identitySeed()).isEqualTo("memory:ram0");
        assertThat(store.info().thin()).isTrue();
        assertThat(store.isNonBlocking()).isTrue();
        assertThat(store.supportsUnmap()).isTrue();
    }

    @Test
    void unwrittenBlocksReadAsZerosAndAllocateNothing() throws Exception {
        thinStore();
        assertThat(read(0, 64)).containsOnly(0);
        assertThat(store.allocatedChunks()).isZero();
    }

    @Test
    void writeThenReadAcrossChunkBoundaries() throws Exception {
        thinStore();
        ByteBuf src = pattern(20 * 512, 3);
        int readerIndex = src.readerIndex();
        store.write(10, src, false);
        assertThat(src.readerIndex()).isEqualTo(readerIndex);
        assertThat(src.readableBytes()).isEqualTo(20 * 512);
        assertThat(read(10, 20)).isEqualTo(bytes(src));
        assertThat(read(9, 1)).containsOnly(0);
        assertThat(read(30, 1)).containsOnly(0);
        assertThat(store.allocatedChunks()).isEqualTo(2);
    }

    @Test
    void readAppendsAtTheWriterIndex() throws Exception {
        thinStore();
        store.write(0, pattern(512, 1), false);
        ByteBuf dst = alloc.directBuffer(1024);
        try {
            dst.writeInt(0x01020304);
            store.read(0, 1, dst);
            assertThat(dst.readableBytes()).isEqualTo(516);
            assertThat(dst.readInt()).isEqualTo(0x01020304);
            assertThat(dst.readByte()).isEqualTo((byte) 1);
        } finally {
            dst.release();
        }
    }

    @Test
    void compositeSourceIsWrittenInOrder() throws Exception {
        thinStore();
        ByteBuf a = pattern(512, 5);
        ByteBuf b = pattern(8192, 9);
        CompositeByteBuf composite = alloc.compositeDirectBuffer();
        composite.addComponents(true, a.retainedSlice(), b.retainedSlice());
        try {
            store.write(15, composite, true);
            byte[] expected = new byte[512 + 8192];
            a.getBytes(0, expected, 0, 512);
            b.getBytes(0, expected, 512, 8192);
            assertThat(read(15, 17)).isEqualTo(expected);
        } finally {
            composite.release();
        }
    }

    @Test
    void unmapFreesWholeChunksAndZeroesPartialOnes() throws Exception {
        thinStore();
        store.write(0, pattern(64 * 512, 1), false);
        assertThat(store.allocatedChunks()).isEqualTo(4);
        store.unmap(8, 40); // bytes 4096..24575: half of chunk 0, all of chunk 1 and 2
        assertThat(store.allocatedChunks()).isEqualTo(2);
        assertThat(read(8, 40)).containsOnly(0);
        assertThat(read(0, 8)).isEqualTo(java.util.Arrays.copyOf(bytes(buffers.get(0)), 4096));
        assertThat(read(48, 16)).isEqualTo(java.util.Arrays.copyOfRange(bytes(buffers.get(0)), 24576, 32768));
    }

    @Test
    void provisioningRunsFollowAllocatedChunks() throws Exception {
        thinStore();
        store.write(16, pattern(512, 3), false); // allocates chunk 1 (blocks 16..31)
        assertThat(store.provisioningRun(0, 64)).isEqualTo(new Backstore.ProvisioningRun(false, 16));
        assertThat(store.provisioningRun(20, 44)).isEqualTo(new Backstore.ProvisioningRun(true, 12));
        assertThat(store.provisioningRun(32, 32)).isEqualTo(new Backstore.ProvisioningRun(false, 32));
    }

    @Test
    void provisioningRunStopsAtMaxBlocks() throws Exception {
        thinStore();
        store.write(0, pattern(64 * 512, 4), false);
        assertThat(store.provisioningRun(3, 10)).isEqualTo(new Backstore.ProvisioningRun(true, 10));
    }

    @Test
    void unmapGranularityIsOneChunk() throws Exception {
        assertThat(thinStore().unmapGranularityBlocks()).isEqualTo(CHUNK / 512);
    }

    @Test
    void aShortLastChunkHoldsTheTail() throws Exception {
        store = new MemoryBackstore("odd", 512, 20, true, false, CHUNK); // 10 KiB: chunks of 8 KiB + 2 KiB
        ByteBuf src = pattern(4 * 512, 2);
        store.write(14, src, false);
        assertThat(read(14, 4)).isEqualTo(bytes(src));
        assertThat(store.allocatedChunks()).isEqualTo(2);
        store.unmap(16, 4);
        assertThat(store.allocatedChunks()).isEqualTo(1);
        store.unmap(0, 20);
        assertThat(store.allocatedChunks()).isZero();
    }

    @Test
    void fullyProvisionedStoreAllocatesUpFrontAndCannotUnmap() throws Exception {
        store = new MemoryBackstore("thick", 4096, 8, false, true, CHUNK);
        assertThat(store.allocatedChunks()).isEqualTo(4);
        assertThat(store.supportsUnmap()).isFalse();
        assertThat(store.info().writeCacheEnabled()).isTrue();
        assertThatThrownBy(() -> store.unmap(0, 1)).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void concurrentWritersToDifferentChunksAndTheSameChunk() throws Exception {
        store = new MemoryBackstore("ram", 512, 1024, true, false, CHUNK); // 64 chunks
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Callable<Void>> tasks = new ArrayList<>();
            for (int t = 0; t < 64; t++) {
                int block = t * 16 + (t % 16); // each task one block, 4 tasks per chunk region pair
                ByteBuf src = pattern(512, t);
                tasks.add(() -> {
                    store.write(block, src, false);
                    return null;
                });
            }
            for (Future<Void> f : pool.invokeAll(tasks)) {
                f.get();
            }
        } finally {
            pool.shutdown();
        }
        for (int t = 0; t < 64; t++) {
            assertThat(read(t * 16 + (t % 16), 1)).isEqualTo(bytes(buffers.get(t)));
        }
        assertThat(store.allocatedChunks()).isEqualTo(64);
    }

    @Test
    void closedStoreReportsMediumGone() throws Exception {
        thinStore();
        store.close();
        store.close();
        ByteBuf dst = alloc.directBuffer(512);
        try {
            assertThatThrownBy(() -> store.read(0, 1, dst)).isInstanceOf(StoreException.class)
                    .extracting(e -> ((StoreException) e).kind()).isEqualTo(StoreException.Kind.MEDIUM_GONE);
        } finally {
            dst.release();
        }
    }

    @Test
    void outOfRangeIsABug() throws Exception {
        thinStore();
        ByteBuf src = pattern(1024, 0);
        assertThatThrownBy(() -> store.write(63, src, false)).isInstanceOf(IllegalArgumentException.class);
    }

    private static StoreException.Kind kindOf(Throwable e) {
        return ((StoreException) e).kind();
    }

    @Test
    void thinWritePastTheBudgetIsSpaceExhaustedAndUnmapGivesItBack() throws Exception {
        MemoryBudget budget = new MemoryBudget(2L * CHUNK);
        store = new MemoryBackstore("capped", 512, 64, true, false, CHUNK, budget); // 4 chunks, budget 2
        store.write(0, pattern(512, 1), false);
        store.write(16, pattern(512, 2), false);
        assertThat(budget.used()).isEqualTo(2L * CHUNK);
        ByteBuf third = pattern(512, 3);
        assertThatThrownBy(() -> store.write(32, third, false)).isInstanceOf(StoreException.class)
                .extracting(MemoryBackstoreTest::kindOf).isEqualTo(StoreException.Kind.SPACE_EXHAUSTED);
        assertThat(budget.refusals()).isEqualTo(1);
        store.write(1, pattern(512, 4), false); // an allocated chunk still takes writes
        assertThat(read(0, 1)).isEqualTo(bytes(buffers.get(0)));

        store.unmap(0, 16);
        assertThat(budget.used()).isEqualTo(CHUNK);
        store.write(32, third, false);
        assertThat(read(32, 1)).isEqualTo(bytes(third));
        assertThat(read(0, 2)).containsOnly(0);
        store.close();
        assertThat(budget.used()).isZero();
    }

    @Test
    void fullyProvisionedStoreTakesItsWholeSizeOrRefusesToOpen() throws Exception {
        MemoryBudget budget = new MemoryBudget(6L * CHUNK);
        store = new MemoryBackstore("thick", 4096, 8, false, true, CHUNK, budget); // 32 KiB
        assertThat(budget.used()).isEqualTo(4L * CHUNK);
        assertThatThrownBy(() -> new MemoryBackstore("second", 4096, 8, false, true, CHUNK, budget))
                .isInstanceOf(StoreException.class).hasMessageContaining("daemon.memory-limit")
                .extracting(MemoryBackstoreTest::kindOf).isEqualTo(StoreException.Kind.SPACE_EXHAUSTED);
        assertThat(budget.used()).isEqualTo(4L * CHUNK);
        store.close();
        assertThat(budget.used()).isZero();
    }

    @Test
    void concurrentWritersAndUnmapsNeverExceedTheBudget() throws Exception {
        MemoryBudget budget = new MemoryBudget(5L * CHUNK);
        store = new MemoryBackstore("race", 512, 1024, true, false, CHUNK, budget); // 64 chunks
        ExecutorService pool = Executors.newFixedThreadPool(4);
        List<ByteBuf> sources = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            sources.add(pattern(512, t));
        }
        try {
            List<Callable<int[]>> tasks = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int id = t;
                tasks.add(() -> {
                    int ok = 0;
                    int refused = 0;
                    for (int i = 0; i < 2000; i++) {
                        int chunk = (i * 7 + id * 13) % 64;
                        try {
                            store.write(chunk * 16L, sources.get(id), false);
                            ok++;
                        } catch (StoreException e) {
                            refused++;
                        }
                        assertThat(budget.used()).isLessThanOrEqualTo(budget.limit());
                        if (i % 3 == id % 3) {
                            store.unmap(((i * 5 + id) % 64) * 16L, 16);
                        }
                    }
                    return new int[] {ok, refused};
                });
            }
            int ok = 0;
            for (Future<int[]> f : pool.invokeAll(tasks)) {
                ok += f.get()[0];
            }
            assertThat(ok).isPositive();
        } finally {
            pool.shutdown();
        }
        assertThat(budget.used()).isEqualTo((long) store.allocatedChunks() * CHUNK);
        store.close();
        assertThat(budget.used()).isZero();
    }

    /**
     * A live resize: a store of 40 blocks (its last chunk partial) grows to 100; data written
     * before stays, the new blocks read as zeros and take writes, also across the old end, and
     * UNMAP, GET LBA STATUS and the budget work over both extents.
     */
    @Test
    void growsLiveKeepingDataAndReadingNewBlocksAsZeros() throws Exception {
        MemoryBudget budget = new MemoryBudget(1L << 20);
        store = new MemoryBackstore("grow", 512, 40, true, false, CHUNK, budget);
        ByteBuf before = pattern(40 * 512, 3);
        store.write(0, before, false);
        assertThatThrownBy(() -> read(40, 1)).isInstanceOf(IllegalArgumentException.class);

        store.grow(100);

        assertThat(store.info().blockCount()).isEqualTo(100);
        assertThat(read(0, 40)).isEqualTo(bytes(before));
        assertThat(read(40, 60)).isEqualTo(new byte[60 * 512]);
        ByteBuf across = pattern(8 * 512, 9);
        store.write(36, across, false); // 4 old blocks, 4 new ones
        assertThat(read(36, 8)).isEqualTo(bytes(across));
        assertThat(store.provisioningRun(60, 40)).isEqualTo(new Backstore.ProvisioningRun(false, 40));
        assertThat(budget.used()).isEqualTo(store.allocatedBytes());
        store.unmap(0, 100);
        assertThat(read(0, 100)).isEqualTo(new byte[100 * 512]);
        assertThat(budget.used()).isZero();
        assertThatThrownBy(() -> store.grow(100)).isInstanceOf(IllegalArgumentException.class);
    }

    /** A fully provisioned store takes the new blocks' memory from the budget when it grows, or refuses. */
    @Test
    void aFullyProvisionedStoreGrowsOnlyWithinTheBudget() throws Exception {
        MemoryBudget budget = new MemoryBudget(3L * CHUNK);
        store = new MemoryBackstore("thick", 512, 16, false, false, CHUNK, budget); // one chunk
        store.grow(48);
        assertThat(budget.used()).isEqualTo(3L * CHUNK);
        assertThat(store.allocatedBytes()).isEqualTo(3L * CHUNK);
        assertThatThrownBy(() -> store.grow(64)).isInstanceOf(StoreException.class)
                .extracting(e -> ((StoreException) e).kind()).isEqualTo(StoreException.Kind.SPACE_EXHAUSTED);
        assertThat(store.info().blockCount()).isEqualTo(48);
        store.close();
        assertThat(budget.used()).isZero();
    }
}
