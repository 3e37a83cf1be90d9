package org.jtarget.fabric.endpoint;

import org.jtarget.backstore.memory.MemoryBackstore;
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
import org.jtarget.rdma.WorkRequestOpcode;
import org.jtarget.rdma.cm.CmEvent;
import org.jtarget.rdma.cm.CmEventType;
import org.jtarget.rdma.cm.CmId;
import org.jtarget.rdma.cm.CmListener;
import org.jtarget.rdma.iwarp.TcpConnectionManager;
import org.jtarget.rdma.iwarp.TcpDevice;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.jtarget.rdma.RdmaFixture.ALL;

/**
 * The daemon's listener for store endpoints over the tcp provider: connections name their endpoint,
 * each gets its own queue pair, and a connection that ends (by the peer, or torn down by an access
 * violation) leaves nothing behind.
 */
class EndpointListenerTest {

    private static final int BS = 512;

    private final TcpProviderFixture tcp = new TcpProviderFixture(2);
    private final BufferPool pool = tcp.pool;
    private final TcpDevice device = tcp.device;
    private final TcpConnectionManager cm = tcp.cm;
    private final ProtectionDomain serverPd = device.allocateProtectionDomain();
    private final ProtectionDomain clientPd = device.allocateProtectionDomain();
    private final ExecutorService io = tcp.io;
    private MemoryBackstore store;
    private EndpointListener endpoints;
    private CmListener listener;
    private MemoryRegion local;

    @BeforeEach
    void setUp() throws Exception {
        store = new MemoryBackstore("m", BS, 64, false, false, 4096);
        StoreEndpoint rw = StoreEndpoint.register(serverPd, store, StoreEndpointSettings.wholeStore(Set.of("127.0.0.1")),
                io, pool.allocator());
        StoreEndpoint ro = StoreEndpoint.register(serverPd, store,
                new StoreEndpointSettings(true, Set.of("127.0.0.1"), 32, 0), io, pool.allocator());
        StoreEndpoint elsewhere = StoreEndpoint.register(serverPd, store,
                StoreEndpointSettings.wholeStore(Set.of("192.0.2.1")), io, pool.allocator());
        endpoints = new EndpointListener(device, serverPd, Map.of("rw", rw, "ro", ro, "elsewhere", elsewhere));
        listener = cm.listen(new InetSocketAddress("127.0.0.1", 0), endpoints);
        local = clientPd.registerMemoryRegion(tcp.arena.allocate(16 * BS, 4096), ALL);
    }

    @AfterEach
    void tearDown() throws Exception {
        tcp.close();
        store.close();
    }

    /** A client queue pair and the events of its connection. */
    private record Client(QueuePair qp, CompletionQueue cq, BlockingQueue<CmEvent> events, CmId id) {
        CmEvent next() throws InterruptedException {
            CmEvent e = events.poll(20, TimeUnit.SECONDS);
            assertThat(e).as("connection event").isNotNull();
            return e;
        }
    }

    private Client connect(byte[] request) throws Exception {
        CompletionQueue cq = device.createCompletionQueue(64, null);
        QueuePair qp = device.createQueuePair(clientPd, new QueuePairInitAttributes(cq, cq, 16, 16, 4, 4));
        BlockingQueue<CmEvent> events = new LinkedBlockingQueue<>();
        CmId id = cm.connect(listener.localAddress(), qp, request, events::add);
        return new Client(qp, cq, events, id);
    }

    private static WorkCompletion await(CompletionQueue cq) throws InterruptedException {
        WorkCompletion[] wcs = {new WorkCompletion()};
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (cq.poll(wcs, 1) == 0) {
            assertThat(System.nanoTime()).as("completion in time").isLessThan(deadline);
            Thread.sleep(1);
        }
        return wcs[0];
    }

    private static void eventually(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as(what).isLessThan(deadline);
            Thread.sleep(5);
        }
    }

    private void assertRejected(byte[] request, EndpointHandshake.Rejection reason, String text) throws Exception {
        CmEvent e = connect(request).next();
        assertThat(e.type()).isEqualTo(CmEventType.REJECTED);
        assertThat(EndpointHandshake.rejection(e.privateData())).isEqualTo(reason);
        assertThat(EndpointHandshake.describeReject(e.privateData())).endsWith(text);
        assertThat(endpoints.connections()).isZero();
    }

    @Test
    void connectionsNamingNoEndpointAreRejectedWithTheReason() throws Exception {
        assertRejected(EndpointHandshake.request("nope"), EndpointHandshake.Rejection.UNKNOWN_ENDPOINT,
                "no endpoint 'nope'");
        assertRejected(null, EndpointHandshake.Rejection.MALFORMED_REQUEST,
                "expected a version 1 request naming an endpoint");
        assertRejected(EndpointHandshake.request("elsewhere"), EndpointHandshake.Rejection.PEER_NOT_ALLOWED,
                "127.0.0.1");
    }

    @Test
    void aConnectionReadsAndWritesItsEndpointAndLeavesNothingWhenItEnds() throws Exception {
        Client c = connect(EndpointHandshake.request("rw"));
        CmEvent e = c.next();
        assertThat(e.type()).isEqualTo(CmEventType.ESTABLISHED);
        EndpointHandshake.Accepted a = EndpointHandshake.accepted(e.privateData());
        assertThat(a.blockSize()).isEqualTo(BS);
        assertThat(a.length()).isEqualTo(64L * BS);
        assertThat(endpoints.connections()).isEqualTo(1);

        RdmaFixture.fill(local.segment().asSlice(0, 2 * BS), 7);
        assertThat(c.qp().postSend(RdmaFixture.rdma(WorkRequestOpcode.RDMA_WRITE, 1, local, 0, 2 * BS, 4 * BS,
                a.rkey()))).isZero();
        assertThat(await(c.cq()).status).isEqualTo(WorkCompletionStatus.SUCCESS);
        assertThat(c.qp().postSend(RdmaFixture.rdma(WorkRequestOpcode.RDMA_READ, 2, local, 4 * BS, 2 * BS, 4 * BS,
                a.rkey()))).isZero();
        assertThat(await(c.cq()).status).isEqualTo(WorkCompletionStatus.SUCCESS);
        assertThat(local.segment().asSlice(4 * BS, 2 * BS).toArray(ValueLayout.JAVA_BYTE))
                .isEqualTo(local.segment().asSlice(0, 2 * BS).toArray(ValueLayout.JAVA_BYTE));

        c.id().disconnect();
        eventually(() -> endpoints.connections() == 0, "the connection is forgotten");
    }

    @Test
    void anAccessViolationEndsOnlyThatConnection() throws Exception {
        Client good = connect(EndpointHandshake.request("rw"));
        assertThat(good.next().type()).isEqualTo(CmEventType.ESTABLISHED);
        Client bad = connect(EndpointHandshake.request("ro"));
        CmEvent e = bad.next();
        EndpointHandshake.Accepted ro = EndpointHandshake.accepted(e.privateData());
        assertThat(ro.length()).isEqualTo(32L * BS);

        assertThat(bad.qp().postSend(RdmaFixture.rdma(WorkRequestOpcode.RDMA_WRITE, 1, local, 0, BS, 0, ro.rkey())))
                .isZero();
        assertThat(bad.qp().postSend(RdmaFixture.rdma(WorkRequestOpcode.RDMA_READ, 2, local, BS, BS, 0, ro.rkey())))
                .isZero();
        // iWARP: the WRITE completes once sent; the READ behind it fails on the TERMINATE (or is flushed)
        assertThat(await(bad.cq()).status).isEqualTo(WorkCompletionStatus.SUCCESS);
        assertThat(await(bad.cq()).status).isIn(WorkCompletionStatus.REM_ACCESS_ERR, WorkCompletionStatus.WR_FLUSH_ERR);
        eventually(() -> endpoints.connections() == 1, "the torn-down connection is forgotten");

        Client again = connect(EndpointHandshake.request("rw"));
        CmEvent est = again.next();
        assertThat(est.type()).isEqualTo(CmEventType.ESTABLISHED);
        assertThat(again.qp().postSend(RdmaFixture.rdma(WorkRequestOpcode.RDMA_READ, 1, local, 0, BS, 0,
                EndpointHandshake.accepted(est.privateData()).rkey()))).isZero();
        assertThat(await(again.cq()).status).isEqualTo(WorkCompletionStatus.SUCCESS);
        assertThat(endpoints.connections()).isEqualTo(2);
    }
}
