package org.jtarget.daemon;

import io.netty.channel.DefaultEventLoop;
import org.jtarget.config.ConfigLoader;
import org.jtarget.fabric.iscsi.iser.IserCmPrivateData;
import org.jtarget.fabric.iscsi.iser.IserTestInitiator;
import org.jtarget.rdma.AccessFlag;
import org.jtarget.rdma.MemoryRegion;
import org.jtarget.rdma.ProtectionDomain;
import org.jtarget.rdma.TcpProviderFixture;
import org.jtarget.rdma.WorkCompletionStatus;
import org.jtarget.rdma.WorkRequestOpcode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.blockhound.BlockHound;
import reactor.blockhound.BlockingOperationError;
import reactor.blockhound.integration.BlockHoundIntegration;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The event loops never block: the whole daemon, built from a YAML config as {@code jtargetd}
 * builds it, serves login, WRITE (R2T and Data-Out), READ (Data-In) and logout on a memory LUN and a
 * file LUN, and RDMA WRITE and READ of store endpoints on the same stores, while BlockHound watches
 * every Netty event-loop thread. Netty's own integration
 * (netty-common, loaded by BlockHound's ServiceLoader) marks those threads as non-blocking and
 * allows the few blocking calls inside Netty that are known to be harmless.
 *
 * <p>Runs only in the surefire execution "blockhound" (tag below): BlockHound installs a Java agent
 * that rewrites JDK classes for the rest of the JVM's life. Alone:
 * {@code ./dev mvn -B -pl target-daemon test -Dtest=EventLoopBlockingTest -Dsurefire.failIfNoSpecifiedTests=false}
 * (the default execution then selects nothing, which is not an error only with that flag).
 * No blocking call of the daemon is allowed here: the test has no allowlist of its own.
 */
@Tag("blockhound")
class EventLoopBlockingTest {

    private static final String TARGET = "iqn.2026-11.org.jtarget:blockhound";
    private static final int BLOCK = 512;
    /** Bytes of each RDMA transfer. */
    private static final int LENGTH = 64 * 1024;
    /** Every blocking call BlockHound saw on a non-blocking thread, with where it happened. */
    private static final List<String> BLOCKING_CALLS = new CopyOnWriteArrayList<>();

    @TempDir
    Path dir;

    private TargetRuntime runtime;

    @BeforeAll
    static void installBlockHound() {
        BlockHound.install(new RecordBlockingCalls());
    }

    /**
     * Records instead of throwing: a {@link BlockingOperationError} thrown inside a handler would only
     * reach Netty's exceptionCaught and close a connection; recording lets the test name every call.
     */
    static final class RecordBlockingCalls implements BlockHoundIntegration {
        @Override
        public void applyTo(BlockHound.Builder builder) {
            markFileChannelIoAsBlocking(builder);
            builder.blockingMethodCallback(method -> {
                StringWriter trace = new StringWriter();
                new BlockingOperationError(method).printStackTrace(new PrintWriter(trace));
                BLOCKING_CALLS.add(Thread.currentThread().getName() + ": " + trace);
            });
        }

        /**
         * BlockHound's own list knows java.io's file streams but not NIO's file channels, and file
         * LUNs read and write through {@code FileChannel}: these natives under it wait for the disk.
         */
        private static void markFileChannelIoAsBlocking(BlockHound.Builder builder) {
            String dispatcher = "sun.nio.ch.UnixFileDispatcherImpl";
            builder.markAsBlocking(dispatcher, "read0", "(Ljava/io/FileDescriptor;JI)I");
            builder.markAsBlocking(dispatcher, "pread0", "(Ljava/io/FileDescriptor;JIJ)I");
            builder.markAsBlocking(dispatcher, "readv0", "(Ljava/io/FileDescriptor;JI)J");
            builder.markAsBlocking(dispatcher, "write0", "(Ljava/io/FileDescriptor;JI)I");
            builder.markAsBlocking(dispatcher, "pwrite0", "(Ljava/io/FileDescriptor;JIJ)I");
            builder.markAsBlocking(dispatcher, "writev0", "(Ljava/io/FileDescriptor;JI)J");
            builder.markAsBlocking(dispatcher, "force0", "(Ljava/io/FileDescriptor;Z)I");
        }
    }

    @AfterEach
    void stop() {
        if (runtime != null) {
            runtime.stop(Duration.ofSeconds(10));
        }
    }

    /** The test below could not fail if BlockHound were not watching Netty's threads. */
    @Test
    void aSleepOnANettyEventLoopIsCaught() throws Exception {
        onAnEventLoop(() -> {
            Thread.sleep(1);
            return null;
        });
        assertThat(BLOCKING_CALLS).singleElement().asString().contains("java.lang.Thread.sleep");
    }

    /** Nor if it missed a file LUN's way to its file. */
    @Test
    void aFileChannelReadOnANettyEventLoopIsCaught() throws Exception {
        Path file = Files.write(dir.resolve("probe"), new byte[512]);
        try (FileChannel channel = FileChannel.open(file)) {
            onAnEventLoop(() -> channel.read(ByteBuffer.allocateDirect(512), 0));
        }
        assertThat(BLOCKING_CALLS).singleElement().asString().contains("UnixFileDispatcherImpl.pread0");
    }

    private static void onAnEventLoop(Callable<?> work) throws Exception {
        BLOCKING_CALLS.clear();
        DefaultEventLoop loop = new DefaultEventLoop();
        try {
            loop.submit(work).get();
        } finally {
            loop.shutdownGracefully(0, 0, TimeUnit.SECONDS);
        }
    }

    /**
     * The daemon as configured here, started: a memory and a file store, each behind a LUN of one
     * target and an RDMA store endpoint (tcp provider).
     */
    private void startDaemon(int portal, int rdma) throws Exception {
        Path config = Files.writeString(dir.resolve("jtarget.yaml"), """
                daemon: { buffer-pool: { pinned-size: 0 } }
                portals:
                  - { name: default, listen: "127.0.0.1:%d" }
                """.formatted(portal) + storesAndTarget("default") + """
                rdma:
                  listen: "127.0.0.1:%d"
                  endpoints:
                    - { name: ram0, backstore: ram0, allowed-peers: [127.0.0.1] }
                    - { name: file0, backstore: file0, allowed-peers: [127.0.0.1] }
                """.formatted(rdma));
        runtime = (TargetRuntime) DaemonRuntimeFactory.standard().create(ConfigLoader.load(config));
        runtime.start();
        BLOCKING_CALLS.clear(); // what start() did ran on the test's thread, which may block
    }

    /** A memory and a file store, each behind a LUN of one target reachable through {@code portal}. */
    private static String storesAndTarget(String portal) {
        return """
                backstores:
                  - { name: ram0, type: memory, size: 4MiB }
                  - { name: file0, type: file, path: file0.img, size: 4MiB, create: true }
                targets:
                  - iqn: %s
                    portals: [%s]
                    acl: ["*"]
                    luns:
                      - { lun: 0, backstore: ram0 }
                      - { lun: 1, backstore: file0 }
                """.formatted(TARGET, portal);
    }

    @Test
    void loginWriteReadAndLogoutOnMemoryAndFileLunsNeverBlockAnEventLoop() throws Exception {
        int port = freePort();
        startDaemon(port, freePort());

        try (RawIscsiClient client = new RawIscsiClient(new InetSocketAddress("127.0.0.1", port))) {
            client.login("iqn.2026-11.org.jtarget:blockhound-initiator", TARGET);
            for (int lun = 0; lun <= 1; lun++) {
                writeAndReadBack(client, lun, 8, 4096);
                writeAndReadBack(client, lun, 64, 256 * 1024);
            }
            client.logout();
        }

        assertThat(BLOCKING_CALLS).as("blocking calls on event-loop threads").isEmpty();
    }

    /**
     * The RDMA tcp provider's event loops too, on both ends: RDMA WRITE and READ of the store
     * endpoints, whose accesses the responder hands to the stores' I/O threads.
     */
    @Test
    void rdmaWriteAndReadOfMemoryAndFileStoreEndpointsNeverBlockAnEventLoop() throws Exception {
        int port = freePort();
        startDaemon(freePort(), port);

        try (TcpProviderFixture tcp = new TcpProviderFixture(1)) {
            ProtectionDomain pd = tcp.device.allocateProtectionDomain();
            MemoryRegion out = pd.registerMemoryRegion(tcp.arena.allocate(LENGTH, 4096), EnumSet.allOf(AccessFlag.class));
            MemoryRegion in = pd.registerMemoryRegion(tcp.arena.allocate(LENGTH, 4096), EnumSet.allOf(AccessFlag.class));
            for (String endpoint : new String[] {"ram0", "file0"}) {
                RdmaPeer peer = RdmaPeer.connect(tcp, pd, new InetSocketAddress("127.0.0.1", port), endpoint);
                out.segment().fill((byte) endpoint.length());
                in.segment().fill((byte) 0);
                assertThat(peer.transfer(WorkRequestOpcode.RDMA_WRITE, out, 8192, LENGTH)).isEqualTo(WorkCompletionStatus.SUCCESS);
                assertThat(peer.transfer(WorkRequestOpcode.RDMA_READ, in, 8192, LENGTH)).isEqualTo(WorkCompletionStatus.SUCCESS);
                assertThat(in.segment().mismatch(out.segment())).as("data read back from " + endpoint).isEqualTo(-1);
            }
        }

        assertThat(BLOCKING_CALLS).as("blocking calls on event-loop threads").isEmpty();
    }

    /**
     * iSER (RFC 7145) on the daemon's loops: login in SENDs, WRITE by RDMA READ and READ by RDMA
     * WRITE through the iwarp provider, on the memory and the file LUN; the registered arena
     * must be pinned, so a machine whose memlock limit refuses 6 MiB skips this case.
     */
    @Test
    void iserLoginWriteAndReadOnMemoryAndFileLunsNeverBlockAnEventLoop() throws Exception {
        int port = freePort();
        Path config = Files.writeString(dir.resolve("jtarget.yaml"), """
                daemon: { buffer-pool: { pinned-size: 6MiB, pin: true } }
                portals:
                  - { name: rdma, listen: "127.0.0.1:%d", transport: iser }
                """.formatted(port) + storesAndTarget("rdma"));
        runtime = (TargetRuntime) DaemonRuntimeFactory.standard().create(ConfigLoader.load(config));
        try {
            runtime.start();
        } catch (org.jtarget.config.ConfigException e) {
            org.junit.jupiter.api.Assumptions.assumeFalse(e.getMessage().contains("not pinned"), e.getMessage());
            throw e;
        }
        BLOCKING_CALLS.clear();

        try (TcpProviderFixture tcp = new TcpProviderFixture(1);
             IserTestInitiator initiator = new IserTestInitiator(tcp.device)) {
            initiator.connect(tcp.cm, new InetSocketAddress("127.0.0.1", port), new IserCmPrivateData(true, false).encode());
            assertThat(initiator.login("iqn.2026-11.org.jtarget:blockhound-initiator", TARGET)).isZero();
            int n = 256 * 1024;
            for (int lun = 0; lun <= 1; lun++) {
                byte[] write = {0x2a, 0, 0, 0, 0, 64, 0, 0x02, 0x00, 0}; // 512 blocks at LBA 64
                byte[] read = {0x28, 0, 0, 0, 0, 64, 0, 0x02, 0x00, 0};
                initiator.memory.setBytes(IserTestInitiator.WRITE_AREA, new byte[n]);
                initiator.memory.setByte(IserTestInitiator.WRITE_AREA + n - 1, lun + 1);
                initiator.lun(lun);
                initiator.command(write, false, true, n).release();
                initiator.command(read, true, false, n).release();
                assertThat(initiator.memory.getByte(IserTestInitiator.READ_AREA + n - 1)).isEqualTo((byte) (lun + 1));
            }
        }

        assertThat(BLOCKING_CALLS).as("blocking calls on event-loop threads").isEmpty();
    }

    private static void writeAndReadBack(RawIscsiClient client, int lun, long lba, int length) throws IOException {
        byte[] data = new byte[length];
        new Random(lun * 31L + lba).nextBytes(data);
        assertThat(client.write(lun, lba, BLOCK, data)).as("WRITE status, LUN " + lun).isZero();
        byte[] back = new byte[length];
        assertThat(client.read(lun, lba, BLOCK, back)).as("READ status, LUN " + lun).isZero();
        assertThat(back).as("data read back, LUN " + lun).isEqualTo(data);
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
