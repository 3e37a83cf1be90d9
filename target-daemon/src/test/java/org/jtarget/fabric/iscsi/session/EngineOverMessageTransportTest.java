package org.jtarget.fabric.iscsi.session;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.jtarget.fabric.iscsi.IscsiPortalDefinition;
import org.jtarget.fabric.iscsi.IscsiTargetDefinition;
import io.netty.channel.embedded.EmbeddedChannel;
import org.jtarget.fabric.iscsi.login.LoginNegotiator;
import org.jtarget.fabric.iscsi.login.LoginOutcome;
import org.jtarget.fabric.iscsi.login.LoginSettings;
import org.jtarget.fabric.iscsi.login.NegotiatedParameters;
import org.jtarget.fabric.iscsi.pdu.IscsiPdu;
import org.jtarget.fabric.iscsi.login.TextParameters;
import org.jtarget.fabric.iscsi.pdu.Opcode;
import org.jtarget.fabric.iscsi.spi.IscsiTransport;
import org.jtarget.fabric.iscsi.tcp.IscsiTcpTransport;
import org.jtarget.scsi.spi.ScsiCommand;
import org.jtarget.scsi.spi.ScsiStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The engine over a transport that is not TCP ({@link MessageTransport}: RDMA-style data
 * movement, no Netty channel): the same login, CmdSN window and tasks, but no R2T and no Data-In
 * PDU ever leaves the engine, and the login speaks iSER's keys, which TCP does not understand.
 */
class EngineOverMessageTransportTest {

    private final FakeCore core = new FakeCore();
    private final ByteBuf initiatorBuffer = Unpooled.buffer(65536).writerIndex(65536);
    private MessageTransport transport;
    private IscsiConnection connection;

    @BeforeEach
    void fullFeature() {
        IscsiPortalDefinition portal = new IscsiPortalDefinition("p", "127.0.0.1", 3260, 1);
        IscsiTargetDefinition target = new IscsiTargetDefinition(SessionFixture.TARGET, null, core, List.of("*"),
                null, List.of(portal));
        // InitialR2T=Yes, ImmediateData=No: every byte of a WRITE is solicited
        NegotiatedParameters params = new NegotiatedParameters("Normal", SessionFixture.INITIATOR, null,
                SessionFixture.TARGET, false, false, 2, true, false, 8192, 262144, 16384, 8192, 2, 20, 1, true,
                true, 0);
        LoginSettings settings = new LoginSettings(262144, 1 << 20, 262144, 8, 2, true, false, 2, 20,
                SessionFixture.WINDOW);
        transport = new MessageTransport(initiatorBuffer);
        connection = new IscsiConnection(transport, new SessionRegistry(), portal, List.of(target), settings,
                ConnectionSettings.defaults());
        transport.engine = connection;
        connection.startFullFeature(new LoginOutcome(target, params, 0x23d000000001L, 0, 1, 1, 100));
    }

    @AfterEach
    void release() {
        transport.release();
        initiatorBuffer.release();
    }

    @Test
    void writeDataIsFetchedByTheTransportWithoutR2t() {
        for (int i = 0; i < 40000; i++) {
            initiatorBuffer.setByte(i, i * 7);
        }
        connection.received(command(1, 1, false, true, 40000));
        ScsiCommand cmd = core.submitted.getFirst();
        cmd.dataOutLength(40000);
        cmd.fabric().writePending(cmd);

        assertThat(transport.dataOutRequests).isEqualTo(1);
        assertThat(core.dataOutComplete).containsExactly(cmd);
        assertThat(cmd.dataOutSegments().readableBytes()).isEqualTo(40000);
        assertThat(cmd.dataOutSegments().asByteBuf().getByte(39999)).isEqualTo((byte) (39999 * 7));
        assertThat(transport.sent).isEmpty(); // no R2T

        cmd.fabric().queueStatus(cmd);
        assertThat(transport.sent).extracting(IscsiPdu::opcode).containsExactly(Opcode.SCSI_RESPONSE);
        assertThat(transport.sent.getFirst().byte3()).isEqualTo(ScsiStatus.GOOD);
        assertThat(transport.sent.getFirst().residualCount()).isZero();
        assertThat(connection.tasks().isEmpty()).isTrue();
    }

    @Test
    void readDataIsWrittenByTheTransportAndTheStatusFollowsInAScsiResponse() {
        connection.received(command(5, 1, true, false, 1000));
        ScsiCommand cmd = core.submitted.getFirst();
        ByteBuf data = SessionFixture.bytes(1500, 9);
        cmd.dataIn(data);
        cmd.fabric().queueDataIn(cmd);

        assertThat(initiatorBuffer.getByte(999)).isEqualTo((byte) (9 + 999));
        assertThat(initiatorBuffer.getByte(1000)).isZero(); // EDTL bounds the transfer
        assertThat(transport.sent).extracting(IscsiPdu::opcode).containsExactly(Opcode.SCSI_RESPONSE);
        IscsiPdu rsp = transport.sent.getFirst();
        assertThat(rsp.initiatorTaskTag()).isEqualTo(5);
        assertThat(rsp.flags()).isEqualTo(IscsiPdu.FINAL_BIT | IscsiPdu.OVERFLOW_BIT);
        assertThat(rsp.residualCount()).isEqualTo(500);
        assertThat(rsp.word36()).isZero(); // ExpDataSN: no Data-In PDU was sent
        assertThat(rsp.maxCmdSn()).isEqualTo(1 + SessionFixture.WINDOW);
        assertThat(data.refCnt()).isZero();
    }

    /**
     * The initiator takes 8192-byte data segments, but the transport's PDUs hold only 32 bytes of
     * data (as an iSER send buffer bounds a long SendTargets answer): the answer goes in parts of
     * at most 32 bytes, C=1 and a Target Transfer Tag on all but the last.
     */
    @Test
    void textAnswersAreCutToWhatTheTransportSendsInOnePdu() {
        transport.maxSendDataSegmentLength = 32;
        connection.textCodec(new IscsiConnectionTest.HandTextCodec());
        String answer = IscsiConnectionTest.fetchSendTargetsAnswer(transport.alloc(), connection::received,
                transport.sent::removeFirst, 32);
        assertThat(answer).isEqualTo(IscsiConnectionTest.HandTextCodec.expected());
    }

    @Test
    void backPressureFollowsTheTransportsWritability() {
        connection.writabilityChanged(false);
        assertThat(transport.reading).isFalse();
        connection.writabilityChanged(true);
        assertThat(transport.reading).isTrue();
    }

    @Test
    void loginOverAnRdmaTransportNegotiatesRdmaExtensions() {
        MessageTransport rdma = new MessageTransport(Unpooled.EMPTY_BUFFER);
        IscsiConnection fresh = newConnection(rdma);
        fresh.transportAttached();
        fresh.received(operationalLogin(rdma));
        try {
            IscsiPdu response = rdma.sent.getFirst();
            assertThat(response.opcode()).isEqualTo(Opcode.LOGIN_RESPONSE);
            assertThat(TextParameters.parse(response.data())).contains(Map.entry("RDMAExtensions", "Yes"));
            assertThat(fresh.session()).isNotNull();
            assertThat(rdma.negotiated).isNotNull(); // the transport learnt the negotiated framing
        } finally {
            rdma.release();
        }
    }

    @Test
    void loginOverTcpLeavesRdmaExtensionsNotUnderstood() {
        EmbeddedChannel channel = new EmbeddedChannel(new IscsiTcpTransport(this::newConnection));
        channel.writeInbound(operationalLogin(transport));
        IscsiPdu response = channel.readOutbound();
        try {
            assertThat(TextParameters.parse(response.data())).contains(Map.entry("RDMAExtensions", "NotUnderstood"));
        } finally {
            response.release();
            channel.finishAndReleaseAll();
        }
    }

    private IscsiConnection newConnection(IscsiTransport t) {
        IscsiPortalDefinition portal = new IscsiPortalDefinition("p", "127.0.0.1", 3260, 1);
        IscsiTargetDefinition target = new IscsiTargetDefinition(SessionFixture.TARGET, null, core, List.of("*"),
                null, List.of(portal));
        IscsiConnection c = new IscsiConnection(t, new SessionRegistry(), portal, List.of(target),
                LoginSettings.defaults(), ConnectionSettings.defaults());
        if (t instanceof MessageTransport m) {
            m.engine = c;
        }
        return c;
    }

    /** A Login Request that starts in the operational stage (no CHAP) and asks for the full feature phase. */
    private static IscsiPdu operationalLogin(IscsiTransport t) {
        ByteBuf text = TextParameters.encode(List.of(Map.entry("InitiatorName", SessionFixture.INITIATOR),
                Map.entry("SessionType", "Normal"), Map.entry("TargetName", SessionFixture.TARGET),
                Map.entry("RDMAExtensions", "Yes")), t.alloc());
        IscsiPdu pdu = IscsiPdu.create(t.alloc(), Opcode.LOGIN_REQUEST, text);
        pdu.immediate(true);
        pdu.flags(LoginNegotiator.TRANSIT_BIT | LoginNegotiator.STAGE_OPERATIONAL << 2
                | LoginNegotiator.STAGE_FULL_FEATURE);
        pdu.isid(0x23d000000009L);
        pdu.cmdSn(1);
        return pdu;
    }

    private IscsiPdu command(int itt, int cmdSn, boolean read, boolean write, int edtl) {
        IscsiPdu pdu = IscsiPdu.create(transport.alloc(), Opcode.SCSI_COMMAND);
        pdu.flags(0x80 | (read ? 0x40 : 0) | (write ? 0x20 : 0) | 1);
        pdu.initiatorTaskTag(itt);
        pdu.expectedDataTransferLength(edtl);
        pdu.cmdSn(cmdSn);
        pdu.bhs().setByte(IscsiPdu.CDB_OFFSET, read ? 0x28 : 0x2a);
        return pdu;
    }
}
