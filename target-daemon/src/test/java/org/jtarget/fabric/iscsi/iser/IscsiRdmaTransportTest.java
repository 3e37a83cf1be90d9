package org.jtarget.fabric.iscsi.iser;

import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoopGroup;
import org.jtarget.fabric.rdma.RegisteredMemory;
import org.jtarget.backstore.memory.MemoryBackstore;
import org.jtarget.buffer.BufferPool;
import org.jtarget.buffer.PinnedArena;
import org.jtarget.fabric.iscsi.IscsiPortalDefinition;
import org.jtarget.fabric.iscsi.IscsiTargetDefinition;
import org.jtarget.fabric.iscsi.login.LoginSettings;
import org.jtarget.fabric.iscsi.pdu.IscsiPdu;
import org.jtarget.fabric.iscsi.pdu.Opcode;
import org.jtarget.fabric.iscsi.session.ConnectionSettings;
import org.jtarget.fabric.iscsi.session.IscsiConnection;
import org.jtarget.fabric.iscsi.session.SessionRegistry;
import org.jtarget.fabric.iscsi.tcp.IscsiTcpFabric;
import org.jtarget.io.LunIoExecutors;
import org.jtarget.rdma.ProtectionDomain;
import org.jtarget.rdma.RdmaDevice;
import org.jtarget.rdma.cm.ConnectionManager;
import org.jtarget.rdma.cm.CmEventType;
import org.jtarget.rdma.cm.CmListener;
import org.jtarget.rdma.loopback.LoopbackConnectionManager;
import org.jtarget.rdma.loopback.HeldReads;
import org.jtarget.rdma.loopback.LoopbackDevice;
import org.jtarget.rdma.PinnedMemoryPolicy;
import org.jtarget.scsi.alua.TargetPortGroups;
import org.jtarget.scsi.lun.LogicalUnitDefinition;
import org.jtarget.scsi.lun.NodeAcl;
import org.jtarget.scsi.lun.TargetRegistry;
import org.jtarget.scsi.spi.ScsiStatus;
import org.jtarget.scsi.spi.TargetCore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * iSER end to end in one process: a test initiator that behaves on the wire as Linux's ib_iser
 * ({@link IserTestInitiator}) against the real engine, core and a memory LUN, over the loopback
 * RDMA provider and {@link IscsiRdmaListener}: the iSER CM exchange, an iSER-assisted login with
 * RDMAExtensions=Yes, INQUIRY, and 1 MiB written by RDMA READ and read back by RDMA WRITE.
 */
class IscsiRdmaTransportTest {


    private static final String TARGET = "iqn.2024-01.org.jtarget:iser";
    private static final String INITIATOR = "iqn.2024-01.org.jtarget:ini";
    private static final InetSocketAddress PORTAL = new InetSocketAddress("127.0.0.1", 3260);
    /** 256 KiB per RDMA transfer, 2 READs per task in flight: a 1 MiB transfer takes 4 of each. */
    private static final IserLimits LIMITS = new IserLimits(24, 8, 8192, 256 << 10, 2);

    private RdmaDevice device;
    private ConnectionManager cm;
    private SocketAddress portalAddress;
    private Runnable closeProvider = () -> { };
    private EventLoopGroup loops;
    private BufferPool pool;
    private LunIoExecutors io;
    private RegisteredMemory memory;
    private IscsiRdmaListener listener;
    private CmListener listening;
    private IserTestInitiator initiator;

    /** The provider under test: loopback here, iwarp in {@link IscsiRdmaTransportIwarpTest}. */
    void provider() throws Exception {
        heldReads = new HeldReads();
        LoopbackDevice loopback = new LoopbackDevice("loopback0", LoopbackDevice.DEFAULT_ATTRIBUTES,
                PinnedMemoryPolicy.ANY_NATIVE, heldReads);
        device = loopback;
        cm = new LoopbackConnectionManager(loopback);
    }

    /**
     * Where the loopback provider places RDMA READ responses: at once, or, while holding, only
     * when released (a READ whose response is still on the wire). Null for other providers.
     */
    HeldReads heldReads;

    /** The provider of a subclass. */
    void provider(RdmaDevice device, ConnectionManager cm, Runnable close) {
        this.device = device;
        this.cm = cm;
        this.closeProvider = close;
    }

    /** The address to listen on (the loopback provider takes any; iwarp a free port). */
    SocketAddress listenAddress() {
        return PORTAL;
    }

    @BeforeEach
    void target() throws Exception {
        provider();
        loops = IscsiTcpFabric.newEventLoopGroup(1);
        pool = new BufferPool(1, PinnedArena.map(64 << 20, false));
        io = new LunIoExecutors(1, 64);
        TargetRegistry registry = new TargetRegistry(io, null);
        MemoryBackstore store = new MemoryBackstore("m", 512, 8192, true, false, 65536);
        TargetCore core = registry.addTarget(new TargetRegistry.TargetSpec(TARGET,
                List.of(new LogicalUnitDefinition(0, store, false, false)), NodeAcl.ANY, new TargetPortGroups(),
                List.of(), Map.of())).core();
        IscsiPortalDefinition portal = new IscsiPortalDefinition("iser", "127.0.0.1", 3260, 1);
        IscsiTargetDefinition target = new IscsiTargetDefinition(TARGET, null, core, List.of("*"), null,
                List.of(portal));
        LoginSettings settings = new LoginSettings(8192, 1 << 20, 262144, 8, 2, true, false, 2, 20, 16);
        ProtectionDomain pd = device.allocateProtectionDomain();
        memory = RegisteredMemory.register(pd, pool);
        SessionRegistry sessions = new SessionRegistry();
        listener = new IscsiRdmaListener(device, pd, memory, loops, pool.allocator(), LIMITS, PORTAL,
                Duration.ZERO, t -> new IscsiConnection(t, sessions, portal, List.of(target), settings,
                        ConnectionSettings.defaults()));
        listening = cm.listen(listenAddress(), listener);
        portalAddress = listening.localAddress();
        initiator = new IserTestInitiator(device);
    }

    @AfterEach
    void stop() throws Exception {
        initiator.close();
        listening.close();
        listener.disconnectAll();
        for (int i = 0; i < 200 && listener.connections() > 0; i++) {
            Thread.sleep(10);
        }
        cm.close();
        closeProvider.run();
        loops.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        io.shutdown(Duration.ofSeconds(5));
        pool.close();
    }

    @Test
    void loginInquiryAndOneMebibyteWrittenAndReadBack() throws Exception {
        byte[] accept = initiator.connect(cm, portalAddress, new IserCmPrivateData(true, false).encode());
        assertThat(accept).containsExactly(0x80, 0, 0, 0); // no ZBVA; SEND with invalidate, which it takes
        assertThat(initiator.login(INITIATOR, TARGET)).isZero(); // Status-Class 0: success

        try (ScsiResponse inquiry = scsi(new byte[] {0x12, 0, 0, 0, 96, 0}, true, false, 96)) {
            assertThat(inquiry.byte3()).isEqualTo(ScsiStatus.GOOD);
        }
        assertThat(initiator.memory.getByte(IserTestInitiator.READ_AREA) & 0x1f).isZero(); // direct access block device
        assertThat(initiator.memory.getUnsignedByte(IserTestInitiator.READ_AREA + 4)).isGreaterThanOrEqualTo((short) 31);

        int n = IserTestInitiator.DATA_SIZE;
        for (int i = 0; i < n; i++) {
            initiator.memory.setByte(IserTestInitiator.WRITE_AREA + i, i * 31 + (i >>> 12));
        }
        byte[] write10 = {0x2a, 0, 0, 0, 0, 0, 0, 0x08, 0x00, 0}; // 2048 blocks of 512 at LBA 0
        try (ScsiResponse written = scsi(write10, false, true, n)) {
            assertThat(written.byte3()).isEqualTo(ScsiStatus.GOOD);
            assertThat(written.residualCount()).isZero();
        }
        initiator.memory.setZero(IserTestInitiator.READ_AREA, n);
        byte[] read10 = {0x28, 0, 0, 0, 0, 0, 0, 0x08, 0x00, 0};
        try (ScsiResponse read = scsi(read10, true, false, n)) {
            assertThat(read.byte3()).isEqualTo(ScsiStatus.GOOD);
            assertThat(read.residualCount()).isZero();
        }
        assertThat(initiator.memory.slice(IserTestInitiator.READ_AREA, n))
                .isEqualTo(initiator.memory.slice(IserTestInitiator.WRITE_AREA, n));
        assertThat(initiator.remoteInvalidations).as("the INQUIRY's and the READ's read STags, not the WRITE's")
                .hasSize(2).doesNotHaveDuplicates();
    }

    /** An initiator that cannot take SEND with invalidate (flag 0x40) is told so and gets plain SENDs. */
    @Test
    void noSendWithInvalidateForAnInitiatorWithout() throws Exception {
        byte[] accept = initiator.connect(cm, portalAddress, new IserCmPrivateData(true, true).encode());
        assertThat(accept).containsExactly(0xc0, 0, 0, 0);
        assertThat(initiator.login(INITIATOR, TARGET)).isZero();
        try (ScsiResponse inquiry = scsi(new byte[] {0x12, 0, 0, 0, 96, 0}, true, false, 96)) {
            assertThat(inquiry.byte3()).isEqualTo(ScsiStatus.GOOD);
        }
        assertThat(initiator.remoteInvalidations).isEmpty();
    }

    /**
     * Linux's ib_iser sends a WRITE's first FirstBurstLength bytes (at most the target's 8192) as
     * immediate data and sets the write base offset to its buffer + those bytes: the target must
     * RDMA READ the rest from there, not from base + buffer offset (that read 8 KiB too far).
     */
    /**
     * A fragmented arena (everything held but 252 KiB in free pieces of at most 128 KiB): a 192 KiB
     * WRITE's RDMA READs and READ's RDMA WRITEs (256 KiB chunks here) go in chunks that fit the
     * pieces instead of ending the connection ("no registered memory").
     */
    @Test
    void aFragmentedArenaMovesDataInSmallerChunks() throws Exception {
        initiator.connect(cm, portalAddress, new IserCmPrivateData(true, true).encode());
        assertThat(initiator.login(INITIATOR, TARGET)).isZero();
        List<ByteBuf> held = new ArrayList<>();
        try {
            List<ByteBuf> mebibytes = new ArrayList<>();
            for (ByteBuf b; (b = memory.buffer(1 << 20)) != null; ) {
                mebibytes.add(b);
            }
            assertThat(mebibytes).as("1 MiB slots to hold").hasSizeGreaterThan(3);
            for (int size = 512 << 10; size >= 4096; size >>= 1) { // every free slot taken: an empty arena
                for (ByteBuf b; (b = memory.buffer(size)) != null; ) {
                    held.add(b);
                }
            }
            mebibytes.remove(0).release(); // one 1 MiB slot free, split by a 4 KiB request into
            held.addAll(mebibytes);        // 4 KiB + 8 KiB + ... + 512 KiB; the two largest taken:
            held.add(memory.buffer(4096)); // 252 KiB free in pieces of at most 128 KiB
            held.add(memory.buffer(512 << 10));
            held.add(memory.buffer(256 << 10));
            assertThat(memory.buffer(256 << 10)).as("a 256 KiB registered buffer").isNull();

            int n = 192 << 10; // 384 blocks: more than the largest free piece, less than all of them
            for (int i = 0; i < n; i++) {
                initiator.memory.setByte(IserTestInitiator.WRITE_AREA + i, i * 7 + (i >>> 9));
            }
            try (ScsiResponse written = scsi(new byte[] {0x2a, 0, 0, 0, 0, 0, 0, 0x01, (byte) 0x80, 0}, false, true, n)) {
                assertThat(written.byte3()).isEqualTo(ScsiStatus.GOOD);
            }
            initiator.memory.setZero(IserTestInitiator.READ_AREA, n);
            try (ScsiResponse read = scsi(new byte[] {0x28, 0, 0, 0, 0, 0, 0, 0x01, (byte) 0x80, 0}, true, false, n)) {
                assertThat(read.byte3()).isEqualTo(ScsiStatus.GOOD);
            }
            assertThat(initiator.memory.slice(IserTestInitiator.READ_AREA, n))
                    .isEqualTo(initiator.memory.slice(IserTestInitiator.WRITE_AREA, n));
        } finally {
            held.forEach(ByteBuf::release);
        }
    }

    @Test
    void writeWithImmediateDataReadsTheRestFromTheWriteBaseOffset() throws Exception {
        initiator.connect(cm, portalAddress, new IserCmPrivateData(true, false).encode());
        initiator.immediateData(true);
        assertThat(initiator.login(INITIATOR, TARGET)).isZero();

        int n = IserTestInitiator.DATA_SIZE;
        for (int i = 0; i < n; i++) {
            initiator.memory.setByte(IserTestInitiator.WRITE_AREA + i, i * 7 + (i >>> 13));
        }
        byte[] write10 = {0x2a, 0, 0, 0, 0, 0, 0, 0x08, 0x00, 0}; // 2048 blocks of 512 at LBA 0
        IscsiPdu rsp = initiator.command(write10, false, true, n, 8192);
        try (ScsiResponse written = new ScsiResponse(rsp)) {
            assertThat(rsp.opcode()).isEqualTo(Opcode.SCSI_RESPONSE);
            assertThat(written.byte3()).isEqualTo(ScsiStatus.GOOD);
        }
        initiator.memory.setZero(IserTestInitiator.READ_AREA, n);
        byte[] read10 = {0x28, 0, 0, 0, 0, 0, 0, 0x08, 0x00, 0};
        try (ScsiResponse read = scsi(read10, true, false, n)) {
            assertThat(read.byte3()).isEqualTo(ScsiStatus.GOOD);
        }
        assertThat(initiator.memory.slice(IserTestInitiator.READ_AREA, n))
                .isEqualTo(initiator.memory.slice(IserTestInitiator.WRITE_AREA, n));
    }

    /**
     * A LOGICAL UNIT RESET arrives while a WRITE's RDMA READs are still on the wire: its response
     * must wait until they are complete, since Linux's ib_iser unregisters the ended tasks' buffers
     * on the response and a later READ then fails the connection (seen in the guest suite: the
     * initiator's QP request error, RETRY_EXC_ERR here, conn error 1011).
     */
    @Test
    void taskManagementResponseWaitsForTheRdmaReadsOfTheTasksItEnded() throws Exception {
        startWriteWithItsRdmaReadsHeld();
        initiator.sendTaskManagement(5, 0xffffffff); // LOGICAL UNIT RESET
        assertNothingArrivesUntilTheReadsAreReleased();
        IscsiPdu rsp = initiator.receive();
        try {
            assertThat(rsp.opcode()).isEqualTo(Opcode.TASK_MGMT_RESPONSE);
            assertThat(rsp.bhs().getUnsignedByte(2)).as("TMF response code").isZero(); // Function complete
        } finally {
            rsp.release();
        }
        try (ScsiResponse inquiry = scsi(new byte[] {0x12, 0, 0, 0, 96, 0}, true, false, 96)) {
            assertThat(inquiry.byte3()).isEqualTo(ScsiStatus.GOOD); // the connection goes on
        }
    }

    /**
     * A Logout Request (close the session) arrives while a WRITE's RDMA READs are still on the
     * wire: the Logout Response ends every task of the session for the initiator, which then
     * unregisters their buffers, so it must not leave before the READs are complete. The engine
     * answers a logout only once the session's tasks have ended, and the transport fences a
     * Logout Response (as it does a TMF response or a Reject) in case any READ is still out.
     */
    @Test
    void logoutResponseWaitsForTheRdmaReadsOnTheWire() throws Exception {
        startWriteWithItsRdmaReadsHeld();
        initiator.sendLogout();
        assertNothingArrivesUntilTheReadsAreReleased();
        boolean loggedOut = false;
        for (int i = 0; i < 2 && !loggedOut; i++) { // the WRITE's SCSI Response may come first
            IscsiPdu rsp = initiator.receive();
            try {
                loggedOut = rsp.opcode() == Opcode.LOGOUT_RESPONSE;
                if (loggedOut) {
                    assertThat(rsp.bhs().getUnsignedByte(2)).as("logout response code").isZero();
                }
            } finally {
                rsp.release();
            }
        }
        assertThat(loggedOut).as("a Logout Response").isTrue();
    }

    /** Logs in, holds RDMA READ responses back and sends a WRITE whose READs are then on the wire (loopback only). */
    private void startWriteWithItsRdmaReadsHeld() throws Exception {
        Assumptions.assumeTrue(heldReads != null, "READ responses can be held back on the loopback provider only");
        initiator.connect(cm, portalAddress, new IserCmPrivateData(true, false).encode());
        assertThat(initiator.login(INITIATOR, TARGET)).isZero();
        heldReads.hold();
        byte[] write10 = {0x2a, 0, 0, 0, 0, 0, 0, 0x08, 0x00, 0};
        initiator.sendCommand(write10, false, true, IserTestInitiator.DATA_SIZE);
        for (int i = 0; i < 500 && heldReads.held() == 0; i++) {
            Thread.sleep(2);
        }
        assertThat(heldReads.held()).as("RDMA READs on the wire").isPositive();
    }

    /** No PDU comes for 300 ms while the READs are held; then they are let go. */
    private void assertNothingArrivesUntilTheReadsAreReleased() throws Exception {
        IscsiPdu early = initiator.poll(300);
        if (early != null) {
            early.release();
        }
        assertThat(early).as("a PDU before the WRITE's RDMA READs completed").isNull();
        heldReads.release();
    }

    @Test
    void malformedCmHeaderIsRejected() throws Exception {
        org.assertj.core.api.Assertions.assertThatThrownBy(
                () -> initiator.connect(cm, portalAddress, new byte[] {(byte) 0x80, 0}))
                .hasMessageContaining("REJECTED");
        assertThat(listener.connections()).isZero();
    }

    @Test
    void malformedIserHeaderEndsThatConnectionOnly() throws Exception {
        initiator.connect(cm, portalAddress, new IserCmPrivateData(true, false).encode());
        initiator.sendRaw(new byte[] {0x70, 0, 0, 0}); // opcode 0x7: not in RFC 7145
        assertThat(initiator.nextEvent(5).type()).isEqualTo(CmEventType.DISCONNECTED);
        for (int i = 0; i < 200 && listener.connections() > 0; i++) {
            Thread.sleep(10);
        }
        assertThat(listener.connections()).isZero();

        try (IserTestInitiator other = new IserTestInitiator(device)) {
            other.connect(cm, portalAddress, new IserCmPrivateData(true, false).encode());
            assertThat(other.login(INITIATOR, TARGET)).isZero(); // the portal still serves others
        }
    }

    /** A SCSI command whose response must be a SCSI Response PDU; closes as it is released. */
    private ScsiResponse scsi(byte[] cdb, boolean read, boolean write, int edtl) throws Exception {
        IscsiPdu rsp = initiator.command(cdb, read, write, edtl);
        assertThat(rsp.opcode()).isEqualTo(Opcode.SCSI_RESPONSE);
        return new ScsiResponse(rsp);
    }

    /** A response PDU usable in try-with-resources. */
    private record ScsiResponse(IscsiPdu pdu) implements AutoCloseable {
        int byte3() { return pdu.byte3(); }
        int residualCount() { return pdu.residualCount(); }
        @Override public void close() { pdu.release(); }
    }
}
