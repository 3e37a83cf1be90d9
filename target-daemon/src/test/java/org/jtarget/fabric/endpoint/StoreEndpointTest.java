package org.jtarget.fabric.endpoint;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import org.jtarget.backstore.memory.MemoryBackstore;
import org.jtarget.backstore.spi.Backstore;
import org.jtarget.backstore.spi.BackstoreInfo;
import org.jtarget.rdma.Errno;
import org.jtarget.rdma.MemoryRegion;
import org.jtarget.rdma.QueuePairState;
import org.jtarget.rdma.RdmaException;
import org.jtarget.rdma.RdmaFixture;
import org.jtarget.rdma.SendFlags;
import org.jtarget.rdma.WorkCompletion;
import org.jtarget.rdma.WorkCompletionStatus;
import org.jtarget.rdma.WorkRequest;
import org.jtarget.rdma.WorkRequestOpcode;
import org.jtarget.rdma.loopback.LoopbackDevice;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayDeque;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.jtarget.rdma.RdmaFixture.ALL;
import static org.jtarget.rdma.RdmaFixture.rdma;

/**
 * A memory store exposed through a store endpoint over the loopback provider: queue pair {@code a}
 * is the client (requester), {@code b} the endpoint's queue pair. Store I/O runs on a manual executor
 * the test drains, in order or reversed, so completion order is deterministic.
 */
class StoreEndpointTest {

    private static final int BS = 512;
    private static final long BLOCKS = 64;
    private static final String PEER = "10.0.0.1";

    private final ArrayDeque<Runnable> io = new ArrayDeque<>();
    private RdmaFixture f;
    private MemoryBackstore store;
    private MemoryRegion local;

    @BeforeEach
    void setUp() throws Exception {
        f = new RdmaFixture(new LoopbackDevice(), 16, 4).connect();
        store = new MemoryBackstore("m", BS, BLOCKS, false, false, 4096);
        local = f.register(16 * BS, ALL);
    }

    @AfterEach
    void tearDown() throws IOException {
        io.clear();
        f.close();
        store.close();
    }

    private StoreEndpoint endpoint(StoreEndpointSettings settings, Backstore backstore) throws RdmaException {
        StoreEndpoint ep = StoreEndpoint.register(f.pd, backstore, settings, io::add, ByteBufAllocator.DEFAULT);
        ep.admit(f.b, PEER);
        return ep;
    }

    private StoreEndpoint endpoint(StoreEndpointSettings settings) throws RdmaException {
        return endpoint(settings, store);
    }

    private void runIo() {
        Runnable r;
        while ((r = io.poll()) != null) {
            r.run();
        }
    }

    private void runIoReversed() {
        Runnable r;
        while ((r = io.pollLast()) != null) {
            r.run();
        }
    }

    private WorkRequest op(WorkRequestOpcode opcode, long wrId, int localOffset, int length, long remote, int rkey) {
        WorkRequest wr = rdma(opcode, wrId, local, localOffset, length, remote, rkey);
        wr.sendFlags |= SendFlags.SIGNALED;
        return wr;
    }

    private byte[] storeBytes(long lba, int blocks) throws IOException {
        return storeBytes(store, lba, blocks);
    }

    /** {@code blocks} blocks of {@code store} at {@code lba}, read straight from the store. */
    static byte[] storeBytes(Backstore store, long lba, int blocks) throws IOException {
        int bytes = blocks * store.info().blockSize();
        ByteBuf buf = Unpooled.buffer(bytes);
        try {
            store.read(lba, blocks, buf);
            byte[] out = new byte[bytes];
            buf.readBytes(out);
            return out;
        } finally {
            buf.release();
        }
    }

    private byte[] localBytes(long offset, int length) {
        return local.segment().asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE);
    }

    private static byte[] pattern(int length, int seed) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (seed + i * 31);
        }
        return b;
    }

    private void putLocal(long offset, byte[] data) {
        MemorySegment.copy(MemorySegment.ofArray(data), 0, local.segment(), offset, data.length);
    }

    @Test
    void writeThenReadRoundTripsThroughTheStore() throws Exception {
        StoreEndpoint ep = endpoint(StoreEndpointSettings.wholeStore(Set.of(PEER)));
        byte[] data = pattern(2 * BS, 7);
        putLocal(0, data);
        f.a.postSend(op(WorkRequestOpcode.RDMA_WRITE, 1, 0, 2 * BS, BS, ep.rkey()));
        assertThat(f.pollAll(f.cqA)).as("completes only when the store has it").isEmpty();
        runIo();
        assertThat(storeBytes(1, 2)).isEqualTo(data);
        f.a.postSend(op(WorkRequestOpcode.RDMA_READ, 2, 4 * BS, 2 * BS, BS, ep.rkey()));
        runIo();
        assertThat(localBytes(4 * BS, 2 * BS)).isEqualTo(data);
        assertThat(f.pollAll(f.cqA)).extracting(wc -> wc.wrId + ":" + wc.status + ":" + wc.byteLen)
                .containsExactly("1:SUCCESS:1024", "2:SUCCESS:1024");
        assertThat(ep.length()).isEqualTo(BLOCKS * BS);
    }

    @Test
    void aPartitionMapsAddressZeroToItsFirstBlockAndTouchesNothingOutside() throws Exception {
        StoreEndpoint ep = endpoint(new StoreEndpointSettings(false, Set.of(PEER), 8, 4));
        byte[] data = pattern(4 * BS, 3);
        putLocal(0, data);
        f.a.postSend(op(WorkRequestOpcode.RDMA_WRITE, 1, 0, 4 * BS, 0, ep.rkey()));
        runIo();
        assertThat(storeBytes(8, 4)).isEqualTo(data);
        assertThat(storeBytes(0, 8)).as("before the partition").containsOnly(0);
        assertThat(storeBytes(12, 52)).as("after the partition").containsOnly(0);
        assertThat(f.pollOne(f.cqA).status).isEqualTo(WorkCompletionStatus.SUCCESS);
    }

    @Test
    void accessBeyondThePartitionIsRefusedAndNeverReachesTheStore() throws Exception {
        StoreEndpoint ep = endpoint(new StoreEndpointSettings(false, Set.of(PEER), 8, 4));
        putLocal(0, pattern(2 * BS, 5));
        f.a.postSend(op(WorkRequestOpcode.RDMA_WRITE, 1, 0, 2 * BS, 3 * BS, ep.rkey()));
        assertThat(io).as("no store I/O was started").isEmpty();
        assertThat(f.pollOne(f.cqA).status).isEqualTo(WorkCompletionStatus.REM_ACCESS_ERR);
        assertThat(f.a.state()).isEqualTo(QueuePairState.ERROR);
        assertThat(f.b.state()).isEqualTo(QueuePairState.ERROR);
        assertThat(storeBytes(0, (int) BLOCKS)).containsOnly(0);
    }

    @Test
    void aReadOnlyEndpointRefusesWritesButServesReads() throws Exception {
        StoreEndpoint ep = endpoint(new StoreEndpointSettings(true, Set.of(PEER), 0, 0));
        putLocal(0, pattern(BS, 9));
        f.a.postSend(op(WorkRequestOpcode.RDMA_READ, 1, BS, BS, 0, ep.rkey()));
        runIo();
        assertThat(f.pollOne(f.cqA).status).isEqualTo(WorkCompletionStatus.SUCCESS);
        f.a.postSend(op(WorkRequestOpcode.RDMA_WRITE, 2, 0, BS, 0, ep.rkey()));
        assertThat(io).isEmpty();
        assertThat(f.pollOne(f.cqA).status).isEqualTo(WorkCompletionStatus.REM_ACCESS_ERR);
        assertThat(f.b.state()).isEqualTo(QueuePairState.ERROR);
        assertThat(storeBytes(0, 1)).containsOnly(0);
    }

    @Test
    void accessesThatAreNotWholeBlocksAreRefused() throws Exception {
        StoreEndpoint ep = endpoint(StoreEndpointSettings.wholeStore(Set.of(PEER)));
        putLocal(0, pattern(2 * BS, 1));
        f.a.postSend(op(WorkRequestOpcode.RDMA_WRITE, 1, 0, BS, 100, ep.rkey()));
        assertThat(io).isEmpty();
        assertThat(f.pollOne(f.cqA).status).isEqualTo(WorkCompletionStatus.REM_ACCESS_ERR);
        assertThat(storeBytes(0, 2)).containsOnly(0);
    }

    @Test
    void aPartialBlockLengthIsRefused() throws Exception {
        StoreEndpoint ep = endpoint(StoreEndpointSettings.wholeStore(Set.of(PEER)));
        f.a.postSend(op(WorkRequestOpcode.RDMA_READ, 1, 0, 100, 0, ep.rkey()));
        assertThat(io).isEmpty();
        assertThat(f.pollOne(f.cqA).status).isEqualTo(WorkCompletionStatus.REM_ACCESS_ERR);
    }

    @Test
    void aPeerThatIsNotAllowedIsNotAdmittedAndItsAccessesAreRefused() throws Exception {
        StoreEndpoint ep = StoreEndpoint.register(f.pd, store,
                StoreEndpointSettings.wholeStore(Set.of(PEER)), io::add, ByteBufAllocator.DEFAULT);
        assertThat(ep.admit(f.b, "10.0.0.2")).isFalse();
        f.a.postSend(op(WorkRequestOpcode.RDMA_READ, 1, 0, BS, 0, ep.rkey()));
        assertThat(io).isEmpty();
        assertThat(f.pollOne(f.cqA).status).isEqualTo(WorkCompletionStatus.REM_ACCESS_ERR);
    }

    @Test
    void anEmptyPeerListAdmitsNobody() throws Exception {
        StoreEndpoint ep = StoreEndpoint.register(f.pd, store,
                StoreEndpointSettings.wholeStore(Set.of()), io::add, ByteBufAllocator.DEFAULT);
        assertThat(ep.admit(f.b, PEER)).isFalse();
    }

    @Test
    void aStoreWriteErrorCompletesRemOpErrAndLeavesTheStoreIntact() throws Exception {
        StoreEndpoint ep = endpoint(StoreEndpointSettings.wholeStore(Set.of(PEER)), new FailingStore(store));
        putLocal(0, pattern(BS, 2));
        f.a.postSend(op(WorkRequestOpcode.RDMA_WRITE, 1, 0, BS, 0, ep.rkey()));
        runIo();
        assertThat(f.pollOne(f.cqA).status).isEqualTo(WorkCompletionStatus.REM_OP_ERR);
        assertThat(f.a.state()).isEqualTo(QueuePairState.ERROR);
        assertThat(storeBytes(0, 1)).containsOnly(0);
    }

    @Test
    void aStoreReadErrorCompletesRemOpErrAndPlacesNothing() throws Exception {
        StoreEndpoint ep = endpoint(StoreEndpointSettings.wholeStore(Set.of(PEER)), new FailingStore(store));
        f.a.postSend(op(WorkRequestOpcode.RDMA_READ, 1, 0, BS, 0, ep.rkey()));
        runIo();
        WorkCompletion wc = f.pollOne(f.cqA);
        assertThat(wc.status).isEqualTo(WorkCompletionStatus.REM_OP_ERR);
        assertThat(wc.byteLen).isZero();
    }

    @Test
    void withoutFenceAReadOfTheSameBlocksMayOvertakeTheWrite() throws Exception {
        StoreEndpoint ep = endpoint(StoreEndpointSettings.wholeStore(Set.of(PEER)));
        byte[] data = pattern(BS, 4);
        putLocal(0, data);
        f.a.postSend(op(WorkRequestOpcode.RDMA_WRITE, 1, 0, BS, 0, ep.rkey()));
        f.a.postSend(op(WorkRequestOpcode.RDMA_READ, 2, BS, BS, 0, ep.rkey()));
        assertThat(io).as("both accesses started").hasSize(2);
        runIoReversed();
        assertThat(localBytes(BS, BS)).as("the READ ran first: old data").containsOnly(0);
        assertThat(storeBytes(0, 1)).isEqualTo(data);
        assertThat(f.pollAll(f.cqA)).as("completions still in post order").extracting(wc -> wc.wrId)
                .containsExactly(1L, 2L);
    }

    @Test
    void aFencedReadWaitsForThePriorStoreWrite() throws Exception {
        StoreEndpoint ep = endpoint(StoreEndpointSettings.wholeStore(Set.of(PEER)));
        byte[] data = pattern(BS, 6);
        putLocal(0, data);
        f.a.postSend(op(WorkRequestOpcode.RDMA_WRITE, 1, 0, BS, 0, ep.rkey()));
        WorkRequest read = op(WorkRequestOpcode.RDMA_READ, 2, BS, BS, 0, ep.rkey());
        read.sendFlags |= SendFlags.FENCE;
        f.a.postSend(read);
        assertThat(io).as("the READ is held").hasSize(1);
        io.poll().run();
        assertThat(io).as("the READ started when the WRITE completed").hasSize(1);
        runIo();
        assertThat(localBytes(BS, BS)).isEqualTo(data);
        assertThat(f.pollAll(f.cqA)).extracting(wc -> wc.wrId).containsExactly(1L, 2L);
    }

    @Test
    void aBarrierOrdersAStoreWriteBeforeALaterRead() throws Exception {
        StoreEndpoint ep = endpoint(StoreEndpointSettings.wholeStore(Set.of(PEER)));
        byte[] data = pattern(BS, 8);
        putLocal(0, data);
        f.a.postSend(op(WorkRequestOpcode.RDMA_WRITE, 1, 0, BS, 0, ep.rkey()));
        assertThat(f.a.postBarrier(2)).isEqualTo(Errno.OK);
        f.a.postSend(op(WorkRequestOpcode.RDMA_READ, 3, BS, BS, 0, ep.rkey()));
        assertThat(io).as("the READ waits behind the barrier").hasSize(1);
        io.poll().run();
        assertThat(io).hasSize(1);
        runIo();
        assertThat(localBytes(BS, BS)).isEqualTo(data);
        assertThat(f.pollAll(f.cqA)).extracting(wc -> wc.wrId + ":" + wc.opcode)
                .containsExactly("1:RDMA_WRITE", "2:BARRIER", "3:RDMA_READ");
    }

    @Test
    void theEndpointCannotBeClosedWhileAnAccessIsInProgress() throws Exception {
        StoreEndpoint ep = endpoint(StoreEndpointSettings.wholeStore(Set.of(PEER)));
        f.a.postSend(op(WorkRequestOpcode.RDMA_READ, 1, 0, BS, 0, ep.rkey()));
        assertThatThrownBy(ep::close).isInstanceOfSatisfying(RdmaException.class,
                e -> assertThat(e.errno()).isEqualTo(Errno.EBUSY));
        runIo();
        ep.close();
        assertThat(f.device.lookupRegion(ep.rkey(), true)).isNull();
    }

    @Test
    void writesAreForceUnitAccessUnlessWriteBackIsChosen() throws Exception {
        RecordingStore recording = new RecordingStore(store);
        StoreEndpoint durable = endpoint(StoreEndpointSettings.wholeStore(Set.of(PEER)), recording);
        f.a.postSend(op(WorkRequestOpcode.RDMA_WRITE, 1, 0, BS, 0, durable.rkey()));
        runIo();
        StoreEndpoint cached = endpoint(new StoreEndpointSettings(false, Set.of(PEER), 0, 0, false), recording);
        f.a.postSend(op(WorkRequestOpcode.RDMA_WRITE, 2, 0, BS, BS, cached.rkey()));
        runIo();
        assertThat(recording.fua).containsExactly(true, false);
    }

    @Test
    void aQueuePairReusedForAPeerThatIsNotAllowedLosesItsAccess() throws Exception {
        StoreEndpoint ep = endpoint(StoreEndpointSettings.wholeStore(Set.of(PEER)));
        assertThat(ep.admit(f.b, "192.0.2.1")).isFalse();
        f.a.postSend(op(WorkRequestOpcode.RDMA_READ, 1, 0, BS, 0, ep.rkey()));
        assertThat(f.pollOne(f.cqA).status).isEqualTo(WorkCompletionStatus.REM_ACCESS_ERR);
    }

    @Test
    void manyConcurrentStoreAccessesOnARealExecutorAllLandBehindABarrier() throws Exception {
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(4);
        try {
            StoreEndpoint ep = StoreEndpoint.register(f.pd, store, StoreEndpointSettings.wholeStore(Set.of(PEER)),
                    pool, ByteBufAllocator.DEFAULT);
            ep.admit(f.b, PEER);
            byte[] data = pattern(8 * BS, 11);
            putLocal(0, data);
            for (int i = 0; i < 8; i++) {
                f.a.postSend(op(WorkRequestOpcode.RDMA_WRITE, i, i * BS, BS, (7 - i) * BS, ep.rkey()));
            }
            f.a.postBarrier(100);
            f.a.postSend(op(WorkRequestOpcode.RDMA_READ, 101, 8 * BS, 8 * BS, 0, ep.rkey()));
            java.util.List<WorkCompletion> wcs = new java.util.ArrayList<>();
            long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(20);
            while (wcs.size() < 10 && System.nanoTime() < deadline) {
                wcs.addAll(f.pollAll(f.cqA));
                Thread.onSpinWait();
            }
            assertThat(wcs).extracting(wc -> wc.wrId)
                    .containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 100L, 101L);
            assertThat(wcs).extracting(wc -> wc.status).containsOnly(WorkCompletionStatus.SUCCESS);
            for (int i = 0; i < 8; i++) {
                assertThat(localBytes(8 * BS + (7 - i) * BS, BS)).as("block %d", 7 - i)
                        .isEqualTo(java.util.Arrays.copyOfRange(data, i * BS, (i + 1) * BS));
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void anExecutorThatRefusesWorkFailsTheAccessWithRemOpErr() throws Exception {
        StoreEndpoint ep = StoreEndpoint.register(f.pd, store, StoreEndpointSettings.wholeStore(Set.of(PEER)),
                task -> {
                    throw new java.util.concurrent.RejectedExecutionException("shut down");
                }, ByteBufAllocator.DEFAULT);
        ep.admit(f.b, PEER);
        putLocal(0, pattern(BS, 3));
        f.a.postSend(op(WorkRequestOpcode.RDMA_WRITE, 1, 0, BS, 0, ep.rkey()));
        assertThat(f.pollOne(f.cqA).status).isEqualTo(WorkCompletionStatus.REM_OP_ERR);
        assertThat(storeBytes(0, 1)).containsOnly(0);
        ep.close(); // nothing holds the region any more
    }

    @Test
    void itsRegionHasNoLocalKey() throws Exception {
        StoreEndpoint ep = endpoint(StoreEndpointSettings.wholeStore(Set.of(PEER)));
        assertThat(ep.region().lkey()).isZero();
        assertThat(f.device.lookupRegion(0, false)).isNull();
    }

    @Test
    void aRangeOutsideTheStoreIsRejectedAtRegistration() {
        assertThatThrownBy(() -> StoreEndpoint.register(f.pd, store,
                new StoreEndpointSettings(false, Set.of(PEER), 60, 8), io::add, ByteBufAllocator.DEFAULT))
                .isInstanceOf(IllegalArgumentException.class);
    }

    /** Delegates to a real store and records the FUA flag of each write. */
    private static final class RecordingStore implements Backstore {
        final java.util.List<Boolean> fua = new java.util.ArrayList<>();
        private final Backstore delegate;

        RecordingStore(Backstore delegate) {
            this.delegate = delegate;
        }

        @Override
        public BackstoreInfo info() {
            return delegate.info();
        }

        @Override
        public String name() {
            return "recording";
        }

        @Override
        public boolean isNonBlocking() {
            return false;
        }

        @Override
        public void read(long lba, int blocks, ByteBuf dst) throws IOException {
            delegate.read(lba, blocks, dst);
        }

        @Override
        public void write(long lba, ByteBuf src, boolean forceUnitAccess) throws IOException {
            fua.add(forceUnitAccess);
            delegate.write(lba, src, forceUnitAccess);
        }

        @Override
        public void flush(long lba, long blocks) {
        }

        @Override
        public void close() {
        }
    }

    /** Delegates geometry to a real store and fails every read and write. */
    private record FailingStore(Backstore delegate) implements Backstore {
        @Override
        public BackstoreInfo info() {
            return delegate.info();
        }

        @Override
        public String name() {
            return "failing";
        }

        @Override
        public boolean isNonBlocking() {
            return false;
        }

        @Override
        public void read(long lba, int blocks, ByteBuf dst) throws IOException {
            throw new IOException("injected read error");
        }

        @Override
        public void write(long lba, ByteBuf src, boolean fua) throws IOException {
            throw new IOException("injected write error");
        }

        @Override
        public void flush(long lba, long blocks) {
        }

        @Override
        public void close() {
        }
    }
}
