package org.jtarget.fabric.iscsi.session;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import org.jtarget.fabric.iscsi.IscsiPortalDefinition;
import org.jtarget.fabric.iscsi.IscsiTargetDefinition;
import org.jtarget.fabric.iscsi.login.LoginOutcome;
import org.jtarget.fabric.iscsi.login.LoginSettings;
import org.jtarget.fabric.iscsi.login.NegotiatedParameters;
import org.jtarget.fabric.iscsi.pdu.IscsiPdu;
import org.jtarget.fabric.iscsi.pdu.Opcode;
import org.jtarget.fabric.iscsi.tcp.IscsiTcpTransport;
import org.jtarget.scsi.spi.TargetCore;

import java.util.ArrayList;
import java.util.List;

/**
 * An {@link IscsiConnection} over an {@link IscsiTcpTransport} in an EmbeddedChannel, put straight into the full feature phase
 * (no codec, no login: PDUs travel as objects), with a {@link FakeCore}.
 */
final class SessionFixture implements AutoCloseable {

    static final String INITIATOR = "iqn.2024-01.org.test:init";
    static final String TARGET = "iqn.2024-01.org.jtarget:disk";
    static final int WINDOW = 4;

    /** The fake core, or null when the fixture runs a real one. */
    final FakeCore core;
    final SessionRegistry registry = new SessionRegistry();
    final IscsiPortalDefinition portal = new IscsiPortalDefinition("p", "127.0.0.1", 3260, 1);
    final IscsiTargetDefinition target;
    final IscsiConnection connection;
    final EmbeddedChannel channel;
    final NegotiatedParameters params;

    /** Builder-ish parameters: the initiator's MRDSL, MaxBurst, FirstBurst, MaxOutstandingR2T, InitialR2T. */
    SessionFixture(int initiatorMrdsl, int maxBurst, int firstBurst, int maxOutstandingR2t, boolean initialR2t) {
        this(initiatorMrdsl, maxBurst, firstBurst, maxOutstandingR2t, initialR2t, "Normal");
    }

    SessionFixture(int initiatorMrdsl, int maxBurst, int firstBurst, int maxOutstandingR2t, boolean initialR2t,
                   String sessionType) {
        this(initiatorMrdsl, maxBurst, firstBurst, maxOutstandingR2t, initialR2t, sessionType, new FakeCore(),
                0x23d000000001L);
    }

    /** A session of initiator port {@code isid} to a target served by {@code core}. */
    SessionFixture(TargetCore core, long isid) {
        this(8192, 16384, 8192, 2, false, "Normal", core, isid);
    }

    private SessionFixture(int initiatorMrdsl, int maxBurst, int firstBurst, int maxOutstandingR2t,
                           boolean initialR2t, String sessionType, TargetCore targetCore, long isid) {
        this.core = targetCore instanceof FakeCore fake ? fake : null;
        this.target = new IscsiTargetDefinition(TARGET, null, targetCore, List.of("*"), null, List.of(portal));
        params = new NegotiatedParameters(sessionType, INITIATOR, null, "Normal".equals(sessionType) ? TARGET : null,
                false, false, 2, initialR2t, true, initiatorMrdsl, 262144, maxBurst, firstBurst, 2, 20,
                maxOutstandingR2t, true, true, 0);
        LoginSettings settings = new LoginSettings(262144, 1 << 20, 262144, 8, 2, true, false, 2, 20, WINDOW);
        IscsiTcpTransport transport = tcp(registry, portal, target, settings,
                ConnectionSettings.defaults());
        connection = (IscsiConnection) transport.engine();
        channel = new EmbeddedChannel(transport);
        connection.startFullFeature(new LoginOutcome(target, params, isid, 0, 1, 1, 100));
    }

    /** A connection's engine over the TCP transport, which the caller puts in a channel. */
    static IscsiTcpTransport tcp(SessionRegistry registry, IscsiPortalDefinition portal, IscsiTargetDefinition target,
                                 LoginSettings settings, ConnectionSettings connectionSettings) {
        return new IscsiTcpTransport(t -> new IscsiConnection(t, registry, portal, List.of(target), settings,
                connectionSettings));
    }

    SessionFixture() {
        this(8192, 16384, 8192, 2, false);
    }

    ByteBufAllocator alloc() {
        return channel.alloc();
    }

    /** A SCSI Command PDU: READ (R) or WRITE (W) with EDTL, CmdSN and optional immediate data. */
    IscsiPdu command(int itt, int cmdSn, boolean read, boolean write, int edtl, ByteBuf immediate, boolean fin) {
        IscsiPdu pdu = IscsiPdu.create(alloc(), Opcode.SCSI_COMMAND, immediate == null ? Unpooled.EMPTY_BUFFER : immediate);
        pdu.flags((fin ? 0x80 : 0) | (read ? 0x40 : 0) | (write ? 0x20 : 0) | 1);
        pdu.initiatorTaskTag(itt);
        pdu.expectedDataTransferLength(edtl);
        pdu.cmdSn(cmdSn);
        pdu.bhs().setByte(IscsiPdu.CDB_OFFSET, read ? 0x28 : write ? 0x2a : 0x00);
        return pdu;
    }

    IscsiPdu dataOut(int itt, int ttt, int dataSn, int offset, ByteBuf data, boolean fin) {
        IscsiPdu pdu = IscsiPdu.create(alloc(), Opcode.SCSI_DATA_OUT, data);
        pdu.finalFlag(fin);
        pdu.initiatorTaskTag(itt);
        pdu.targetTransferTag(ttt);
        pdu.dataSn(dataSn);
        pdu.bufferOffset(offset);
        return pdu;
    }

    IscsiPdu nopOut(int itt, int ttt, int cmdSn, boolean immediate, ByteBuf data) {
        IscsiPdu pdu = IscsiPdu.create(alloc(), Opcode.NOP_OUT, data);
        pdu.immediate(immediate);
        pdu.finalFlag(true);
        pdu.initiatorTaskTag(itt);
        pdu.targetTransferTag(ttt);
        pdu.cmdSn(cmdSn);
        return pdu;
    }

    static ByteBuf bytes(int length, int seed) {
        ByteBuf b = Unpooled.buffer(length);
        for (int i = 0; i < length; i++) {
            b.writeByte(seed + i);
        }
        return b;
    }

    void send(Object msg) {
        channel.writeInbound(msg);
    }

    /** Every PDU written so far (the caller releases them, see {@link #release}). */
    List<IscsiPdu> sent() {
        List<IscsiPdu> out = new ArrayList<>();
        Object o;
        while ((o = channel.readOutbound()) != null) {
            out.add((IscsiPdu) o);
        }
        return out;
    }

    static void release(List<IscsiPdu> pdus) {
        for (IscsiPdu p : pdus) {
            p.release();
        }
    }

    IscsiSession session() {
        return connection.session();
    }

    @Override
    public void close() {
        channel.finishAndReleaseAll();
    }
}
