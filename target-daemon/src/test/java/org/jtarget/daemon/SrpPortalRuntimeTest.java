package org.jtarget.daemon;

import org.jtarget.config.ConfigException;
import org.jtarget.config.ConfigLoader;
import org.jtarget.fabric.rdma.Decoded;
import org.jtarget.fabric.srp.SrpTestInitiator;
import org.jtarget.fabric.srp.iu.SrpLoginReject;
import org.jtarget.fabric.srp.iu.SrpPortId;
import org.jtarget.rdma.TcpProviderFixture;
import org.jtarget.rdma.cm.CmEvent;
import org.jtarget.rdma.cm.CmEventType;
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
 * The daemon with a portal marked {@code transport: srp}: an SRP initiator over the iwarp provider
 * logs in to the target whose {@code srp:} identifier it names, as the ACL allows, and moves data;
 * another identifier, or an initiator port the ACL does not list, is refused.
 */
class SrpPortalRuntimeTest {

    private static final SrpPortId TARGET_PORT = SrpPortId.of(0x0123456789abcdefL, 0x00a0b1c2d3e4f501L);
    private static final String CONFIG = """
                daemon: { buffer-pool: { pinned-size: %s, pin: true } }
                portals:
                  - { name: tcp, listen: "127.0.0.1:%d" }
                  - { name: srp, listen: "127.0.0.1:%d", portal-group-tag: 3, transport: srp }
                backstores:
                  - { name: ram0, type: memory, size: 4MiB }
                targets:
                  - iqn: iqn.2026-11.org.jtarget:srp
                    portals: [tcp, srp]
                    acl: [%s]
                    srp: { id-ext: 0x0123456789abcdef, ioc-guid: 0x00a0b1c2d3e4f501 }
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

    private int tcpPort;

    private int start(String pinnedSize, String acl) throws Exception {
        int port = freePort();
        tcpPort = freePort();
        Path file = Files.writeString(dir.resolve("jtarget.yaml"), CONFIG.formatted(pinnedSize, tcpPort, port, acl));
        runtime = new TargetRuntime(ConfigLoader.load(file));
        try {
            runtime.start();
        } catch (ConfigException e) {
            Assumptions.assumeFalse(e.getMessage().contains("not pinned"), "mlock refused: " + e.getMessage());
            throw e;
        }
        return port;
    }

    @Test
    void anSrpPortalServesTheTargetOfItsIdentifier() throws Exception {
        int port = start("6MiB", "\"" + SrpTestInitiator.INITIATOR_PORT.name() + "\"");
        try (SrpTestInitiator initiator = new SrpTestInitiator(client.device)) {
            CmEvent e = initiator.connect(client.cm, new InetSocketAddress("127.0.0.1", port),
                    SrpTestInitiator.linuxLogin(TARGET_PORT));
            assertThat(e.type()).isEqualTo(CmEventType.ESTABLISHED);
            int n = 64 << 10;
            for (int i = 0; i < n; i++) {
                initiator.memory.setByte(SrpTestInitiator.WRITE_AREA + i, i * 13);
            }
            assertThat(initiator.write(0, new byte[] {0x2a, 0, 0, 0, 0, 8, 0, 0, (byte) 128, 0}, n).status())
                    .isEqualTo(ScsiStatus.GOOD);
            assertThat(initiator.read(0, new byte[] {0x28, 0, 0, 0, 0, 8, 0, 0, (byte) 128, 0}, n).status())
                    .isEqualTo(ScsiStatus.GOOD);
            assertThat(initiator.memory.slice(SrpTestInitiator.READ_AREA, n))
                    .isEqualTo(initiator.memory.slice(SrpTestInitiator.WRITE_AREA, n));
            // VPD 0x83 names the SRP target port: protocol identifier 4, "0x" and the 32 hex digits
            assertThat(initiator.read(0, new byte[] {0x12, 1, (byte) 0x83, 0, (byte) 255, 0}, 255).status())
                    .isEqualTo(ScsiStatus.GOOD);
            byte[] page = new byte[255];
            initiator.memory.getBytes(SrpTestInitiator.READ_AREA, page);
            assertThat(new String(page, java.nio.charset.StandardCharsets.US_ASCII)).contains(TARGET_PORT.name());
        }
    }

    /** A reload whose ACL no longer admits the initiator port logs its channel out (SRP_T_LOGOUT), as iSCSI ends such sessions. */
    @Test
    void aReloadThatNoLongerAdmitsTheInitiatorLogsItsChannelOut() throws Exception {
        int port = start("6MiB", "\"" + SrpTestInitiator.INITIATOR_PORT.name() + "\"");
        InetSocketAddress portal = new InetSocketAddress("127.0.0.1", port);
        try (SrpTestInitiator initiator = new SrpTestInitiator(client.device)) {
            assertThat(initiator.connect(client.cm, portal, SrpTestInitiator.linuxLogin(TARGET_PORT)).type())
                    .isEqualTo(CmEventType.ESTABLISHED);
            assertThat(initiator.read(0, new byte[] {0x12, 0, 0, 0, 96, 0}, 96).status()).isEqualTo(ScsiStatus.GOOD);
            Path file = Files.writeString(dir.resolve("jtarget.yaml"),
                    CONFIG.formatted("6MiB", tcpPort, port, "\"0x" + "0".repeat(31) + "1\""));
            runtime.reload(ConfigLoader.load(file));
            io.netty.buffer.ByteBuf logout = initiator.receive();
            assertThat((int) logout.getUnsignedByte(0)).isEqualTo(0x80); // SRP_T_LOGOUT
            logout.release();
            CmEvent end = initiator.nextEvent(5);
            assertThat(end).isNotNull();
            assertThat(end.type()).isEqualTo(CmEventType.DISCONNECTED);
        }
        try (SrpTestInitiator again = new SrpTestInitiator(client.device)) {
            assertThat(rejectReason(again.connect(client.cm, portal, SrpTestInitiator.linuxLogin(TARGET_PORT))))
                    .isEqualTo(SrpLoginReject.UNABLE_TO_ESTABLISH_CHANNEL);
        }
    }

    /**
     * A second SRP portal added by a reload takes logins; removed by the next one, it refuses new
     * logins while the channel made through it before keeps working (its sessions stay, as LIO's).
     */
    @Test
    void anSrpPortalAddedByAReloadListensAndStopsWhenRemovedKeepingItsChannel() throws Exception {
        int port = start("6MiB", "\"*\"");
        int second = freePort();
        String original = CONFIG.formatted("6MiB", tcpPort, port, "\"*\"");
        runtime.reload(ConfigLoader.load(Files.writeString(dir.resolve("jtarget.yaml"), original
                .replace("transport: srp }\n", "transport: srp }\n  - { name: srp2, listen: \"127.0.0.1:" + second
                        + "\", portal-group-tag: 4, transport: srp }\n")
                .replace("portals: [tcp, srp]", "portals: [tcp, srp, srp2]"))));
        InetSocketAddress added = new InetSocketAddress("127.0.0.1", second);
        try (SrpTestInitiator initiator = new SrpTestInitiator(client.device)) {
            assertThat(initiator.connect(client.cm, added, SrpTestInitiator.linuxLogin(TARGET_PORT)).type())
                    .isEqualTo(CmEventType.ESTABLISHED);
            assertThat(initiator.read(0, new byte[] {0x12, 0, 0, 0, 96, 0}, 96).status()).isEqualTo(ScsiStatus.GOOD);

            runtime.reload(ConfigLoader.load(Files.writeString(dir.resolve("jtarget.yaml"), original)));

            try (SrpTestInitiator late = new SrpTestInitiator(client.device)) {
                assertThat(connectOrFailure(late, added)).as("nothing listens on the removed portal")
                        .contains("Connection refused");
            }
            assertThat(initiator.read(0, new byte[] {0x12, 0, 0, 0, 96, 0}, 96).status())
                    .as("the channel made before the removal").isEqualTo(ScsiStatus.GOOD);
        }
    }

    /** The login's event type, or the failure to connect at all. */
    private String connectOrFailure(SrpTestInitiator initiator, InetSocketAddress portal) {
        try {
            return initiator.connect(client.cm, portal, SrpTestInitiator.linuxLogin(TARGET_PORT)).type().name();
        } catch (Exception e) {
            return e.toString();
        }
    }

    @Test
    void anotherIdentifierOrAnInitiatorOutsideTheAclIsRefused() throws Exception {
        int port = start("6MiB", "\"0x" + "0".repeat(31) + "1\"");
        InetSocketAddress portal = new InetSocketAddress("127.0.0.1", port);
        try (SrpTestInitiator initiator = new SrpTestInitiator(client.device)) {
            assertThat(rejectReason(initiator.connect(client.cm, portal, SrpTestInitiator.linuxLogin(TARGET_PORT))))
                    .isEqualTo(SrpLoginReject.UNABLE_TO_ESTABLISH_CHANNEL);
        }
        try (SrpTestInitiator initiator = new SrpTestInitiator(client.device)) {
            assertThat(rejectReason(initiator.connect(client.cm, portal,
                    SrpTestInitiator.linuxLogin(SrpPortId.of(1, 2))))).isEqualTo(SrpLoginReject.UNABLE_TO_ESTABLISH_CHANNEL);
        }
    }

    @Test
    void anSrpPortalWithoutAPinnedArenaIsAOneLineConfigError() {
        assertThatThrownBy(() -> start("0", "\"*\""))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("portals[1].transport")
                .hasMessageContaining("pinned-size");
    }

    private static int rejectReason(CmEvent e) {
        assertThat(e.type()).isEqualTo(CmEventType.REJECTED);
        return ((Decoded.Ok<SrpLoginReject>) SrpLoginReject.decode(e.privateData())).value().reason();
    }
}
