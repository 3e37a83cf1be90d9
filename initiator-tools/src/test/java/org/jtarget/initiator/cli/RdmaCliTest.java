package org.jtarget.initiator.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.stream.Collectors;
import org.jtarget.backstore.memory.MemoryBackstore;
import org.jtarget.fabric.endpoint.StoreEndpointSettings;
import org.jtarget.initiator.rdma.EndpointServer;
import org.jtarget.initiator.rdma.GatedBackstore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code jtarget-initiator readcap|read|write|verify rdma://...} against an in-process store
 * endpoint listener ({@link EndpointServer}): output, exit codes and messages.
 */
class RdmaCliTest {

    private EndpointServer server;

    @TempDir
    Path dir;

    @BeforeEach
    void setUp() throws Exception {
        server = new EndpointServer();
    }

    @AfterEach
    void tearDown() throws Exception {
        server.close();
    }

    private static CliRun run(String... args) {
        return CliRun.run(args);
    }

    private static byte[] pattern(String pattern, int bytes) throws Exception {
        byte[] d = new byte[bytes];
        DataPattern.parse(pattern).next(d, bytes);
        return d;
    }

    @Test
    void readcapPrintsTheEndpointsBlockSizeAndBlocks() throws Exception {
        server.memoryEndpoint("disk", 512, 2048, false);
        CliRun r = run("readcap", server.url("disk"));
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).isEqualTo("Block size: 512\nBlocks: 2048\nBytes: 1048576\n");
    }

    @ParameterizedTest
    @ValueSource(ints = {512, 4096})
    void writeThenReadAndVerifyRoundTripOverManyRequests(int blockSize) throws Exception {
        MemoryBackstore store = server.memoryEndpoint("disk", blockSize, (8 << 20) / blockSize, false);
        int blocks = (3 << 20) / blockSize + 3; // a little over 3 MiB: a dozen requests, the last one short
        String lba = "5";
        CliRun w = run("write", server.url("disk"), "--lba", lba, "--blocks", "" + blocks, "--pattern", "random:42");
        assertThat(w.code()).as(w.err()).isZero();
        assertThat(w.out()).isEqualTo("wrote " + blocks + " blocks (" + (long) blocks * blockSize + " bytes) at LBA 5\n");
        byte[] expected = pattern("random:42", blocks * blockSize);
        assertThat(EndpointServer.storeBytes(store, 5, blocks)).isEqualTo(expected);
        assertThat(EndpointServer.storeBytes(store, 0, 5)).containsOnly(0);
        assertThat(EndpointServer.storeBytes(store, 5 + blocks, 1)).containsOnly(0);

        Path file = dir.resolve("read.bin");
        CliRun rd = run("read", server.url("disk"), "--lba", lba, "--blocks", "" + blocks, "--out", file.toString());
        assertThat(rd.code()).as(rd.err()).isZero();
        assertThat(Files.readAllBytes(file)).isEqualTo(expected);

        CliRun v = run("verify", server.url("disk"), "--lba", lba, "--blocks", "" + blocks, "--in", file.toString());
        assertThat(v.code()).as(v.err()).isZero();
        assertThat(v.out()).isEqualTo("verify ok: " + blocks + " blocks at LBA 5\n");
    }

    @Test
    void readWithoutOutHexDumpsFromOffsetZero() throws Exception {
        server.memoryEndpoint("disk", 512, 64, false);
        assertThat(run("write", server.url("disk"), "--lba", "2", "--blocks", "1", "--pattern", "0x41").code()).isZero();
        CliRun r = run("read", server.url("disk"), "--lba", "2", "--blocks", "1");
        assertThat(r.code()).as(r.err()).isZero();
        String[] lines = r.out().split("\n");
        assertThat(lines).hasSize(512 / 16);
        assertThat(lines[0]).isEqualTo("00000000: 41 41 41 41 41 41 41 41 41 41 41 41 41 41 41 41  AAAAAAAAAAAAAAAA");
        assertThat(lines[31]).startsWith("000001f0: 41");
    }

    @Test
    void verifyReportsTheFirstDifferenceAndExitsOne() throws Exception {
        MemoryBackstore store = server.memoryEndpoint("disk", 512, 2048, false);
        assertThat(run("write", server.url("disk"), "--lba", "10", "--blocks", "600",
                "--pattern", "0x11").code()).isZero();
        byte[] changed = pattern("0x11", 512);
        changed[7] = (byte) 0x99;
        store.write(10 + 300, Unpooled.wrappedBuffer(changed), false); // block 300 of the range: a later request
        CliRun v = run("verify", server.url("disk"), "--lba", "10", "--blocks", "600", "--pattern", "0x11");
        assertThat(v.code()).isEqualTo(CliFailure.MISCOMPARE);
        assertThat(v.err()).isEqualTo("jtarget-initiator: miscompare at byte offset " + (300 * 512 + 7)
                + " (LBA 310, byte 7): expected 0x11, read 0x99\n");
    }

    @Test
    void aWriteToAReadOnlyEndpointIsRefusedWithExitFourAndTheStoreUnchanged() throws Exception {
        MemoryBackstore store = server.memoryEndpoint("ro", 512, 2048, true);
        CliRun w = run("write", server.url("ro"), "--lba", "8", "--blocks", "1000", "--pattern", "0xff");
        assertThat(w.code()).as(w.err()).isEqualTo(CliFailure.CHECK_CONDITION);
        assertThat(w.err()).isEqualTo("jtarget-initiator: RDMA WRITE at LBA 8: refused by the endpoint (REM_ACCESS_ERR:"
                + " read-only, outside its 2048 blocks, or not whole blocks)\n");
        assertThat(w.out()).isEmpty();
        assertThat(EndpointServer.storeBytes(store, 0, 2048)).containsOnly(0);
        assertThat(run("verify", server.url("ro"), "--lba", "0", "--blocks", "2048", "--pattern", "0").code())
                .as("a read-only endpoint still reads").isZero();
    }

    @Test
    void aRangePastTheEndIsAUsageErrorBeforeAnythingMoves() throws Exception {
        MemoryBackstore store = server.memoryEndpoint("disk", 512, 2048, false);
        CliRun w = run("write", server.url("disk"), "--lba", "2000", "--blocks", "49", "--pattern", "0xff");
        assertThat(w.code()).isEqualTo(CliFailure.USAGE);
        assertThat(w.err()).startsWith("jtarget-initiator: --lba 2000 --blocks 49 reach past the end of "
                + server.url("disk") + " (2048 blocks)\n");
        assertThat(EndpointServer.storeBytes(store, 0, 2048)).containsOnly(0);
        assertThat(run("read", server.url("disk"), "--lba", "2048", "--blocks", "1").code()).isEqualTo(CliFailure.USAGE);
        assertThat(run("read", server.url("disk"), "--lba", "" + Long.MAX_VALUE, "--blocks", "1").code())
                .isEqualTo(CliFailure.USAGE);
        assertThat(run("read", server.url("disk"), "--lba", "2000", "--blocks", "48").code()).isZero();
    }

    @Test
    void anUnknownEndpointIsALoginFailureWithTheRejectText() {
        CliRun r = run("readcap", server.url("nope"));
        assertThat(r.code()).isEqualTo(CliFailure.LOGIN_FAILED);
        assertThat(r.err()).isEqualTo("jtarget-initiator: " + server.url("nope")
                + ": rejected (unknown endpoint): no endpoint nope\n");
    }

    @Test
    void aPeerTheEndpointDoesNotAllowIsALoginFailureWithTheRejectText() throws Exception {
        server.expose("private", new MemoryBackstore("private", 512, 64, false, false, 4096),
                StoreEndpointSettings.wholeStore(Set.of("192.0.2.10")));
        CliRun r = run("read", server.url("private"), "--lba", "0", "--blocks", "1");
        assertThat(r.code()).isEqualTo(CliFailure.LOGIN_FAILED);
        assertThat(r.err()).isEqualTo("jtarget-initiator: " + server.url("private")
                + ": rejected (peer not allowed): 127.0.0.1\n");
    }

    @Test
    void nothingListeningIsALoginFailure() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort(); // free once closed
        }
        CliRun r = run("readcap", "rdma://127.0.0.1:" + port + "/disk");
        assertThat(r.code()).isEqualTo(CliFailure.LOGIN_FAILED);
        assertThat(r.err()).startsWith("jtarget-initiator: rdma://127.0.0.1:" + port + "/disk: cannot connect");
    }

    @Test
    void aStoreErrorAtTheTargetExitsFive() throws Exception {
        server.expose("bad", GatedBackstore.failing(new MemoryBackstore("bad", 512, 64, false, false, 4096)),
                StoreEndpointSettings.wholeStore(EndpointServer.LOCALHOST));
        CliRun r = run("read", server.url("bad"), "--lba", "4", "--blocks", "2");
        assertThat(r.code()).isEqualTo(CliFailure.IO_ERROR);
        assertThat(r.err()).isEqualTo("jtarget-initiator: RDMA READ at LBA 4: store I/O error at the target (REM_OP_ERR)\n");
    }

    @Test
    void aTransferThatNeverCompletesTimesOutWithExitFive() throws Exception {
        GatedBackstore held = GatedBackstore.held(new MemoryBackstore("stuck", 512, 64, false, false, 4096));
        server.expose("stuck", held, StoreEndpointSettings.wholeStore(EndpointServer.LOCALHOST));
        long start = System.nanoTime();
        CliRun r = run("write", server.url("stuck"), "--lba", "0", "--blocks", "1", "--pattern", "1", "--timeout", "1");
        assertThat(r.code()).isEqualTo(CliFailure.IO_ERROR);
        assertThat(r.err()).isEqualTo("jtarget-initiator: RDMA WRITE at LBA 0: no completion within 1 s\n");
        assertThat(System.nanoTime() - start).isLessThan(5_000_000_000L);
    }

    @Test
    void optionsThatMeanNothingToAStoreEndpointAreUsageErrorsNamingThem() {
        String url = "rdma://127.0.0.1/disk";
        for (String option : new String[] {"--fua", "--digests", "--initiator-name=iqn.me:1"}) {
            CliRun r = run("write", url, "--lba", "0", "--blocks", "1", "--pattern", "1", option);
            assertThat(r.code()).as(option).isEqualTo(CliFailure.USAGE);
            assertThat(r.err()).startsWith("jtarget-initiator: option " + option.split("=")[0]
                    + " is not valid with an rdma:// URL\n");
        }
        for (String command : new String[] {"discover", "inquiry"}) {
            CliRun r = run(command, url);
            assertThat(r.code()).as(command).isEqualTo(CliFailure.USAGE);
            assertThat(r.err()).startsWith("jtarget-initiator: " + command + " needs an iscsi:// URL");
        }
        assertThat(run("read", url, "--lba", "0").code()).isEqualTo(CliFailure.USAGE);
        assertThat(run("write", url, "--lba", "0", "--blocks", "1").code()).isEqualTo(CliFailure.USAGE);
        CliRun scheme = run("readcap", "nvme://h/x");
        assertThat(scheme.code()).isEqualTo(CliFailure.USAGE);
        assertThat(scheme.err()).startsWith("jtarget-initiator: bad URL 'nvme://h/x': must start with iscsi://, iser://, srp:// or rdma://");
        assertThat(scheme.err()).contains(CliArguments.USAGE);
    }

    @Test
    void everyPathStopsItsEventLoopSoTheProcessCanExit() throws Exception {
        Set<Thread> before = Thread.getAllStackTraces().keySet();
        server.memoryEndpoint("disk", 512, 64, false);
        server.memoryEndpoint("ro", 512, 64, true);
        run("readcap", server.url("disk"));
        run("readcap", server.url("nope"));
        run("write", server.url("ro"), "--lba", "0", "--blocks", "1", "--pattern", "1");
        run("verify", server.url("disk"), "--lba", "0", "--blocks", "1", "--pattern", "1");
        long deadline = System.nanoTime() + 5_000_000_000L;
        Set<String> left;
        do {
            Thread.sleep(20);
            left = Thread.getAllStackTraces().keySet().stream()
                    .filter(t -> t.isAlive() && !t.isDaemon() && !before.contains(t))
                    .filter(t -> !t.getName().startsWith("globalEventExecutor")) // Netty's, ends itself after 1 s
                    .map(Thread::getName).collect(Collectors.toSet());
        } while (!left.isEmpty() && System.nanoTime() < deadline);
        assertThat(left).as("threads the runs left behind").isEmpty();
    }
}
