package org.jtarget.rdma.iwarp;

import org.jtarget.rdma.AccessFlag;
import org.jtarget.rdma.MemoryRegion;
import org.jtarget.rdma.QueuePairState;
import org.jtarget.rdma.RdmaFixture;
import org.jtarget.rdma.SendFlags;
import org.jtarget.rdma.WorkCompletion;
import org.jtarget.rdma.WorkCompletionOpcode;
import org.jtarget.rdma.WorkCompletionStatus;
import org.jtarget.rdma.WorkRequest;
import org.jtarget.rdma.WorkRequestOpcode;
import org.jtarget.rdma.cm.CmEvent;
import org.jtarget.rdma.cm.CmEventType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.jtarget.rdma.RdmaFixture.ALL;
import static org.jtarget.rdma.RdmaFixture.rdma;
import static org.jtarget.rdma.RdmaFixture.recv;
import static org.jtarget.rdma.RdmaFixture.send;
import static org.jtarget.rdma.iwarp.TcpFixture.await;

class TcpQueuePairTest {

    private TcpFixture f;
    private TcpFixture.Pair p;
    private MemoryRegion src;
    private MemoryRegion dst;

    @BeforeEach
    void setUp() throws Exception {
        f = new TcpFixture();
        p = f.new Pair(16);
        src = f.register(2 << 20, ALL);
        dst = f.register(2 << 20, ALL);
        RdmaFixture.fill(src.segment(), 5);
    }

    @AfterEach
    void tearDown() {
        f.close();
    }

    private boolean same(long srcOff, long dstOff, long len) {
        return src.segment().asSlice(srcOff, len).mismatch(dst.segment().asSlice(dstOff, len)) == -1;
    }

    @Test
    void aSendOfSeveralSegmentsArrivesWholeInTheReceive() throws Exception {
        int length = 3 * FrameOutput.MAX_SEGMENT_PAYLOAD + 100;
        p.b.postRecv(recv(7, dst, 0, 100).addSge(dst.address() + 4096, length, dst.lkey()));
        WorkRequest s = send(1, src, 0, 3000).addSge(src.address() + 10000, length - 2900, src.lkey());
        p.a.postSend(s);
        assertThat(await(p.cqA, 1)).extracting(wc -> wc.status).containsExactly(WorkCompletionStatus.SUCCESS);
        WorkCompletion rc = await(p.cqB, 1).get(0);
        assertThat(rc.byteLen).isEqualTo(length + 100);
        assertThat(same(0, 0, 100)).isTrue();
        assertThat(same(100, 4096, 2900)).isTrue();
        assertThat(same(10000, 4096 + 2900, length - 2900)).isTrue();
    }

    /** RFC 5040 has no immediate data: such requests fail locally. */
    @Test
    void immediateDataIsRefusedLocally() throws Exception {
        TcpFixture.Pair[] pairs = {f.new Pair(4), f.new Pair(4)};
        int i = 0;
        for (WorkRequestOpcode op : new WorkRequestOpcode[] {WorkRequestOpcode.SEND_WITH_IMM,
                WorkRequestOpcode.RDMA_WRITE_WITH_IMM}) {
            TcpFixture.Pair pair = pairs[i++];
            WorkRequest w = op == WorkRequestOpcode.SEND_WITH_IMM ? send(1, src, 0, 64)
                    : rdma(op, 1, src, 0, 64, dst.address(), dst.rkey());
            w.opcode = op;
            pair.a.postSend(w);
            assertThat(await(pair.cqA, 1).get(0).status).isEqualTo(WorkCompletionStatus.LOC_QP_OP_ERR);
        }
    }

    @Test
    void largeWriteAndReadArePlacedExactly() throws Exception {
        p.a.postSend(rdma(WorkRequestOpcode.RDMA_WRITE, 1, src, 0, 1 << 20, dst.address() + 100, dst.rkey()));
        WorkRequest read = rdma(WorkRequestOpcode.RDMA_READ, 2, src, 1 << 20, 1 << 20, dst.address() + 100, dst.rkey());
        read.sendFlags |= SendFlags.FENCE;
        p.a.postSend(read);
        assertThat(await(p.cqA, 2)).extracting(wc -> wc.wrId + ":" + wc.opcode + ":" + wc.status)
                .containsExactly("1:RDMA_WRITE:SUCCESS", "2:RDMA_READ:SUCCESS");
        assertThat(same(0, 100, 1 << 20)).isTrue();
        assertThat(src.segment().asSlice(0, 1 << 20).mismatch(src.segment().asSlice(1 << 20, 1 << 20))).isEqualTo(-1);
    }

    /**
     * A READ RESPONSE is placed across the READ's scatter list, both ways the decoder hands it on:
     * copied out of pool buffers (a payload under {@code LARGE_PAYLOAD} whose tail after the first
     * socket read is under {@code DIRECT_MIN}: that read ends inside the middle element) and read
     * by the socket into the elements directly (a large payload, also from inside an element).
     */
    @Test
    void aReadIsScatteredAcrossItsElements() throws Exception {
        RdmaFixture.fill(dst.segment(), 9);
        for (int[] sizes : new int[][] {{80_000, 9_000}, {300_000, 50_000}}) {
            int middle = sizes[0];
            int last = sizes[1];
            src.segment().fill((byte) 0);
            WorkRequest read = rdma(WorkRequestOpcode.RDMA_READ, middle, src, 0, 1000, dst.address() + 7, dst.rkey())
                    .addSge(src.address() + 4096, middle, src.lkey())
                    .addSge(src.address() + 1_000_000, last, src.lkey());
            p.a.postSend(read);
            assertThat(await(p.cqA, 1)).extracting(wc -> wc.status + ":" + wc.byteLen)
                    .containsExactly("SUCCESS:" + (1000 + middle + last));
            assertThat(same(0, 7, 1000)).isTrue();
            assertThat(same(4096, 7 + 1000, middle)).isTrue();
            assertThat(same(1_000_000, 7 + 1000 + middle, last)).isTrue();
            assertThat(src.segment().asSlice(1000, 4096 - 1000).mismatch(MemorySegment.ofArray(new byte[4096 - 1000])))
                    .as("nothing between the elements").isEqualTo(-1);
        }
    }

    /** No receive posted: iWARP has no RNR, the responder TERMINATEs (DDP "no buffer"). */
    @Test
    void aSendWithNoReceivePostedEndsTheConnection() throws Exception {
        p.a.postSend(send(1, src, 0, 64));
        p.a.postSend(rdma(WorkRequestOpcode.RDMA_READ, 2, src, 0, 64, dst.address() + 500, dst.rkey()));
        // the READ fails with the TERMINATE's reason, or is flushed if it had not started yet
        assertThat(await(p.cqA, 2)).extracting(wc -> wc.wrId + ":" + wc.status)
                .containsAnyOf("2:RNR_RETRY_EXC_ERR", "2:WR_FLUSH_ERR").first().isEqualTo("1:SUCCESS");
        assertThat(p.b.state()).isEqualTo(QueuePairState.ERROR);
        TcpFixture.next(p.clientEvents, CmEventType.DISCONNECTED);
    }

    /**
     * A WRITE completes once TCP has it (iWARP has no acknowledgements); the responder's TERMINATE
     * fails the next outstanding request (a READ here) with the access error and flushes the rest.
     */
    @Test
    void anAccessViolationFailsTheRequesterAndTearsOnlyThisConnectionDown() throws Exception {
        TcpFixture.Pair other = f.new Pair(4);
        MemoryRegion ro = f.pd.registerMemoryRegion(dst.segment(), EnumSet.of(AccessFlag.REMOTE_READ));
        p.a.postSend(rdma(WorkRequestOpcode.RDMA_WRITE, 1, src, 0, 64, ro.address(), ro.rkey()));
        p.a.postSend(rdma(WorkRequestOpcode.RDMA_READ, 2, src, 0, 64, dst.address(), dst.rkey()));
        p.a.postSend(send(3, src, 0, 8));
        // the SEND behind the READ may have been handed to TCP (SUCCESS) before the TERMINATE came
        List<WorkCompletion> wcs = await(p.cqA, 3);
        assertThat(wcs.get(0).status).isEqualTo(WorkCompletionStatus.SUCCESS);
        assertThat(wcs.get(1).status).isIn(WorkCompletionStatus.REM_ACCESS_ERR, WorkCompletionStatus.WR_FLUSH_ERR);
        assertThat(p.a.state()).isEqualTo(QueuePairState.ERROR);
        TcpFixture.next(p.clientEvents, CmEventType.DISCONNECTED);
        assertThat(p.b.state()).isEqualTo(QueuePairState.ERROR);
        assertThat(dst.segment().asSlice(0, 64).mismatch(f.arena.allocate(64))).isEqualTo(-1);
        other.a.postSend(rdma(WorkRequestOpcode.RDMA_WRITE, 9, src, 0, 64, dst.address(), dst.rkey()));
        assertThat(await(other.cqA, 1).get(0).status).isEqualTo(WorkCompletionStatus.SUCCESS);
    }

    @Test
    void aLargeWriteRefusedBeforeItsPayloadIsReadStillReportsTheAccessError() throws Exception {
        MemoryRegion ro = f.pd.registerMemoryRegion(dst.segment(), EnumSet.of(AccessFlag.REMOTE_READ));
        // the responder refuses on the first segment, with most of the 1 MiB still unread in its
        // socket: closing then would reset the connection and could destroy the TERMINATE
        for (int i = 0; i < 10; i++) {
            TcpFixture.Pair pair = f.new Pair(4);
            pair.a.postSend(rdma(WorkRequestOpcode.RDMA_WRITE, 1, src, 0, 1 << 20, ro.address(), ro.rkey()));
            pair.a.postSend(rdma(WorkRequestOpcode.RDMA_READ, 2, src, 0, 64, dst.address(), dst.rkey()));
            List<WorkCompletion> wcs = await(pair.cqA, 2);
            assertThat(wcs.get(0).status).as("attempt " + i).isEqualTo(WorkCompletionStatus.SUCCESS);
            assertThat(wcs.get(1).status).as("attempt " + i)
                    .isIn(WorkCompletionStatus.REM_ACCESS_ERR, WorkCompletionStatus.WR_FLUSH_ERR);
            TcpFixture.next(f.serverEvents, CmEventType.DISCONNECTED); // the requester closed on the TERMINATE
        }
    }

    @Test
    void aReadBeyondTheRegionIsARemoteAccessError() throws Exception {
        p.a.postSend(rdma(WorkRequestOpcode.RDMA_READ, 1, src, 0, 64, dst.address() + (2 << 20) - 10, dst.rkey()));
        assertThat(await(p.cqA, 1).get(0).status).isEqualTo(WorkCompletionStatus.REM_ACCESS_ERR);
    }

    @Test
    void aReceiveTooSmallIsALocalLengthError() throws Exception {
        p.b.postRecv(recv(3, dst, 0, 10));
        p.a.postSend(send(1, src, 0, 11));
        p.a.postSend(rdma(WorkRequestOpcode.RDMA_READ, 2, src, 0, 64, dst.address(), dst.rkey()));
        List<WorkCompletion> wcs = await(p.cqA, 2);
        assertThat(wcs.get(0).status).isEqualTo(WorkCompletionStatus.SUCCESS); // a SEND completes once TCP has it
        // the READ fails with the TERMINATE's status if it was outstanding when the TERMINATE came,
        // or is flushed if it left after: iWARP timing, not an error of either side
        assertThat(wcs.get(1).status).isIn(WorkCompletionStatus.REM_INV_REQ_ERR, WorkCompletionStatus.WR_FLUSH_ERR);
        assertThat(await(p.cqB, 1).get(0).status).isEqualTo(WorkCompletionStatus.LOC_LEN_ERR);
        // either way the requester learns why from the DISCONNECTED event's TERMINATE code
        CmEvent closed = TcpFixture.next(p.clientEvents, CmEventType.DISCONNECTED);
        assertThat(TcpConnectionManager.terminationStatus(closed.privateData()))
                .isEqualTo(WorkCompletionStatus.REM_INV_REQ_ERR);
    }

    @Test
    void disconnectFlushesBothSides() throws Exception {
        p.b.postRecv(recv(3, dst, 0, 10));
        p.clientId.disconnect();
        TcpFixture.next(p.clientEvents, CmEventType.DISCONNECTED);
        TcpFixture.next(f.serverEvents, CmEventType.DISCONNECTED);
        List<WorkCompletion> flushed = await(p.cqB, 1);
        assertThat(flushed.get(0).status).isEqualTo(WorkCompletionStatus.WR_FLUSH_ERR);
        assertThat(p.a.state()).isEqualTo(QueuePairState.ERROR);
    }

    @Test
    void rejectCarriesPrivateData() throws Exception {
        f.listener.close();
        try (TcpConnectionManager cm2 = new TcpConnectionManager(f.device)) {
            var l = cm2.listen(new java.net.InetSocketAddress("127.0.0.1", 0), e -> e.id().reject(new byte[] {4, 2}));
            var q = f.device.createQueuePair(f.pd, new org.jtarget.rdma.QueuePairInitAttributes(p.cqA, p.cqA, 2, 2, 1, 1));
            java.util.concurrent.BlockingQueue<org.jtarget.rdma.cm.CmEvent> ev = new java.util.concurrent.LinkedBlockingQueue<>();
            cm2.connect(l.localAddress(), q, null, ev::add);
            assertThat(TcpFixture.next(ev, CmEventType.REJECTED).privateData()).containsExactly(4, 2);
        }
    }

    @Test
    void manyPipelinedReadsAndWritesComplete() throws Exception {
        TcpFixture.Pair deep = f.new Pair(256);
        for (WorkRequestOpcode op : new WorkRequestOpcode[] {WorkRequestOpcode.RDMA_WRITE, WorkRequestOpcode.RDMA_READ}) {
            int done = 0;
            int posted = 0;
            while (done < 2000) {
                while (posted - done < 128 && posted < 2000) {
                    int slot = posted % 128;
                    deep.a.postSend(rdma(op, posted, src, slot * 4096L, 4096, dst.address() + slot * 4096L, dst.rkey()));
                    posted++;
                }
                List<WorkCompletion> wcs = await(deep.cqA, 1);
                assertThat(wcs.get(0).status).as("%s #%d", op, done).isEqualTo(WorkCompletionStatus.SUCCESS);
                assertThat(wcs.get(0).wrId).isEqualTo(done);
                done++;
            }
        }
    }

    @Test
    void requestsPostedFromTheEventLoopAndAnotherThreadLeaveInPostOrder() throws Exception {
        // a completion handler on the event loop posts while this thread posts too: a write made on the
        // loop must not overtake the requests other threads queued before it (the peer checks MSNs)
        java.util.concurrent.atomic.AtomicInteger reposted = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicReference<org.jtarget.rdma.QueuePair> qpRef = new java.util.concurrent.atomic.AtomicReference<>();
        WorkCompletion[] one = {new WorkCompletion()};
        java.util.concurrent.ConcurrentLinkedQueue<WorkCompletion> seen = new java.util.concurrent.ConcurrentLinkedQueue<>();
        org.jtarget.rdma.CompletionQueue cq = f.device.createCompletionQueue(16384, c -> {
            while (true) {
                if (c.poll(one, 1) == 0) {
                    c.requestNotify(false);
                    if (c.poll(one, 1) == 0) {
                        return;
                    }
                }
                WorkCompletion copy = new WorkCompletion();
                copy.status = one[0].status;
                seen.add(copy);
                if (reposted.incrementAndGet() <= 3000) {
                    qpRef.get().postSend(rdma(WorkRequestOpcode.RDMA_WRITE, 1, src, 0, 512, dst.address(), dst.rkey()));
                }
            }
        });
        cq.requestNotify(false);
        org.jtarget.rdma.QueuePair a = f.device.createQueuePair(f.pd,
                new org.jtarget.rdma.QueuePairInitAttributes(cq, cq, 8192, 4, 1, 1));
        org.jtarget.rdma.QueuePair b = f.device.createQueuePair(f.pd,
                new org.jtarget.rdma.QueuePairInitAttributes(p.cqB, p.cqB, 4, 4, 1, 1));
        qpRef.set(a);
        java.util.concurrent.BlockingQueue<org.jtarget.rdma.cm.CmEvent> ev = new java.util.concurrent.LinkedBlockingQueue<>();
        f.cm.connect(f.listener.localAddress(), a, null, ev::add);
        TcpFixture.next(f.serverEvents, CmEventType.CONNECT_REQUEST).id().accept(b, null);
        TcpFixture.next(ev, CmEventType.ESTABLISHED);
        WorkRequest w = rdma(WorkRequestOpcode.RDMA_WRITE, 2, src, 0, 512, dst.address(), dst.rkey());
        for (int i = 0; i < 3000; i++) {
            assertThat(a.postSend(w)).isEqualTo(org.jtarget.rdma.Errno.OK);
            if (i % 64 == 0) {
                Thread.yield();
            }
        }
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(20);
        while (seen.size() < 6000 && a.state() == QueuePairState.RTS && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        assertThat(seen).hasSize(6000).allMatch(wc -> wc.status == WorkCompletionStatus.SUCCESS);
        assertThat(a.state()).isEqualTo(QueuePairState.RTS);
    }
}
