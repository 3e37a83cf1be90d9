package org.jtarget.initiator.rdma;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.jtarget.backstore.memory.MemoryBackstore;
import org.jtarget.backstore.spi.Backstore;
import org.jtarget.fabric.endpoint.StoreEndpointSettings;
import org.jtarget.initiator.rdma.StoreEndpointException.Kind;
import org.jtarget.rdma.WorkCompletionStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The client library against an in-process endpoint listener: transfers in request-sized pieces,
 * and the endpoint (not the client) refusing what lies outside its blocks.
 */
class RdmaStoreEndpointClientTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private EndpointServer server;
    private final List<StoreEndpointClient> clients = new ArrayList<>();

    @BeforeEach
    void setUp() throws Exception {
        server = new EndpointServer();
    }

    @AfterEach
    void tearDown() throws Exception {
        clients.forEach(StoreEndpointClient::close);
        server.close();
    }

    private StoreEndpointClient connect(String name) throws IOException {
        StoreEndpointClient c = StoreEndpointClient.connect("127.0.0.1", server.port(), name, TIMEOUT);
        clients.add(c);
        return c;
    }

    /** Bytes 0, 1, 2... (mod 251, so that no block repeats another) from the start of the transfer. */
    private static BlockSource<RuntimeException> counting() {
        int[] next = {0};
        return (into, length) -> {
            for (int i = 0; i < length; i++) {
                into[i] = (byte) (next[0]++ % 251);
            }
        };
    }

    @Test
    void writesAndReadsBackInRequestSizedPiecesInLbaOrder() throws Exception {
        MemoryBackstore store = server.memoryEndpoint("disk", 4096, 1024, false);
        StoreEndpointClient client = connect("disk");
        assertThat(client.blockSize()).isEqualTo(4096);
        assertThat(client.blockCount()).isEqualTo(1024);
        int blocks = 300; // 4 full requests of 64 blocks (256 KiB) and one of 44: more than the 4 slots
        client.write(3, blocks, counting());
        byte[] expected = new byte[blocks * 4096];
        counting().fill(expected, expected.length);
        assertThat(EndpointServer.storeBytes(store, 3, blocks)).isEqualTo(expected);
        assertThat(EndpointServer.storeBytes(store, 0, 3)).containsOnly(0);
        assertThat(EndpointServer.storeBytes(store, 3 + blocks, 1)).containsOnly(0);

        List<String> pieces = new ArrayList<>();
        ByteArrayOutputStream read = new ByteArrayOutputStream();
        client.read(3, blocks, (lba, n, data) -> {
            pieces.add(lba + "+" + n);
            read.write(data);
        });
        assertThat(pieces).containsExactly("3+64", "67+64", "131+64", "195+64", "259+44");
        assertThat(read.toByteArray()).isEqualTo(expected);
    }

    @Test
    void theEndpointRefusesAWriteReachingPastItsBlocksAndTheStoreStaysUntouched() throws Exception {
        MemoryBackstore store = new MemoryBackstore("part", 512, 64, false, false, 4096);
        server.expose("part", store, new StoreEndpointSettings(false, EndpointServer.LOCALHOST, 16, 32));
        StoreEndpointClient client = connect("part");
        assertThat(client.blockCount()).isEqualTo(32);
        // the client checks nothing: blocks 31 and 32 go out as one request, and the endpoint refuses it
        assertThatThrownBy(() -> client.write(31, 2, (into, length) -> Arrays.fill(into, 0, length, (byte) 0x5a)))
                .isInstanceOfSatisfying(StoreEndpointException.class, e -> {
                    assertThat(e.kind()).isEqualTo(Kind.ACCESS_REFUSED);
                    assertThat(e.status()).isEqualTo(WorkCompletionStatus.REM_ACCESS_ERR);
                    assertThat(e).hasMessage("RDMA WRITE at LBA 31: refused by the endpoint (REM_ACCESS_ERR:"
                            + " read-only, outside its 32 blocks, or not whole blocks)");
                });
        assertThat(EndpointServer.storeBytes(store, 0, 64)).containsOnly(0);
    }

    @Test
    void theEndpointRefusesAReadPastItsBlocks() throws Exception {
        server.memoryEndpoint("disk", 512, 64, false);
        StoreEndpointClient client = connect("disk");
        assertThatThrownBy(() -> client.read(64, 1, (lba, n, data) -> { }))
                .isInstanceOfSatisfying(StoreEndpointException.class, e -> {
                    assertThat(e.kind()).isEqualTo(Kind.ACCESS_REFUSED);
                    assertThat(e).hasMessageStartingWith("RDMA READ at LBA 64: refused by the endpoint");
                });
        // completions may still be owed after a failure: the client says so instead of mixing them up
        assertThatThrownBy(() -> client.read(0, 1, (lba, n, data) -> { }))
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void blocksWithoutARemoteAddressAreRefusedBeforeAnythingIsSent() throws Exception {
        server.memoryEndpoint("disk", 512, 64, false);
        StoreEndpointClient client = connect("disk");
        assertThatThrownBy(() -> client.read(Long.MAX_VALUE / 512, 1, (lba, n, data) -> { }))
                .isInstanceOf(IllegalArgumentException.class);
        client.read(0, 1, (lba, n, data) -> assertThat(data).hasSize(512)); // still usable: nothing was posted
    }

    @Test
    void aStoreErrorAtTheTargetFailsTheTransferWithRemOpErr() throws Exception {
        Backstore failing = GatedBackstore.failing(new MemoryBackstore("bad", 512, 64, false, false, 4096));
        server.expose("bad", failing, StoreEndpointSettings.wholeStore(EndpointServer.LOCALHOST));
        StoreEndpointClient client = connect("bad");
        assertThatThrownBy(() -> client.read(0, 8, (lba, n, data) -> { }))
                .isInstanceOfSatisfying(StoreEndpointException.class, e -> {
                    assertThat(e.kind()).isEqualTo(Kind.FAILED);
                    assertThat(e.status()).isEqualTo(WorkCompletionStatus.REM_OP_ERR);
                    assertThat(e).hasMessage("RDMA READ at LBA 0: store I/O error at the target (REM_OP_ERR)");
                });
    }

    @Test
    void aConnectionLostDuringATransferFailsIt() throws Exception {
        GatedBackstore held = GatedBackstore.held(new MemoryBackstore("held", 512, 64, false, false, 4096));
        server.expose("held", held, StoreEndpointSettings.wholeStore(EndpointServer.LOCALHOST));
        StoreEndpointClient client = connect("held");
        Thread dropper = Thread.ofVirtual().start(() -> {
            try {
                held.awaitAccess();
                server.dropConnections();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        assertThatThrownBy(() -> client.write(0, 4, (into, length) -> { }))
                .isInstanceOfSatisfying(StoreEndpointException.class, e -> {
                    assertThat(e.kind()).isEqualTo(Kind.FAILED);
                    assertThat(e).hasMessageStartingWith("RDMA WRITE at LBA 0: connection lost");
                });
        dropper.join();
    }

    @Test
    void anUnknownEndpointIsNotConnectedWithTheRejectText() throws Exception {
        assertThatThrownBy(() -> connect("nope")).isInstanceOfSatisfying(StoreEndpointException.class, e -> {
            assertThat(e.kind()).isEqualTo(Kind.NOT_CONNECTED);
            assertThat(e).hasMessage("rejected (unknown endpoint): no endpoint nope");
        });
    }
}
