package org.jtarget.rdma.transfer;

import org.jtarget.rdma.Errno;
import org.jtarget.rdma.MemoryRegion;
import org.jtarget.rdma.RdmaFixture;
import org.jtarget.rdma.WorkCompletion;
import org.jtarget.rdma.WorkCompletionStatus;
import org.jtarget.rdma.WorkRequest;
import org.jtarget.rdma.WorkRequestOpcode;
import org.jtarget.rdma.loopback.LoopbackDevice;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

class TransferEngineTest {

    private static final int ITERATIONS = 3000;
    private static final int REGION = 64 * 1024;
    private static final int[] LKEYS = {0x100, 0x200, 0x300};

    /** A fake send queue: checks limits, moves bytes at post time, completes when the test says. */
    private static final class FakeQueue implements TransferEngine.Poster {
        final int maxMsg;
        final int maxSge;
        final int depth;
        final MemorySegment local;
        final MemorySegment remote;
        final ArrayDeque<Long> outstanding = new ArrayDeque<>();
        int posted;
        int enomem;

        FakeQueue(int maxMsg, int maxSge, int depth, MemorySegment local, MemorySegment remote) {
            this.maxMsg = maxMsg;
            this.maxSge = maxSge;
            this.depth = depth;
            this.local = local;
            this.remote = remote;
        }

        long localOffset(long address) {
            return address - local.address();
        }

        @Override
        public int post(WorkRequest wr) {
            if (outstanding.size() == depth) {
                enomem++;
                return Errno.ENOMEM;
            }
            if (wr.numSge < 1 || wr.numSge > maxSge || wr.totalLength() < 1 || wr.totalLength() > maxMsg) {
                throw new AssertionError("work request outside the limits: " + wr.numSge + " elements, "
                        + wr.totalLength() + " bytes, max " + maxSge + "/" + maxMsg);
            }
            for (int i = 0; i < wr.numSge; i++) {
                if (wr.sgList[i].length() <= 0) {
                    throw new AssertionError("empty element");
                }
                if (i > 0 && wr.sgList[i].lkey() == wr.sgList[i - 1].lkey()
                        && wr.sgList[i - 1].address() + wr.sgList[i - 1].length() == wr.sgList[i].address()) {
                    throw new AssertionError("contiguous pieces not merged");
                }
            }
            long remoteOff = wr.remoteAddress - remote.address();
            for (int i = 0; i < wr.numSge; i++) {
                long lo = localOffset(wr.sgList[i].address());
                int n = wr.sgList[i].length();
                if (wr.opcode == WorkRequestOpcode.RDMA_WRITE) {
                    MemorySegment.copy(local, lo, remote, remoteOff, n);
                } else {
                    MemorySegment.copy(remote, remoteOff, local, lo, n);
                }
                remoteOff += n;
            }
            outstanding.addLast(wr.wrId);
            posted++;
            return Errno.OK;
        }
    }

    private record Piece(long offset, int length, int lkey) {
    }

    private static List<Piece> randomPieces(Random rnd) {
        List<Piece> pieces = new ArrayList<>();
        int n = rnd.nextInt(12);
        long cursor = rnd.nextInt(1024);
        for (int i = 0; i < n; i++) {
            int region = rnd.nextInt(LKEYS.length);
            int len = switch (rnd.nextInt(4)) {
                case 0 -> 0;
                case 1 -> 1 + rnd.nextInt(16);
                default -> 1 + rnd.nextInt(6000);
            };
            boolean contiguous = rnd.nextInt(3) == 0 && i > 0;
            Piece prev = i > 0 ? pieces.get(i - 1) : null;
            long base = region * (long) REGION;
            long off = contiguous ? prev.offset() + prev.length() : base + rnd.nextInt(REGION - len);
            int lkey = contiguous ? prev.lkey() : LKEYS[region];
            if (off + len > (lkey / 0x100) * (long) REGION) {
                off = base + rnd.nextInt(REGION - len);
                lkey = LKEYS[region];
            }
            pieces.add(new Piece(off, len, lkey));
            cursor += len;
        }
        return pieces;
    }

    @Test
    void randomTransfersMoveExactlyTheBytesWithinTheLimitsAndSignalOnce() {
        long seed = System.nanoTime();
        Random rnd = new Random(seed);
        try (Arena arena = Arena.ofShared()) {
            MemorySegment local = arena.allocate(REGION * 3L);
            MemorySegment remote = arena.allocate(256 * 1024);
            RdmaFixture.fill(local, 3);
            for (int it = 0; it < ITERATIONS; it++) {
                try {
                    runOne(rnd, local, remote);
                } catch (AssertionError e) {
                    throw new AssertionError("seed " + seed + " iteration " + it + ": " + e.getMessage(), e);
                }
            }
        }
    }

    private static void runOne(Random rnd, MemorySegment local, MemorySegment remote) {
        int maxMsg = rnd.nextBoolean() ? 1 + rnd.nextInt(64) : 1 + rnd.nextInt(20000);
        int maxSge = 1 + rnd.nextInt(6);
        int depth = 1 + rnd.nextInt(6);
        FakeQueue q = new FakeQueue(maxMsg, maxSge, depth, local, remote);
        TransferEngine engine = new TransferEngine(q, maxMsg, maxSge, depth);
        int transfers = 1 + rnd.nextInt(3);
        List<List<Piece>> all = new ArrayList<>();
        int[] signals = new int[transfers];
        long remoteCursor = 0;
        long[] remoteStart = new long[transfers];
        boolean write = rnd.nextBoolean();
        if (!write) {
            RdmaFixture.fill(remote, rnd.nextInt());
        }
        MemorySegment expectedRemote = arena(remote.byteSize());
        MemorySegment.copy(remote, 0, expectedRemote, 0, remote.byteSize());
        MemorySegment expectedLocal = arena(local.byteSize());
        MemorySegment.copy(local, 0, expectedLocal, 0, local.byteSize());
        for (int t = 0; t < transfers; t++) {
            List<Piece> pieces = randomPieces(rnd);
            all.add(pieces);
            remoteStart[t] = remoteCursor;
            RdmaTransfer tr = new RdmaTransfer(2);
            int index = t;
            tr.reset(write ? WorkRequestOpcode.RDMA_WRITE : WorkRequestOpcode.RDMA_READ,
                    remote.address() + remoteCursor, 0x55, (x, st) -> {
                        assertThat(st).isEqualTo(WorkCompletionStatus.SUCCESS);
                        assertThat(x.completed()).isEqualTo(x.posted());
                        signals[index]++;
                    });
            for (Piece p : pieces) {
                tr.addLocal(local.address() + p.offset(), p.length(), p.lkey());
                long ro = remoteCursor;
                if (write) {
                    MemorySegment.copy(expectedLocal, p.offset(), expectedRemote, ro, p.length());
                } else {
                    MemorySegment.copy(expectedRemote, ro, expectedLocal, p.offset(), p.length());
                }
                remoteCursor += p.length();
            }
            remoteCursor += rnd.nextInt(100);
            engine.submit(tr);
        }
        WorkCompletion wc = new WorkCompletion();
        wc.status = WorkCompletionStatus.SUCCESS;
        int guard = 0;
        while (!q.outstanding.isEmpty()) {
            int n = 1 + rnd.nextInt(q.outstanding.size());
            for (int i = 0; i < n; i++) {
                wc.wrId = q.outstanding.pollFirst();
                assertThat(TransferEngine.owns(wc)).isTrue();
                engine.onCompletion(wc);
            }
            assertThat(++guard).isLessThan(1_000_000);
        }
        assertThat(signals).containsOnly(1);
        assertThat(engine.inFlight()).isZero();
        // pieces may overlap locally (random offsets), so compare against the same sequential replay
        assertThat(remote.mismatch(expectedRemote)).isEqualTo(-1);
        assertThat(local.mismatch(expectedLocal)).isEqualTo(-1);
        long minimum = 0;
        for (List<Piece> pieces : all) {
            long bytes = pieces.stream().mapToLong(Piece::length).sum();
            minimum += (bytes + maxMsg - 1) / maxMsg;
        }
        assertThat((long) q.posted).as("work requests").isGreaterThanOrEqualTo(minimum);
    }

    private static MemorySegment arena(long size) {
        return Arena.ofAuto().allocate(size);
    }

    @Test
    void aFailedCompletionSignalsOnceWithTheFirstError() {
        try (Arena arena = Arena.ofShared()) {
            MemorySegment local = arena.allocate(REGION * 3L);
            MemorySegment remote = arena.allocate(1 << 20);
            FakeQueue q = new FakeQueue(100, 2, 3, local, remote);
            TransferEngine engine = new TransferEngine(q, 100, 2, 3);
            List<WorkCompletionStatus> seen = new ArrayList<>();
            RdmaTransfer tr = new RdmaTransfer(1).reset(WorkRequestOpcode.RDMA_WRITE, remote.address(), 1,
                    (x, st) -> seen.add(st));
            tr.addLocal(local.address(), 1000, LKEYS[0]);
            engine.submit(tr);
            assertThat(q.posted).isEqualTo(3);
            WorkCompletion wc = new WorkCompletion();
            wc.wrId = q.outstanding.pollFirst();
            wc.status = WorkCompletionStatus.REM_ACCESS_ERR;
            engine.onCompletion(wc);
            wc.status = WorkCompletionStatus.WR_FLUSH_ERR;
            while (!q.outstanding.isEmpty()) {
                wc.wrId = q.outstanding.pollFirst();
                engine.onCompletion(wc);
            }
            assertThat(seen).containsExactly(WorkCompletionStatus.REM_ACCESS_ERR);
            assertThat(q.posted).as("nothing more posted after the error").isEqualTo(3);
        }
    }

    @Test
    void anEmptyTransferCompletesAtOnce() {
        FakeQueue q = new FakeQueue(100, 2, 3, null, null);
        TransferEngine engine = new TransferEngine(q, 100, 2, 3);
        List<WorkCompletionStatus> seen = new ArrayList<>();
        engine.submit(new RdmaTransfer(1).reset(WorkRequestOpcode.RDMA_READ, 0, 1, (x, st) -> seen.add(st))
                .addLocal(0, 0, 1));
        assertThat(seen).containsExactly(WorkCompletionStatus.SUCCESS);
        assertThat(q.posted).isZero();
    }

    @Test
    void overLoopbackAReadResumesAfterTheSendQueueFills() throws Exception {
        ArrayDeque<Runnable> held = new ArrayDeque<>();
        LoopbackDevice device = new LoopbackDevice("lo", new org.jtarget.rdma.DeviceAttributes(64, 4, 4096, 1000),
                org.jtarget.rdma.PinnedMemoryPolicy.ANY_NATIVE, held::add);
        try (RdmaFixture f = new RdmaFixture(device, 4, 3).connect()) {
            MemoryRegion remote = f.register(64 * 1024, RdmaFixture.ALL);
            MemoryRegion local = f.register(64 * 1024, RdmaFixture.ALL);
            RdmaFixture.fill(remote.segment(), 11);
            TransferEngine engine = new TransferEngine(f.a);
            int[] signals = new int[1];
            RdmaTransfer tr = new RdmaTransfer(4).reset(WorkRequestOpcode.RDMA_READ, remote.address() + 100,
                    remote.rkey(), (x, st) -> {
                        assertThat(st).isEqualTo(WorkCompletionStatus.SUCCESS);
                        signals[0]++;
                    });
            for (int i = 0; i < 10; i++) {
                tr.addLocal(local.address() + 4096L * i, 3000, local.lkey());
            }
            engine.submit(tr);
            assertThat(f.a.outstandingSends()).isEqualTo(4);
            WorkCompletion[] wcs = {new WorkCompletion(), new WorkCompletion()};
            int guard = 0;
            while (!tr.isComplete()) {
                Runnable r = held.poll();
                if (r != null) {
                    r.run();
                }
                int n = f.cqA.poll(wcs, 2);
                for (int i = 0; i < n; i++) {
                    engine.onCompletion(wcs[i]);
                }
                assertThat(++guard).isLessThan(10_000);
            }
            assertThat(signals[0]).isEqualTo(1);
            assertThat(tr.posted()).isEqualTo(30);
            for (int i = 0; i < 10; i++) {
                long remoteOff = 100 + 3000L * i;
                assertThat(local.segment().asSlice(4096L * i, 3000)
                        .mismatch(remote.segment().asSlice(remoteOff, 3000))).isEqualTo(-1);
            }
            assertThat(local.segment().get(ValueLayout.JAVA_BYTE, 3000)).isZero();
        }
    }

}
