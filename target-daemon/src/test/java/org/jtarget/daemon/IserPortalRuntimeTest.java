package org.jtarget.daemon;

import org.jtarget.config.ConfigException;
import org.jtarget.config.ConfigLoader;
import org.jtarget.fabric.iscsi.iser.IserCmPrivateData;
import org.jtarget.fabric.iscsi.iser.IserTestInitiator;
import org.jtarget.fabric.iscsi.pdu.IscsiPdu;
import org.jtarget.fabric.iscsi.pdu.Opcode;
import org.jtarget.rdma.TcpProviderFixture;
import org.jtarget.scsi.spi.ScsiStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The daemon with a portal marked {@code transport: iser} next to a TCP portal of the same target:
 * an iSER initiator over the iwarp provider logs in to the configured target and moves data.
 */
class IserPortalRuntimeTest {

    private static final String TARGET = "iqn.2026-11.org.jtarget:iser";
    private static final String CONFIG = """
                daemon: { buffer-pool: { pinned-size: %s, pin: true } }
                portals:
                  - { name: tcp, listen: "127.0.0.1:%d" }
                  - { name: rdma, listen: "127.0.0.1:%d", portal-group-tag: 2, transport: iser }
                backstores:
                  - { name: ram0, type: memory, size: 4MiB }
                targets:
                  - iqn: %s
                    portals: [tcp, rdma]
                    acl: ["*"]
                    luns: [ { lun: 0, backstore: ram0 } ]
                """;

    @TempDir
    Path dir;

    private final TcpProviderFixture client = new TcpProviderFixture(1);
    private TargetRuntime runtime;

    @AfterEach
    void tearDown() {
        if (runtime != null) {
            runtime.stop(Duration.ofSeconds(5));
        }
        client.close();
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private String config;

    private void start(String pinnedSize, int iserPort) throws Exception {
        config = CONFIG.formatted(pinnedSize, freePort(), iserPort, TARGET);
        Path file = Files.writeString(dir.resolve("jtarget.yaml"), config);
        runtime = new TargetRuntime(ConfigLoader.load(file));
        try {
            runtime.start();
        } catch (ConfigException e) {
            // DESIGN 3: registered memory must be mlocked; a machine whose memlock limit is below the
            // arena cannot run this test
            Assumptions.assumeFalse(e.getMessage().contains("not pinned"), "mlock refused: " + e.getMessage());
            throw e;
        }
    }

    /** A reload that removes the iSER portal stops its listener; one that adds it back binds it again. */
    @Test
    void anIserPortalRemovedByAReloadStopsListeningAndAddedBackListensAgain() throws Exception {
        int port = freePort();
        start("6MiB", port);
        InetSocketAddress portal = new InetSocketAddress("127.0.0.1", port);
        String withIser = config;
        runtime.reload(ConfigLoader.load(Files.writeString(dir.resolve("jtarget.yaml"), withIser
                .replace("  - { name: rdma, listen: \"127.0.0.1:" + port + "\", portal-group-tag: 2, transport: iser }\n", "")
                .replace("portals: [tcp, rdma]", "portals: [tcp]"))));
        try (IserTestInitiator initiator = new IserTestInitiator(client.device)) {
            assertThatThrownBy(() -> initiator.connect(client.cm, portal, new IserCmPrivateData(true, false).encode()))
                    .hasMessageContaining("Connection refused");
        }

        runtime.reload(ConfigLoader.load(Files.writeString(dir.resolve("jtarget.yaml"), withIser)));
        try (IserTestInitiator initiator = new IserTestInitiator(client.device)) {
            initiator.connect(client.cm, portal, new IserCmPrivateData(true, false).encode());
            assertThat(initiator.login("iqn.2026-11.org.jtarget:ini", TARGET)).isZero();
        }
    }

    @Test
    void anIserPortalServesTheConfiguredTarget() throws Exception {
        int port = freePort();
        start("6MiB", port); // fits the usual 8 MiB RLIMIT_MEMLOCK
        try (IserTestInitiator initiator = new IserTestInitiator(client.device)) {
            initiator.connect(client.cm, new InetSocketAddress("127.0.0.1", port),
                    new IserCmPrivateData(true, false).encode());
            assertThat(initiator.login("iqn.2026-11.org.jtarget:ini", TARGET)).isZero();
            int n = 64 << 10;
            for (int i = 0; i < n; i++) {
                initiator.memory.setByte(IserTestInitiator.WRITE_AREA + i, i * 13);
            }
            assertThat(status(initiator.command(new byte[] {0x2a, 0, 0, 0, 0, 8, 0, 0, (byte) 128, 0}, false, true, n)))
                    .isEqualTo(ScsiStatus.GOOD);
            assertThat(status(initiator.command(new byte[] {0x28, 0, 0, 0, 0, 8, 0, 0, (byte) 128, 0}, true, false, n)))
                    .isEqualTo(ScsiStatus.GOOD);
            assertThat(initiator.memory.slice(IserTestInitiator.READ_AREA, n))
                    .isEqualTo(initiator.memory.slice(IserTestInitiator.WRITE_AREA, n));
        }
    }

    @Test
    void anIserPortalWithoutAPinnedArenaIsAOneLineConfigError() {
        assertThatThrownBy(() -> start("0", freePort()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("portals[1].transport")
                .hasMessageContaining("pinned-size");
    }

    private static int status(IscsiPdu response) {
        try {
            assertThat(response.opcode()).isEqualTo(Opcode.SCSI_RESPONSE);
            return response.byte3();
        } finally {
            response.release();
        }
    }
}
