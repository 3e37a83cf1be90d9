package org.jtarget.fabric.endpoint;

import io.netty.buffer.ByteBuf;
import org.jtarget.backstore.memory.MemoryBackstore;
import org.jtarget.backstore.spi.Backstore;
import org.jtarget.backstore.spi.BackstoreInfo;
import org.jtarget.buffer.BufferPool;
import org.jtarget.rdma.CompletionQueue;
import org.jtarget.rdma.MemoryRegion;
import org.jtarget.rdma.ProtectionDomain;
import org.jtarget.rdma.QueuePair;
import org.jtarget.rdma.QueuePairInitAttributes;
import org.jtarget.rdma.RdmaFixture;
import org.jtarget.rdma.TcpProviderFixture;
import org.jtarget.rdma.WorkCompletion;
import org.jtarget.rdma.WorkCompletionStatus;
import org.jtarget.rdma.WorkRequest;
import org.jtarget.rdma.WorkRequestOpcode;
import org.jtarget.rdma.cm.CmEvent;
import org.jtarget.rdma.cm.CmEventType;
import org.jtarget.rdma.cm.CmListener;
import org.jtarget.rdma.iwarp.TcpConnectionManager;
import org.jtarget.rdma.iwarp.TcpDevice;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.jtarget.rdma.RdmaFixture.ALL;

/**
 * A store endpoint over the tcp provider: the client learns the rkey from the accept's private
 * data, only allowed peers connect, and store accesses answer in order on one queue pair.
 */
class StoreEndpointTcpTest {

    private static final int BS = 512;

    private final TcpProviderFixture tcp = new TcpProviderFixture(2);
    private final BufferPool pool = tcp.pool;
    private final TcpDevice device = tcp.device;
    private final TcpConnectionManager cm = tcp.cm;
    private final ProtectionDomain pd = device.allocateProtectionDomain();
    private final Arena arena = tcp.arena;
    private final ExecutorService io = tcp.io;
    private final BlockingQueue<CmEvent> clientEvents = new LinkedBlockingQueue<>();
    private MemoryBackstore store;
    private CompletionQueue cqA;
    private QueuePair a;
    private QueuePair b;
    private MemoryRegion local;

    @BeforeEach
    void setUp() throws Exception {
        store = new MemoryBackstore("m", BS, 64, false, false, 4096);
        cqA = device.createCompletionQueue(256, null);
        CompletionQueue cqB = device.createCompletionQueue(256, null);
        a = device.createQueuePair(pd, new QueuePairInitAttributes(cqA, cqA, 16, 16, 4, 4));
        b = device.createQueuePair(pd, new QueuePairInitAttributes(cqB, cqB, 16, 16, 4, 4));
        local = pd.registerMemoryRegion(arena.allocate(16 * BS, 4096), ALL);
    }

    @AfterEach
    void tearDown() throws Exception {
        tcp.close();
        store.close();
    }

    /** Listens, connects {@code a}, lets the endpoint answer the request; returns the client's last event. */
    private CmEvent connect(StoreEndpoint ep) throws Exception {
        CmListener listener = cm.listen(new InetSocketAddress("127.0.0.1", 0), e -> {
            if (e.type() == CmEventType.CONNECT_REQUEST) {
                try {
                    ep.accept(e.id(), b);
                } catch (Exception ex) {
                    throw new AssertionError(ex);
                }
            }
        });
        cm.connect(listener.localAddress(), a, null, clientEvents::add);
        CmEvent e = clientEvents.poll(20, TimeUnit.SECONDS);
        assertThat(e).as("connection event").isNotNull();
        return e;
    }

    private static int rkeyOf(CmEvent established) {
        return EndpointHandshake.accepted(established.privateData()).rkey();
    }

    private static WorkRequest op(WorkRequestOpcode opcode, long wrId, MemoryRegion mr, int localOffset, int length,
                                  long remote, int rkey) {
        return RdmaFixture.rdma(opcode, wrId, mr, localOffset, length, remote, rkey);
    }

    private static List<WorkCompletion> await(CompletionQueue cq, int n) throws InterruptedException {
        List<WorkCompletion> out = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        WorkCompletion[] wcs = {new WorkCompletion()};
        while (out.size() < n) {
            if (cq.poll(wcs, 1) == 1) {
                WorkCompletion c = new WorkCompletion();
                c.wrId = wcs[0].wrId;
                c.status = wcs[0].status;
                out.add(c);
            } else if (System.nanoTime() > deadline) {
                throw new AssertionError("only " + out.size() + " of " + n + " completions");
            } else {
                Thread.sleep(1);
            }
        }
        return out;
    }

    private byte[] storeBytes(long lba, int blocks) throws IOException {
        return StoreEndpointTest.storeBytes(store, lba, blocks);
    }

    @Test
    void anAllowedPeerGetsTheRkeyAndWritesAndReadsStoreBlocksInOrder() throws Exception {
        StoreEndpoint ep = StoreEndpoint.register(pd, store, new StoreEndpointSettings(false, Set.of("127.0.0.1"), 16, 16),
                io, pool.allocator());
        CmEvent est = connect(ep);
        assertThat(est.type()).isEqualTo(CmEventType.ESTABLISHED);
        int rkey = rkeyOf(est);
        assertThat(rkey).isEqualTo(ep.rkey());
        assertThat(EndpointHandshake.accepted(est.privateData()).length()).isEqualTo(16L * BS);
        RdmaFixture.fill(local.segment().asSlice(0, 4 * BS), 3);
        byte[] data = local.segment().asSlice(0, 4 * BS).toArray(ValueLayout.JAVA_BYTE);
        // no fence: tcp answers store accesses of one queue pair in order, so the READ sees the WRITE
        a.postSend(op(WorkRequestOpcode.RDMA_WRITE, 1, local, 0, 4 * BS, 2 * BS, rkey));
        a.postSend(op(WorkRequestOpcode.RDMA_READ, 2, local, 8 * BS, 4 * BS, 2 * BS, rkey));
        assertThat(await(cqA, 2)).extracting(wc -> wc.wrId + ":" + wc.status)
                .containsExactly("1:SUCCESS", "2:SUCCESS");
        assertThat(storeBytes(18, 4)).isEqualTo(data);
        assertThat(storeBytes(0, 18)).containsOnly(0);
        assertThat(local.segment().asSlice(8 * BS, 4 * BS).toArray(ValueLayout.JAVA_BYTE)).isEqualTo(data);
    }

    @Test
    void aPeerThatIsNotAllowedIsRejectedWithoutTheRkey() throws Exception {
        StoreEndpoint ep = StoreEndpoint.register(pd, store, StoreEndpointSettings.wholeStore(Set.of("10.9.9.9")),
                io, pool.allocator());
        CmEvent e = connect(ep);
        assertThat(e.type()).isEqualTo(CmEventType.REJECTED);
        assertThat(EndpointHandshake.rejection(e.privateData()))
                .isEqualTo(EndpointHandshake.Rejection.PEER_NOT_ALLOWED);
        assertThat(EndpointHandshake.describeReject(e.privateData()))
                .isEqualTo("rejected (peer not allowed): 127.0.0.1");
    }

    @Test
    void aReadOnlyEndpointRefusesAWriteOverTcp() throws Exception {
        StoreEndpoint ep = StoreEndpoint.register(pd, store, new StoreEndpointSettings(true, Set.of("127.0.0.1"), 0, 0),
                io, pool.allocator());
        int rkey = rkeyOf(connect(ep));
        RdmaFixture.fill(local.segment().asSlice(0, BS), 1);
        // iWARP has no acknowledgements: the WRITE completes once sent, the READ behind it learns
        // the refusal (the TERMINATE fails it, or flushes it if it had not started yet)
        a.postSend(op(WorkRequestOpcode.RDMA_WRITE, 1, local, 0, BS, 0, rkey));
        a.postSend(op(WorkRequestOpcode.RDMA_READ, 2, local, BS, BS, 0, rkey));
        List<WorkCompletion> wcs = await(cqA, 2);
        assertThat(wcs.get(0).status).isEqualTo(WorkCompletionStatus.SUCCESS);
        assertThat(wcs.get(1).status).isIn(WorkCompletionStatus.REM_ACCESS_ERR, WorkCompletionStatus.WR_FLUSH_ERR);
        assertThat(a.state()).isEqualTo(org.jtarget.rdma.QueuePairState.ERROR);
        assertThat(storeBytes(0, 64)).containsOnly(0);
    }

    @Test
    void aStoreErrorCompletesRemOpErrOverTcp() throws Exception {
        Backstore failing = new Backstore() {
            public BackstoreInfo info() { return store.info(); }
            public String name() { return "failing"; }
            public boolean isNonBlocking() { return false; }
            public void read(long lba, int blocks, ByteBuf dst) throws IOException { throw new IOException("injected"); }
            public void write(long lba, ByteBuf src, boolean fua) throws IOException { throw new IOException("injected"); }
            public void flush(long lba, long blocks) { }
            public void close() { }
        };
        StoreEndpoint ep = StoreEndpoint.register(pd, failing, StoreEndpointSettings.wholeStore(Set.of("127.0.0.1")),
                io, pool.allocator());
        int rkey = rkeyOf(connect(ep));
        a.postSend(op(WorkRequestOpcode.RDMA_READ, 1, local, 0, BS, 0, rkey));
        assertThat(await(cqA, 1).getFirst().status).isEqualTo(WorkCompletionStatus.REM_OP_ERR);
        MemorySegment untouched = local.segment().asSlice(0, BS);
        assertThat(untouched.toArray(ValueLayout.JAVA_BYTE)).containsOnly(0);
    }
}
