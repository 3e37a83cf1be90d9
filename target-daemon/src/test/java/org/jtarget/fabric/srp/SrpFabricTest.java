package org.jtarget.fabric.srp;

import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoopGroup;
import org.jtarget.backstore.memory.MemoryBackstore;
import org.jtarget.buffer.BufferPool;
import org.jtarget.buffer.PinnedArena;
import org.jtarget.fabric.iscsi.tcp.IscsiTcpFabric;
import org.jtarget.fabric.rdma.Decoded;
import org.jtarget.fabric.srp.iu.SrpIu;
import org.jtarget.fabric.srp.iu.SrpLoginReject;
import org.jtarget.fabric.srp.iu.SrpLoginRequest;
import org.jtarget.fabric.srp.iu.SrpLoginResponse;
import org.jtarget.fabric.srp.iu.SrpPortId;
import org.jtarget.fabric.srp.iu.SrpResponse;
import org.jtarget.io.LunIoExecutors;
import org.jtarget.rdma.PinnedMemoryPolicy;
import org.jtarget.rdma.RdmaDevice;
import org.jtarget.rdma.cm.CmEvent;
import org.jtarget.rdma.cm.CmEventType;
import org.jtarget.rdma.cm.ConnectionManager;
import org.jtarget.rdma.loopback.LoopbackConnectionManager;
import org.jtarget.rdma.loopback.HeldReads;
import org.jtarget.rdma.loopback.LoopbackDevice;
import org.jtarget.scsi.alua.TargetPortGroups;
import org.jtarget.scsi.lun.LogicalUnitDefinition;
import org.jtarget.scsi.lun.LuStatistics;
import org.jtarget.scsi.lun.NodeAcl;
import org.jtarget.scsi.lun.ScsiTargetCore;
import org.jtarget.scsi.lun.TargetRegistry;
import org.jtarget.scsi.lun.TransferCounters;
import org.jtarget.scsi.spi.ScsiStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * SRP end to end in one process: a test initiator that behaves on the wire as Linux's ib_srp over
 * rdma_cm ({@link SrpTestInitiator}) against the real fabric, core and a memory LUN, over the
 * loopback provider (and the iwarp provider in {@link SrpFabricIwarpTest}): the login in the
 * connect request's private data, refusals with their SRP_LOGIN_REJ reasons, commands with direct,
 * indirect and immediate data, credits, task management and both logouts.
 */
class SrpFabricTest {

    static final SrpPortId TARGET_PORT = SrpPortId.of(0x0002c90300a0b1c2L, 0x0002c903000a0b1cL);
    private static final String TARGET = "iqn.2024-01.org.jtarget:srp";
    /** 256 KiB per RDMA transfer, 2 READs per command in flight: a 1 MiB transfer takes 4 of each. */
    private static final SrpLimits LIMITS = new SrpLimits(8, 68 + (64 << 10), 256 << 10, 2);
    private static final byte[] INQUIRY = {0x12, 0, 0, 0, 96, 0};
    private static final byte[] TEST_UNIT_READY = new byte[6];

    private RdmaDevice device;
    private ConnectionManager cm;
    private Runnable closeProvider = () -> { };
    private EventLoopGroup loops;
    private BufferPool pool;
    private LunIoExecutors io;
    private SrpFabric fabric;
    private SocketAddress portal;
    private SrpTestInitiator initiator;
    private ScsiTargetCore core;
    /** Who the target's ACL admits: every initiator port unless a test narrows it. */
    private volatile String admitted = "*";

    /** The provider under test: loopback here, iwarp in {@link SrpFabricIwarpTest}. */
    void provider() throws Exception {
        heldReads = new HeldReads();
        LoopbackDevice loopback = new LoopbackDevice("loopback0", LoopbackDevice.DEFAULT_ATTRIBUTES,
                PinnedMemoryPolicy.ANY_NATIVE, heldReads);
        device = loopback;
        cm = new LoopbackConnectionManager(loopback);
    }

    /** The loopback provider's READ placement, to keep WRITEs waiting for data-out; null for iwarp. */
    HeldReads heldReads;

    void provider(RdmaDevice device, ConnectionManager cm, Runnable close) {
        this.device = device;
        this.cm = cm;
        this.closeProvider = close;
    }

    /** The address to listen on (the loopback provider takes any; iwarp a free port). */
    SocketAddress listenAddress() {
        return new InetSocketAddress("127.0.0.1", 5555);
    }

    @BeforeEach
    void target() throws Exception {
        provider();
        loops = IscsiTcpFabric.newEventLoopGroup(1);
        pool = new BufferPool(1, PinnedArena.map(64 << 20, false));
        io = new LunIoExecutors(1, 64);
        TargetRegistry registry = new TargetRegistry(io, null);
        MemoryBackstore store = new MemoryBackstore("m", 512, 8192, true, false, 65536);
        core = registry.addTarget(new TargetRegistry.TargetSpec(TARGET,
                List.of(new LogicalUnitDefinition(0, store, false, false)), NodeAcl.ANY, new TargetPortGroups(),
                List.of(), Map.of())).core();
        fabric = new SrpFabric(device, cm, pool, loops, LIMITS);
        SrpTarget target = new SrpTarget(TARGET, core, port -> admitted.equals("*") || admitted.equals(port));
        fabric.bind("srp", (InetSocketAddress) listenAddress(), 1,
                name -> name.equals(TARGET_PORT.name()) ? target : null);
        portal = fabric.listenAddresses().getFirst();
        initiator = new SrpTestInitiator(device);
    }

    @AfterEach
    void stop() throws Exception {
        initiator.close();
        fabric.close(Duration.ofSeconds(2));
        closeProvider.run();
        loops.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        io.shutdown(Duration.ofSeconds(5));
        pool.close();
    }

    /** Logs in as Linux does; the new nexus has no unit attention (as over iSCSI): TEST UNIT READY is GOOD. */
    private SrpLoginResponse login() throws Exception {
        CmEvent e = initiator.connect(cm, portal, SrpTestInitiator.linuxLogin(TARGET_PORT));
        assertThat(e.type()).isEqualTo(CmEventType.ESTABLISHED);
        SrpLoginResponse rsp = switch (SrpLoginResponse.decode(e.privateData())) {
            case Decoded.Ok<SrpLoginResponse> ok -> ok.value();
            case Decoded.Malformed<SrpLoginResponse> m -> throw new AssertionError(m.reason());
        };
        assertThat(initiator.read(0, TEST_UNIT_READY, 0).status()).isEqualTo(ScsiStatus.GOOD);
        return rsp;
    }

    @Test
    void linuxLoginIsAcceptedWithCreditsLengthsFormatsAndImmediateData() throws Exception {
        SrpLoginResponse rsp = login();
        assertThat(rsp.requestLimitDelta()).isEqualTo(LIMITS.credits());
        assertThat(rsp.maxInitiatorToTargetIuLength()).isEqualTo(SrpTestInitiator.IU_LENGTH);
        assertThat(rsp.maxTargetToInitiatorIuLength()).isEqualTo(SrpLimits.MAX_TI_IU_LENGTH);
        assertThat(rsp.bufferFormats()).isEqualTo(SrpIu.BUFFER_FORMAT_DIRECT | SrpIu.BUFFER_FORMAT_INDIRECT);
        assertThat(rsp.multiChannelResult()).isEqualTo(SrpLoginResponse.NO_EXISTING_CHANNELS);
        assertThat(rsp.immediateDataSupported()).isTrue();
    }

    @Test
    void inquiryGoesByRdmaWriteWithItsResidualAndACreditBack() throws Exception {
        login();
        SrpResponse rsp = initiator.read(0, INQUIRY, 96);
        assertThat(rsp.status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(rsp.requestLimitDelta()).isEqualTo(1);
        assertThat(initiator.memory.getByte(SrpTestInitiator.READ_AREA) & 0x1f).isZero(); // direct access block device
        // a 200-byte buffer for a 96-byte allocation: an underflow of 104
        rsp = initiator.read(0, INQUIRY, 200);
        assertThat(rsp.flags() & SrpResponse.DIUNDER).isNotZero();
        assertThat(rsp.dataInResidual()).isEqualTo(104);
    }

    @Test
    void oneMebibyteWrittenByRdmaReadAndReadBackThroughAnIndirectList() throws Exception {
        login();
        int n = SrpTestInitiator.DATA_SIZE;
        for (int i = 0; i < n; i++) {
            initiator.memory.setByte(SrpTestInitiator.WRITE_AREA + i, i * 31 + (i >>> 12));
        }
        SrpResponse written = initiator.write(0, new byte[] {0x2a, 0, 0, 0, 0, 0, 0, 0x08, 0x00, 0}, n);
        assertThat(written.status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(written.flags() & (SrpResponse.DOUNDER | SrpResponse.DOOVER)).isZero();

        initiator.memory.setZero(SrpTestInitiator.READ_AREA, n);
        // two descriptors, in reverse order in memory: the second half lands first in the area
        ByteBuf iu = initiator.commandIu(initiator.tag(), 0, new byte[] {0x28, 0, 0, 0, 0, 0, 0, 0x08, 0x00, 0}, 0, 2);
        iu.setByte(7, 2); // DATA-IN DESCRIPTOR COUNT
        iu.writeLong(initiator.address(0)); // the table's own place (entirely in the IU)
        iu.writeInt(initiator.rkey());
        iu.writeInt(32);
        iu.writeInt(n); // TOTAL LENGTH
        initiator.direct(iu, SrpTestInitiator.READ_AREA + n / 2, n / 2);
        initiator.direct(iu, SrpTestInitiator.READ_AREA, n / 2);
        SrpResponse read = SrpTestInitiator.response(initiator.exchange(iu));
        assertThat(read.status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(initiator.memory.slice(SrpTestInitiator.READ_AREA + n / 2, n / 2))
                .isEqualTo(initiator.memory.slice(SrpTestInitiator.WRITE_AREA, n / 2));
        assertThat(initiator.memory.slice(SrpTestInitiator.READ_AREA, n / 2))
                .isEqualTo(initiator.memory.slice(SrpTestInitiator.WRITE_AREA + n / 2, n / 2));

        SrpFabric.ChannelTraffic channel = fabric.channelTraffic().getFirst();
        assertThat(channel.target()).isEqualTo(TARGET);
        assertThat(channel.portal()).isEqualTo("srp");
        for (TransferCounters c : List.of(channel.counters(), fabric.portalTraffic().get("srp"))) {
            assertThat(c.commands(LuStatistics.Op.WRITE)).isEqualTo(1);
            assertThat(c.bytes(LuStatistics.Op.WRITE)).isEqualTo(n);
            assertThat(c.commands(LuStatistics.Op.READ)).isEqualTo(1);
            assertThat(c.bytes(LuStatistics.Op.READ)).isEqualTo(n);
            assertThat(c.commands(LuStatistics.Op.OTHER)).as("the login's TEST UNIT READY").isEqualTo(1);
            assertThat(c.failed()).isZero();
        }
    }

    /**
     * An indirect descriptor whose table is only partly in the IU (one of four entries; r16a: the
     * target fetches the table by RDMA READ), then one whose fetched table does not add up to its
     * TOTAL LENGTH (an invalid field; the channel goes on).
     */
    @Test
    void anIndirectTableOnlyPartlyInTheIuIsFetched() throws Exception {
        login();
        int n = SrpTestInitiator.DATA_SIZE;
        for (int i = 0; i < n; i++) {
            initiator.memory.setByte(SrpTestInitiator.WRITE_AREA + i, i * 7 + (i >>> 10));
        }
        assertThat(initiator.write(0, new byte[] {0x2a, 0, 0, 0, 0, 0, 0, 0x08, 0x00, 0}, n).status())
                .isEqualTo(ScsiStatus.GOOD);
        initiator.memory.setZero(SrpTestInitiator.READ_AREA, n);
        int table = 32 << 10; // the whole table, in the initiator's memory: quarters in reverse order
        for (int q = 0; q < 4; q++) {
            initiator.memory.setLong(table + q * 16, initiator.address(SrpTestInitiator.READ_AREA + (3 - q) * n / 4));
            initiator.memory.setInt(table + q * 16 + 8, initiator.rkey());
            initiator.memory.setInt(table + q * 16 + 12, n / 4);
        }
        byte[] read10 = {0x28, 0, 0, 0, 0, 0, 0, 0x08, 0x00, 0};
        SrpResponse read = SrpTestInitiator.response(initiator.exchange(partialTableIu(read10, table, n)));
        assertThat(read.status()).isEqualTo(ScsiStatus.GOOD);
        for (int q = 0; q < 4; q++) {
            assertThat(initiator.memory.slice(SrpTestInitiator.READ_AREA + (3 - q) * n / 4, n / 4))
                    .isEqualTo(initiator.memory.slice(SrpTestInitiator.WRITE_AREA + q * n / 4, n / 4));
        }
        initiator.memory.setInt(table + 3 * 16 + 12, n / 4 - 512); // the table now adds up to less
        SrpResponse refused = SrpTestInitiator.response(initiator.exchange(partialTableIu(read10, table, n)));
        assertThat(refused.status()).isEqualTo(ScsiStatus.CHECK_CONDITION);
        assertThat(refused.sense()[12]).isEqualTo((byte) 0x0e); // INVALID FIELD IN COMMAND INFORMATION UNIT
        assertThat(initiator.read(0, INQUIRY, 96).status()).isEqualTo(ScsiStatus.GOOD);
    }

    /** A READ with an indirect data-in descriptor: a table of four entries at {@code table}, the first in the IU. */
    private ByteBuf partialTableIu(byte[] cdb, int table, int total) {
        ByteBuf iu = initiator.commandIu(initiator.tag(), 0, cdb, 0, 2);
        iu.setByte(7, 1); // DATA-IN DESCRIPTOR COUNT: one entry in the IU
        iu.writeLong(initiator.address(table));
        iu.writeInt(initiator.rkey());
        iu.writeInt(4 * 16); // the table: four entries
        iu.writeInt(total);
        iu.writeBytes(initiator.memory, table, 16);
        return iu;
    }

    @Test
    void immediateDataIsWrittenAsItCame() throws Exception {
        login();
        for (int i = 0; i < 4096; i++) {
            initiator.memory.setByte(SrpTestInitiator.WRITE_AREA + i, 255 - i);
        }
        SrpResponse written = initiator.writeImmediate(0, new byte[] {0x2a, 0, 0, 0, 0, 8, 0, 0, 8, 0}, 4096);
        assertThat(written.status()).isEqualTo(ScsiStatus.GOOD);
        SrpResponse read = initiator.read(0, new byte[] {0x28, 0, 0, 0, 0, 8, 0, 0, 8, 0}, 4096);
        assertThat(read.status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(initiator.memory.slice(SrpTestInitiator.READ_AREA, 4096))
                .isEqualTo(initiator.memory.slice(SrpTestInitiator.WRITE_AREA, 4096));
    }

    @Test
    void aDescriptorBeyondTheIuIsAnInvalidFieldAndTheChannelGoesOn() throws Exception {
        login();
        ByteBuf iu = initiator.commandIu(initiator.tag(), 0, INQUIRY, 0, 1); // a direct descriptor announced, none sent
        SrpResponse rsp = SrpTestInitiator.response(initiator.exchange(iu));
        assertThat(rsp.status()).isEqualTo(ScsiStatus.CHECK_CONDITION);
        assertThat(rsp.sense()[2] & 0x0f).isEqualTo(0x05); // ILLEGAL REQUEST
        assertThat(rsp.sense()[12]).isEqualTo((byte) 0x0e); // INVALID FIELD IN COMMAND INFORMATION UNIT
        assertThat(rsp.sense()[13]).isEqualTo((byte) 0x03);
        assertThat(rsp.requestLimitDelta()).isEqualTo(1);
        assertThat(initiator.read(0, INQUIRY, 96).status()).isEqualTo(ScsiStatus.GOOD);
    }

    @Test
    void taskManagementIsAnsweredWithItsResponseCode() throws Exception {
        login();
        ByteBuf tmf = tmfIu(initiator.tag() | 0x8000_0000L, 0x08, 0); // LOGICAL UNIT RESET
        SrpResponse rsp = SrpTestInitiator.response(initiator.exchange(tmf));
        assertThat(rsp.flags() & SrpResponse.RSPVALID).isNotZero();
        assertThat(rsp.responseCode()).isEqualTo(SrpResponse.NO_FAILURE);
        // the reset's unit attention, then the LU works again
        assertThat(initiator.read(0, INQUIRY, 96).status()).isEqualTo(ScsiStatus.GOOD);
        rsp = SrpTestInitiator.response(initiator.exchange(tmfIu(initiator.tag(), 0x20, 0))); // no such function
        assertThat(rsp.responseCode()).isEqualTo(SrpResponse.TASK_MANAGEMENT_NOT_SUPPORTED);
        rsp = SrpTestInitiator.response(initiator.exchange(tmfIu(initiator.tag(), 0x01, 12345))); // ABORT TASK, no task
        assertThat(rsp.responseCode()).isEqualTo(SrpResponse.NO_FAILURE);
    }

    private ByteBuf tmfIu(long tag, int function, long taskTag) {
        ByteBuf b = initiator.commandIu(tag, 0, new byte[0], 0, 0);
        b.setByte(0, SrpIu.TSK_MGMT);
        b.writerIndex(48);
        b.setZero(28, 20);
        b.setByte(30, function);
        b.setLong(32, taskTag);
        return b;
    }

    /**
     * Every credit in use (8 WRITEs waiting for their data-out, whose RDMA READ responses are held
     * back): a ninth request gets BUSY and no credit back, and the eight finish GOOD, each giving
     * its credit back.
     */
    @Test
    void aRequestBeyondTheRequestLimitGetsBusy() throws Exception {
        Assumptions.assumeTrue(heldReads != null, "READ responses can be held back on the loopback provider only");
        login();
        heldReads.hold();
        byte[] write10 = {0x2a, 0, 0, 0, 0, 0, 0, 0, 8, 0};
        for (int i = 0; i < LIMITS.credits(); i++) {
            ByteBuf iu = initiator.commandIu(100 + i, 0, write10, 1, 0);
            initiator.direct(iu, SrpTestInitiator.WRITE_AREA, 4096);
            initiator.send(iu);
        }
        for (int i = 0; i < 500 && heldReads.held() < LIMITS.credits(); i++) {
            Thread.sleep(10);
        }
        assertThat(heldReads.held()).as("one RDMA READ per WRITE on the wire").isEqualTo(LIMITS.credits());
        ByteBuf iu = initiator.commandIu(999, 0, INQUIRY, 0, 1);
        initiator.direct(iu, SrpTestInitiator.READ_AREA, 96);
        SrpResponse busy = SrpTestInitiator.response(initiator.exchange(iu));
        assertThat(busy.tag()).isEqualTo(999);
        assertThat(busy.status()).isEqualTo(ScsiStatus.BUSY);
        assertThat(busy.requestLimitDelta()).isZero();
        heldReads.release();
        for (int i = 0; i < LIMITS.credits(); i++) {
            SrpResponse rsp = SrpTestInitiator.response(initiator.receive());
            assertThat(rsp.status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(rsp.requestLimitDelta()).isEqualTo(1);
        }
        assertThat(initiator.read(0, INQUIRY, 96).status()).isEqualTo(ScsiStatus.GOOD);
    }

    /**
     * ABORT TASK of a WRITE whose RDMA READ is in flight: the WRITE gets no SRP_RSP (SAM-5 5.6), the
     * answer comes only after the READ completed (FENCE), and both credits come back (the aborted
     * command's in the task management response or an SRP_CRED_REQ), so the initiator can use all
     * eight again.
     */
    @Test
    void abortTaskOfAWriteWhoseReadIsInFlight() throws Exception {
        Assumptions.assumeTrue(heldReads != null, "READ responses can be held back on the loopback provider only");
        login();
        heldReads.hold();
        ByteBuf write = initiator.commandIu(500, 0, new byte[] {0x2a, 0, 0, 0, 0, 0, 0, 0, 8, 0}, 1, 0);
        initiator.direct(write, SrpTestInitiator.WRITE_AREA, 4096);
        initiator.send(write);
        for (int i = 0; i < 500 && heldReads.held() == 0; i++) {
            Thread.sleep(10);
        }
        assertThat(heldReads.held()).as("the WRITE's RDMA READ on the wire").isPositive();
        initiator.send(tmfIu(501, 0x01, 500)); // ABORT TASK
        assertThat(initiator.poll(300)).as("no answer while the READ is in flight").isNull();
        heldReads.release();
        int credits = 0;
        boolean answered = false;
        for (int i = 0; i < 2 && !(answered && credits == 2); i++) {
            ByteBuf in = initiator.receive();
            int opcode = in.getUnsignedByte(0);
            if (opcode == SrpIu.CRED_REQ) {
                credits += in.getInt(4);
                in.release();
                continue;
            }
            SrpResponse rsp = SrpTestInitiator.response(in);
            assertThat(rsp.tag()).as("only the task management answer").isEqualTo(501);
            assertThat(rsp.responseCode()).isEqualTo(SrpResponse.NO_FAILURE);
            credits += rsp.requestLimitDelta();
            answered = true;
        }
        assertThat(answered).isTrue();
        assertThat(credits).as("the ABORT TASK's credit and the aborted WRITE's").isEqualTo(2);
        assertThat(initiator.read(0, INQUIRY, 96).status()).isEqualTo(ScsiStatus.GOOD);
    }

    @Test
    void anUnknownTargetPortIsRejectedAsUnableToEstablishTheChannel() throws Exception {
        CmEvent e = initiator.connect(cm, portal, SrpTestInitiator.linuxLogin(SrpPortId.of(1, 2)));
        assertThat(rejectReason(e)).isEqualTo(SrpLoginReject.UNABLE_TO_ESTABLISH_CHANNEL);
    }

    @Test
    void anInitiatorOutsideTheAclIsRejected() throws Exception {
        admitted = "0x" + "00".repeat(16);
        CmEvent e = initiator.connect(cm, portal, SrpTestInitiator.linuxLogin(TARGET_PORT));
        assertThat(rejectReason(e)).isEqualTo(SrpLoginReject.UNABLE_TO_ESTABLISH_CHANNEL);
    }

    @Test
    void anIuLengthAboveTheTargetsIsRejectedAsTooLarge() throws Exception {
        SrpLoginRequest big = withLength(SrpTestInitiator.linuxLogin(TARGET_PORT), LIMITS.maxItIuLength() + 1);
        assertThat(rejectReason(initiator.connect(cm, portal, big))).isEqualTo(SrpLoginReject.IU_LENGTH_TOO_LARGE);
    }

    @Test
    void noSupportedDescriptorFormatIsRejected() throws Exception {
        SrpLoginRequest r = SrpTestInitiator.linuxLogin(TARGET_PORT);
        SrpLoginRequest none = new SrpLoginRequest(r.form(), r.tag(), r.maxInitiatorToTargetIuLength(), 0, r.flags(),
                r.immediateDataOffset(), r.initiatorPortId(), r.targetPortId());
        assertThat(rejectReason(initiator.connect(cm, portal, none)))
                .isEqualTo(SrpLoginReject.BUFFER_FORMAT_NOT_SUPPORTED);
    }

    private static SrpLoginRequest withLength(SrpLoginRequest r, int length) {
        return new SrpLoginRequest(r.form(), r.tag(), length, r.bufferFormats(), r.flags(), r.immediateDataOffset(),
                r.initiatorPortId(), r.targetPortId());
    }

    private static int rejectReason(CmEvent e) {
        assertThat(e.type()).isEqualTo(CmEventType.REJECTED);
        return switch (SrpLoginReject.decode(e.privateData())) {
            case Decoded.Ok<SrpLoginReject> ok -> ok.value().reason();
            case Decoded.Malformed<SrpLoginReject> m -> throw new AssertionError(m.reason());
        };
    }

    @Test
    void aSecondSingleChannelLoginLogsTheFirstChannelOut() throws Exception {
        login();
        try (SrpTestInitiator second = new SrpTestInitiator(device)) {
            CmEvent e = second.connect(cm, portal, SrpTestInitiator.linuxLogin(TARGET_PORT));
            assertThat(e.type()).isEqualTo(CmEventType.ESTABLISHED);
            SrpLoginResponse rsp = ((Decoded.Ok<SrpLoginResponse>) SrpLoginResponse.decode(e.privateData())).value();
            assertThat(rsp.multiChannelResult()).isEqualTo(SrpLoginResponse.EXISTING_CHANNELS_TERMINATED);
            ByteBuf logout = initiator.receive();
            assertThat((int) logout.getUnsignedByte(0)).isEqualTo(SrpIu.T_LOGOUT);
            logout.release();
            assertThat(initiator.nextEvent(5).type()).isEqualTo(CmEventType.DISCONNECTED);
            assertThat(second.read(0, INQUIRY, 96).status()).isIn(ScsiStatus.GOOD, ScsiStatus.CHECK_CONDITION);
        }
    }

    @Test
    void initiatorLogoutEndsTheChannelAndTheNexus() throws Exception {
        login();
        assertThat(initiator.read(0, INQUIRY, 96).status()).isEqualTo(ScsiStatus.GOOD);
        initiator.sendRaw(new byte[] {SrpIu.I_LOGOUT, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9});
        assertThat(initiator.nextEvent(5).type()).isEqualTo(CmEventType.DISCONNECTED);
        for (int i = 0; i < 200 && fabric.channels() > 0; i++) {
            Thread.sleep(10);
        }
        assertThat(fabric.channels()).isZero();
    }

    /**
     * A descriptor naming memory the initiator did not register (a wrong handle): the RDMA WRITE
     * fails with a remote access error, which ends that channel only; a new login works.
     */
    @Test
    void aDescriptorOutsideTheInitiatorsRegionEndsThatChannelOnly() throws Exception {
        login();
        try (SrpTestInitiator other = new SrpTestInitiator(device)) {
            assertThat(other.connect(cm, portal, withMultiChannel(SrpTestInitiator.linuxLogin(TARGET_PORT))).type())
                    .isEqualTo(CmEventType.ESTABLISHED);
            ByteBuf iu = initiator.commandIu(initiator.tag(), 0, INQUIRY, 0, 1);
            iu.writeLong(initiator.address(SrpTestInitiator.READ_AREA));
            iu.writeInt(initiator.rkey() ^ 0x5a5a00); // not a handle of the initiator's
            iu.writeInt(96);
            initiator.send(iu);
            assertThat(waitForDisconnect(initiator)).isTrue();
            assertThat(other.read(0, INQUIRY, 96).status()).isEqualTo(ScsiStatus.GOOD);
        }
    }

    private static SrpLoginRequest withMultiChannel(SrpLoginRequest r) {
        return new SrpLoginRequest(r.form(), r.tag(), r.maxInitiatorToTargetIuLength(), r.bufferFormats(),
                r.flags() | SrpLoginRequest.MULTIPLE_INDEPENDENT_CHANNELS, r.immediateDataOffset(),
                r.initiatorPortId(), r.targetPortId());
    }

    /** DISCONNECTED within 5 s (completions the initiator's queue pair flushes meanwhile are skipped). */
    private static boolean waitForDisconnect(SrpTestInitiator initiator) throws Exception {
        CmEvent e = initiator.nextEvent(5);
        return e != null && e.type() == CmEventType.DISCONNECTED;
    }

    @Test
    void aSecondMultiChannelLoginKeepsTheFirstChannel() throws Exception {
        login();
        try (SrpTestInitiator second = new SrpTestInitiator(device)) {
            CmEvent e = second.connect(cm, portal, withMultiChannel(SrpTestInitiator.linuxLogin(TARGET_PORT)));
            SrpLoginResponse rsp = ((Decoded.Ok<SrpLoginResponse>) SrpLoginResponse.decode(e.privateData())).value();
            assertThat(rsp.multiChannelResult()).isEqualTo(SrpLoginResponse.EXISTING_CHANNELS_MAINTAINED);
            assertThat(second.read(0, INQUIRY, 96).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(initiator.read(0, INQUIRY, 96).status()).isEqualTo(ScsiStatus.GOOD);
        }
    }

    @Test
    void anUnknownIuTypeLogsTheChannelOutAndOthersGoOn() throws Exception {
        login();
        initiator.sendRaw(new byte[] {0x77, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1});
        ByteBuf logout = initiator.receive();
        assertThat((int) logout.getUnsignedByte(0)).isEqualTo(SrpIu.T_LOGOUT);
        logout.release();
        assertThat(initiator.nextEvent(5).type()).isEqualTo(CmEventType.DISCONNECTED);
        try (SrpTestInitiator other = new SrpTestInitiator(device)) {
            assertThat(other.connect(cm, portal, SrpTestInitiator.linuxLogin(TARGET_PORT)).type())
                    .isEqualTo(CmEventType.ESTABLISHED);
            assertThat(other.read(0, INQUIRY, 96).status()).isIn(ScsiStatus.GOOD, ScsiStatus.CHECK_CONDITION);
        }
    }
}
