package org.jtarget.daemon;

import org.jtarget.config.ConfigException;
import org.jtarget.config.ConfigLoader;
import org.jtarget.config.JtargetConfig;
import org.jtarget.config.RdmaConfig;
import org.jtarget.fabric.endpoint.EndpointHandshake;
import org.jtarget.rdma.CompletionQueue;
import org.jtarget.rdma.MemoryRegion;
import org.jtarget.rdma.ProtectionDomain;
import org.jtarget.rdma.QueuePair;
import org.jtarget.rdma.QueuePairInitAttributes;
import org.jtarget.rdma.RdmaException;
import org.jtarget.rdma.TcpProviderFixture;
import org.jtarget.rdma.WorkCompletion;
import org.jtarget.rdma.WorkCompletionStatus;
import org.jtarget.rdma.WorkRequest;
import org.jtarget.rdma.WorkRequestOpcode;
import org.jtarget.rdma.cm.CmEvent;
import org.jtarget.rdma.cm.CmEventType;
import org.jtarget.rdma.iwarp.TcpConnectionManager;
import org.jtarget.rdma.iwarp.TcpDevice;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The daemon's runtime with an {@code rdma:} section: the configured endpoints answer over the tcp
 * provider on the configured address, with the configured rules, and go away when the daemon stops.
 */
class RdmaEndpointRuntimeTest {

    /** A portal, a 1 MiB memory store behind LUN 0, and an rdma section: ports and endpoints to fill in. */
    private static final String CONFIG = """
                daemon: { buffer-pool: { pinned-size: 0 } }
                portals:
                  - { name: default, listen: "127.0.0.1:%d" }
                backstores:
                  - { name: ram0, type: memory, size: 1MiB }
                targets:
                  - iqn: iqn.2026-11.org.jtarget:rdma
                    portals: [default]
                    acl: ["*"]
                    luns: [ { lun: 0, backstore: ram0 } ]
                rdma:
                  listen: "127.0.0.1:%d"
                  endpoints:
                %s""";

    @TempDir
    Path dir;

    private final TcpProviderFixture tcp = new TcpProviderFixture(1);
    private final TcpDevice client = tcp.device;
    private final TcpConnectionManager clientCm = tcp.cm;
    private final ProtectionDomain pd = client.allocateProtectionDomain();
    private TargetRuntime runtime;

    @AfterEach
    void tearDown() {
        if (runtime != null) {
            runtime.stop(Duration.ofSeconds(5));
        }
        tcp.close();
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private TargetRuntime start(int rdmaPort, String endpoints) throws Exception {
        Path file = Files.writeString(dir.resolve("jtarget.yaml"), CONFIG.formatted(freePort(), rdmaPort, endpoints));
        runtime = new TargetRuntime(ConfigLoader.load(file));
        runtime.start();
        return runtime;
    }

    private record Connection(QueuePair qp, CompletionQueue cq, CmEvent event) {
    }

    private Connection connect(int port, String endpoint) throws Exception {
        CompletionQueue cq = client.createCompletionQueue(32, null);
        QueuePair qp = client.createQueuePair(pd, new QueuePairInitAttributes(cq, cq, 8, 8, 1, 1));
        BlockingQueue<CmEvent> events = new LinkedBlockingQueue<>();
        clientCm.connect(new InetSocketAddress("127.0.0.1", port), qp, EndpointHandshake.request(endpoint), events::add);
        CmEvent e = events.poll(20, TimeUnit.SECONDS);
        assertThat(e).as("connection event").isNotNull();
        return new Connection(qp, cq, e);
    }

    private static WorkCompletionStatus transfer(Connection c, WorkRequestOpcode op, MemoryRegion local, long remote,
                                                 int length) throws InterruptedException {
        WorkRequest wr = new WorkRequest(1);
        wr.opcode = op;
        wr.sendFlags = org.jtarget.rdma.SendFlags.SIGNALED;
        wr.addSge(local.address(), length, local.lkey());
        wr.remoteAddress = remote;
        wr.rkey = EndpointHandshake.accepted(c.event().privateData()).rkey();
        assertThat(c.qp().postSend(wr)).isZero();
        WorkCompletion[] wcs = {new WorkCompletion()};
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (c.cq().poll(wcs, 1) == 0) {
            assertThat(System.nanoTime()).as("completion in time").isLessThan(deadline);
            Thread.sleep(1);
        }
        return wcs[0].status;
    }

    private MemoryRegion region(int bytes, int fill) throws RdmaException {
        MemoryRegion mr = pd.registerMemoryRegion(tcp.arena.allocate(bytes, 4096),
                EnumSet.allOf(org.jtarget.rdma.AccessFlag.class));
        mr.segment().fill((byte) fill);
        return mr;
    }

    @Test
    void aConfiguredEndpointIsReadAndWrittenOverTheTcpProvider() throws Exception {
        int port = freePort();
        start(port, """
                    - { name: head, backstore: ram0, block-count: 16, allowed-peers: [127.0.0.1] }
                    - { name: tail, backstore: ram0, first-block: 2040, read-only: true, allowed-peers: ["::1", 127.0.0.1] }
                """);
        Connection head = connect(port, "head");
        assertThat(head.event().type()).isEqualTo(CmEventType.ESTABLISHED);
        assertThat(EndpointHandshake.accepted(head.event().privateData()))
                .isEqualTo(new EndpointHandshake.Accepted(EndpointHandshake.accepted(head.event().privateData()).rkey(),
                        512, 16 * 512));
        MemoryRegion data = region(4096, 0x5a);
        assertThat(transfer(head, WorkRequestOpcode.RDMA_WRITE, data, 1024, 4096)).isEqualTo(WorkCompletionStatus.SUCCESS);

        Connection again = connect(port, "head");
        MemoryRegion back = region(4096, 0);
        assertThat(transfer(again, WorkRequestOpcode.RDMA_READ, back, 1024, 4096)).isEqualTo(WorkCompletionStatus.SUCCESS);
        assertThat(back.segment().toArray(ValueLayout.JAVA_BYTE)).containsOnly(0x5a);
        assertThat(transfer(again, WorkRequestOpcode.RDMA_READ, back, 16 * 512, 512))
                .as("past the endpoint's 16 blocks").isEqualTo(WorkCompletionStatus.REM_ACCESS_ERR);

        Connection tail = connect(port, "tail");
        assertThat(EndpointHandshake.accepted(tail.event().privateData()).length()).isEqualTo(8 * 512);
        // iWARP: the WRITE completes once sent; the READ behind it fails on the TERMINATE
        assertThat(transfer(tail, WorkRequestOpcode.RDMA_WRITE, data, 0, 512)).isEqualTo(WorkCompletionStatus.SUCCESS);
        assertThat(transfer(tail, WorkRequestOpcode.RDMA_READ, back, 0, 512))
                .as("read-only").isIn(WorkCompletionStatus.REM_ACCESS_ERR, WorkCompletionStatus.WR_FLUSH_ERR);
    }

    @Test
    void stoppingTheDaemonClosesTheEndpoints() throws Exception {
        int port = freePort();
        start(port, "    - { name: e, backstore: ram0, allowed-peers: [127.0.0.1] }\n");
        Connection c = connect(port, "e");
        assertThat(c.event().type()).isEqualTo(CmEventType.ESTABLISHED);
        runtime.stop(Duration.ofSeconds(5));
        runtime = null;
        assertThat(transfer(c, WorkRequestOpcode.RDMA_READ, region(512, 0), 0, 512))
                .isNotEqualTo(WorkCompletionStatus.SUCCESS);
        assertThatThrownBy(() -> connect(port, "e")).isInstanceOf(RdmaException.class);
    }

    /**
     * A block device without {@code size} is sized only when it is opened, so the config reader
     * cannot check an endpoint's range on it: the runtime does, naming the key. (Here a config with
     * such a range is built directly, as the reader would have let it through.)
     */
    @Test
    void aRangePastTheEndOfAStoreKnownOnlyWhenOpenedIsAConfigErrorNamingTheKey() throws Exception {
        int port = freePort();
        Path file = Files.writeString(dir.resolve("jtarget.yaml"), CONFIG.formatted(freePort(), port,
                "    - { name: e, backstore: ram0, allowed-peers: [127.0.0.1] }\n"));
        JtargetConfig loaded = ConfigLoader.load(file);
        // ram0: 1 MiB of 512-byte blocks = 2048 blocks
        for (long[] range : new long[][] {{2048, 0}, {2000, 49}}) {
            RdmaConfig rdma = new RdmaConfig("127.0.0.1", port, List.of(new RdmaConfig.EndpointConfig("e", "ram0",
                    range[0], range[1], false, true, List.of("127.0.0.1"))));
            TargetRuntime r = new TargetRuntime(new JtargetConfig(loaded.source(), loaded.daemon(), loaded.portals(),
                    loaded.backstores(), loaded.targets(), rdma));
            try {
                String key = range[1] == 0 ? "first-block" : "block-count";
                assertThatThrownBy(r::start).isInstanceOf(ConfigException.class)
                        .hasMessageContaining("rdma.endpoints[0]." + key)
                        .hasMessageContaining("outside store ram0 of 2048 blocks");
            } finally {
                r.stop(Duration.ofSeconds(5));
            }
        }
    }

    @Test
    void anAddressInUseIsAConfigErrorNamingTheKey() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
            assertThatThrownBy(() -> start(taken.getLocalPort(),
                    "    - { name: e, backstore: ram0, allowed-peers: [127.0.0.1] }\n"))
                    .isInstanceOf(ConfigException.class)
                    .hasMessageContaining("rdma.listen: 127.0.0.1:" + taken.getLocalPort() + ": ");
        }
    }
}
