package org.jtarget.fabric.iscsi.session;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.timeout.IdleStateEvent;
import org.jtarget.fabric.iscsi.login.LoginContext;
import org.jtarget.fabric.iscsi.login.LoginSettings;
import org.jtarget.fabric.iscsi.pdu.IscsiPdu;
import org.jtarget.fabric.iscsi.pdu.Opcode;
import org.jtarget.fabric.iscsi.pdu.PduDecodeError;
import org.jtarget.fabric.iscsi.pdu.RejectReason;
import org.jtarget.fabric.iscsi.pdu.ScsiWireCodes;
import org.jtarget.fabric.iscsi.tcp.IscsiTcpTransport;
import org.jtarget.scsi.spi.ScsiCommand;
import org.jtarget.scsi.spi.TmfRequest;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;

class IscsiConnectionTest {

    @Test
    void sessionLogsTheNexusInWithIscsiPortNames() {
        try (SessionFixture f = new SessionFixture()) {
            assertThat(f.core.loggedIn).hasSize(1);
            assertThat(f.core.loggedIn.getFirst().initiatorPortName())
                    .isEqualTo(SessionFixture.INITIATOR + ",i,0x23d000000001");
            assertThat(f.core.loggedIn.getFirst().targetPortName()).isEqualTo(SessionFixture.TARGET + ",t,0x0001");
            assertThat(f.session().tsih()).isNotZero();
        }
    }

    @Test
    void commandsReachTheCoreInCmdSnOrder() {
        try (SessionFixture f = new SessionFixture()) {
            f.send(f.command(2, 2, false, false, 0, null, true));
            assertThat(f.core.submitted).isEmpty();
            f.send(f.command(1, 1, false, false, 0, null, true));
            assertThat(f.core.submitted).extracting(ScsiCommand::tag).containsExactly(1L, 2L);
            assertThat(f.session().window().expCmdSn()).isEqualTo(3);
            // two commands in flight: MaxCmdSN = ExpCmdSN - 1 + window - 2
            assertThat(f.session().window().maxCmdSn()).isEqualTo(3 - 1 + SessionFixture.WINDOW - 2);
        }
    }

    @Test
    void cmdSnOutsideTheWindowIsSilentlyIgnored() {
        try (SessionFixture f = new SessionFixture()) {
            f.send(f.command(1, 1 + SessionFixture.WINDOW, false, false, 0, null, true)); // MaxCmdSN + 1
            f.send(f.command(2, 0, false, false, 0, null, true)); // already used
            assertThat(f.core.submitted).isEmpty();
            assertThat(f.sent()).isEmpty();
            f.send(f.command(3, 1, false, false, 0, null, true));
            assertThat(f.core.submitted).hasSize(1);
        }
    }

    @Test
    void immediateCommandIsDeliveredAtOnceWithoutAdvancingExpCmdSn() {
        try (SessionFixture f = new SessionFixture()) {
            IscsiPdu pdu = f.command(5, 1, false, false, 0, null, true);
            pdu.immediate(true);
            f.send(pdu);
            assertThat(f.core.submitted).hasSize(1);
            assertThat(f.session().window().expCmdSn()).isEqualTo(1);
            ScsiCommand cmd = f.core.submitted.getFirst();
            cmd.fabric().queueStatus(cmd);
            IscsiPdu rsp = f.sent().getFirst();
            assertThat(rsp.expCmdSn()).isEqualTo(1);
            assertThat(rsp.maxCmdSn()).isEqualTo(SessionFixture.WINDOW);
            rsp.release();
        }
    }

    @Test
    void windowMovesAsCommandsComplete() {
        try (SessionFixture f = new SessionFixture()) {
            for (int i = 1; i <= SessionFixture.WINDOW; i++) {
                f.send(f.command(i, i, false, false, 0, null, true));
            }
            assertThat(f.session().window().maxCmdSn()).isEqualTo(SessionFixture.WINDOW); // window full
            f.send(f.command(99, 5, false, false, 0, null, true));
            assertThat(f.core.submitted).hasSize(SessionFixture.WINDOW);
            ScsiCommand first = f.core.submitted.getFirst();
            first.fabric().queueStatus(first);
            IscsiPdu rsp = f.sent().getFirst();
            assertThat(rsp.maxCmdSn()).isEqualTo(SessionFixture.WINDOW + 1);
            rsp.release();
        }
    }

    @Test
    void nopOutGetsNopInWithSameTagAndEchoedData() {
        try (SessionFixture f = new SessionFixture()) {
            ByteBuf ping = Unpooled.copiedBuffer("hello", StandardCharsets.US_ASCII);
            f.send(f.nopOut(0x42, -1, 1, false, ping));
            IscsiPdu in = f.sent().getFirst();
            assertThat(in.opcode()).isEqualTo(Opcode.NOP_IN);
            assertThat(in.initiatorTaskTag()).isEqualTo(0x42);
            assertThat(in.targetTransferTag()).isEqualTo(-1);
            assertThat(in.data().toString(StandardCharsets.US_ASCII)).isEqualTo("hello");
            assertThat(in.statSn()).isEqualTo(100);
            in.release();
            assertThat(ping.refCnt()).isZero();
        }
    }

    @Test
    void idleConnectionIsPingedAndClosedWhenThePingIsNotAnswered() {
        try (SessionFixture f = new SessionFixture()) {
            f.channel.pipeline().fireUserEventTriggered(IdleStateEvent.FIRST_READER_IDLE_STATE_EVENT);
            IscsiPdu ping = f.sent().getFirst();
            assertThat(ping.opcode()).isEqualTo(Opcode.NOP_IN);
            assertThat(ping.initiatorTaskTag()).isEqualTo(-1);
            assertThat(ping.targetTransferTag()).isNotEqualTo(-1);
            // the answer: NOP-Out, ITT 0xffffffff, echoing the TTT, immediate; no reply to it
            f.send(f.nopOut(-1, ping.targetTransferTag(), 1, true, Unpooled.EMPTY_BUFFER));
            ping.release();
            assertThat(f.sent()).isEmpty();
            f.channel.pipeline().fireUserEventTriggered(IdleStateEvent.READER_IDLE_STATE_EVENT);
            SessionFixture.release(f.sent());
            assertThat(f.channel.isOpen()).isTrue();
            f.channel.pipeline().fireUserEventTriggered(IdleStateEvent.READER_IDLE_STATE_EVENT);
            assertThat(f.channel.isOpen()).isFalse();
            assertThat(f.core.loggedOut).hasSize(1);
        }
    }

    @Test
    void sendTargetsAnswerLongerThanMrdslIsSentInParts() {
        try (SessionFixture f = new SessionFixture(64, 16384, 8192, 1, false, "Discovery")) {
            f.connection.textCodec(new HandTextCodec());
            String answer = fetchSendTargetsAnswer(f.alloc(), f::send, () -> f.sent().getFirst(), 64);
            assertThat(answer).isEqualTo(HandTextCodec.expected());
        }
    }

    /**
     * Sends SendTargets=All (ITT 11, CmdSN 1) and follows the answer's continuation (C=1 and a
     * Target Transfer Tag, fetched with empty Text Requests echoing it) to its last part; every
     * part's data segment must be at most {@code maxSegment} bytes. Returns the whole answer.
     */
    static String fetchSendTargetsAnswer(ByteBufAllocator alloc, Consumer<IscsiPdu> send, Supplier<IscsiPdu> next,
                                         int maxSegment) {
        send.accept(textRequest(alloc, -1, 1, Unpooled.copiedBuffer("SendTargets=All\0", StandardCharsets.UTF_8)));
        StringBuilder answer = new StringBuilder();
        for (int part = 0; part < 20; part++) {
            IscsiPdu rsp = next.get();
            assertThat(rsp.opcode()).isEqualTo(Opcode.TEXT_RESPONSE);
            assertThat(rsp.initiatorTaskTag()).isEqualTo(11);
            assertThat(rsp.dataSegmentLength()).isLessThanOrEqualTo(maxSegment);
            answer.append(rsp.data().toString(StandardCharsets.UTF_8));
            boolean fin = rsp.finalFlag();
            int ttt = rsp.targetTransferTag();
            rsp.release();
            if (fin) {
                assertThat(ttt).isEqualTo(-1);
                assertThat(part).as("parts before the last").isPositive();
                return answer.toString();
            }
            assertThat(ttt).isNotEqualTo(-1);
            send.accept(textRequest(alloc, ttt, 2 + part, Unpooled.EMPTY_BUFFER));
        }
        throw new AssertionError("no last part in 20: " + answer);
    }

    private static IscsiPdu textRequest(ByteBufAllocator alloc, int ttt, int cmdSn, ByteBuf data) {
        IscsiPdu req = IscsiPdu.create(alloc, Opcode.TEXT_REQUEST, data);
        req.finalFlag(true);
        req.initiatorTaskTag(11);
        req.targetTransferTag(ttt);
        req.cmdSn(cmdSn);
        return req;
    }

    @Test
    void unknownTextKeyIsNotUnderstood() {
        try (SessionFixture f = new SessionFixture()) {
            f.connection.textCodec(new HandTextCodec());
            IscsiPdu req = IscsiPdu.create(f.alloc(), Opcode.TEXT_REQUEST,
                    Unpooled.copiedBuffer("X-Foo=1\0", StandardCharsets.UTF_8));
            req.finalFlag(true);
            req.targetTransferTag(-1);
            req.cmdSn(1);
            f.send(req);
            IscsiPdu rsp = f.sent().getFirst();
            assertThat(rsp.data().toString(StandardCharsets.UTF_8)).isEqualTo("X-Foo=NotUnderstood\0");
            rsp.release();
        }
    }

    @Test
    void logoutWaitsForOutstandingTasksThenClosesTheSession() {
        try (SessionFixture f = new SessionFixture()) {
            f.send(f.command(1, 1, false, false, 0, null, true));
            IscsiPdu logout = IscsiPdu.create(f.alloc(), Opcode.LOGOUT_REQUEST);
            logout.flags(0x80); // close the session
            logout.initiatorTaskTag(77);
            logout.word20(1 << 16);
            logout.cmdSn(2);
            f.send(logout);
            assertThat(f.sent()).isEmpty();
            ScsiCommand cmd = f.core.submitted.getFirst();
            cmd.fabric().queueStatus(cmd);
            List<IscsiPdu> out = f.sent();
            assertThat(out).extracting(IscsiPdu::opcode).containsExactly(Opcode.SCSI_RESPONSE, Opcode.LOGOUT_RESPONSE);
            assertThat(out.get(1).initiatorTaskTag()).isEqualTo(77);
            assertThat(out.get(1).byte2()).isZero();
            SessionFixture.release(out);
            f.channel.runPendingTasks();
            assertThat(f.channel.isOpen()).isFalse();
            assertThat(f.core.loggedOut).hasSize(1);
        }
    }

    @Test
    void logoutForRecoveryIsNotSupportedAtErl0() {
        try (SessionFixture f = new SessionFixture()) {
            IscsiPdu logout = IscsiPdu.create(f.alloc(), Opcode.LOGOUT_REQUEST);
            logout.flags(0x80 | 2);
            logout.cmdSn(1);
            f.send(logout);
            IscsiPdu rsp = f.sent().getFirst();
            assertThat(rsp.byte2()).isEqualTo(2);
            rsp.release();
            assertThat(f.channel.isOpen()).isTrue();
        }
    }

    @Test
    void abortTaskGoesToTheCoreAndItsAnswerComesBack() {
        try (SessionFixture f = new SessionFixture()) {
            f.send(f.command(0x10, 1, true, false, 512, null, true));
            IscsiPdu tmf = tmf(f, 1, 0x20, 0x10, 2, 1);
            f.send(tmf);
            assertThat(f.core.tmfs).hasSize(1);
            TmfRequest request = f.core.tmfs.getFirst();
            assertThat(request.function()).isEqualTo(TmfRequest.Function.ABORT_TASK);
            assertThat(request.referencedTag()).isEqualTo(0x10);
            ScsiCommand cmd = f.core.submitted.getFirst();
            cmd.markAborted();
            cmd.fabric().abortedTask(cmd);
            request.fabric().queueTmResponse(request);
            IscsiPdu rsp = f.sent().getFirst();
            assertThat(rsp.opcode()).isEqualTo(Opcode.TASK_MGMT_RESPONSE);
            assertThat(rsp.initiatorTaskTag()).isEqualTo(0x20);
            assertThat(rsp.byte2()).isZero();
            rsp.release();
        }
    }

    @Test
    void abortTaskOfACommandNotYetReceivedCompletesAndTheCommandIsDropped() {
        try (SessionFixture f = new SessionFixture()) {
            IscsiPdu tmf = tmf(f, 1, 0x20, 0x10, 1, 2);
            tmf.immediate(true);
            f.send(tmf); // RefCmdSN 2 is inside the window but never arrived
            IscsiPdu rsp = f.sent().getFirst();
            assertThat(rsp.byte2()).isEqualTo(ScsiWireCodes.tmfResponse(TmfRequest.Response.FUNCTION_COMPLETE));
            rsp.release();
            assertThat(f.core.tmfs).isEmpty();
            f.send(f.command(1, 1, false, false, 0, null, true));
            f.send(f.command(0x10, 2, false, false, 0, null, true)); // too late: ignored
            f.send(f.command(3, 3, false, false, 0, null, true));
            assertThat(f.core.submitted).extracting(ScsiCommand::tag).containsExactly(1L, 3L);
        }
    }

    @Test
    void abortTaskOfAFinishedTaskSaysTaskDoesNotExist() {
        try (SessionFixture f = new SessionFixture()) {
            f.send(f.command(0x10, 1, false, false, 0, null, true));
            ScsiCommand cmd = f.core.submitted.getFirst();
            cmd.fabric().queueStatus(cmd);
            SessionFixture.release(f.sent());
            f.send(tmf(f, 1, 0x20, 0x10, 2, 1));
            IscsiPdu rsp = f.sent().getFirst();
            assertThat(rsp.byte2()).isEqualTo(ScsiWireCodes.tmfResponse(TmfRequest.Response.TASK_DOES_NOT_EXIST));
            rsp.release();
        }
    }

    @Test
    void taskReassignIsNotSupported() {
        try (SessionFixture f = new SessionFixture()) {
            f.send(tmf(f, 8, 0x20, 0x10, 1, 1));
            IscsiPdu rsp = f.sent().getFirst();
            assertThat(rsp.byte2()).isEqualTo(4);
            rsp.release();
        }
    }

    @Test
    void decodeErrorIsRejectedWithTheBadHeaderAndFatalOnesClose() {
        try (SessionFixture f = new SessionFixture()) {
            ByteBuf header = Unpooled.buffer(48).writeZero(48).setByte(0, 0x1c);
            f.send(new PduDecodeError(RejectReason.COMMAND_NOT_SUPPORTED, false, header, "bad opcode"));
            IscsiPdu reject = f.sent().getFirst();
            assertThat(reject.opcode()).isEqualTo(Opcode.REJECT);
            assertThat(reject.byte2()).isEqualTo(RejectReason.COMMAND_NOT_SUPPORTED);
            assertThat(reject.data().readableBytes()).isEqualTo(48);
            assertThat(reject.data().getByte(0)).isEqualTo((byte) 0x1c);
            reject.release();
            assertThat(header.refCnt()).isZero();
            assertThat(f.channel.isOpen()).isTrue();
            f.send(new PduDecodeError(RejectReason.PROTOCOL_ERROR, true, Unpooled.buffer(48).writeZero(48), "digest"));
            SessionFixture.release(f.sent());
            assertThat(f.channel.isOpen()).isFalse();
        }
    }

    @Test
    void snackIsRejectedAtErl0() {
        try (SessionFixture f = new SessionFixture()) {
            f.send(IscsiPdu.create(f.alloc(), Opcode.SNACK_REQUEST));
            IscsiPdu reject = f.sent().getFirst();
            assertThat(reject.opcode()).isEqualTo(Opcode.REJECT);
            assertThat(reject.byte2()).isEqualTo(RejectReason.SNACK_REJECT);
            reject.release();
        }
    }

    @Test
    void nonLoginPduBeforeLoginClosesTheConnection() {
        SessionFixture f = new SessionFixture();
        EmbeddedChannel ch = new EmbeddedChannel(SessionFixture.tcp(f.registry, f.portal, f.target,
                LoginSettings.defaults(), ConnectionSettings.defaults()));
        ch.writeInbound(IscsiPdu.create(ch.alloc(), Opcode.NOP_OUT));
        assertThat(ch.isOpen()).isFalse();
        ch.finishAndReleaseAll();
        f.close();
    }

    @Test
    void asyncLogoutRequestIsSentOnShutdown() {
        try (SessionFixture f = new SessionFixture()) {
            f.session().requestLogout(3);
            IscsiPdu async = f.sent().getFirst();
            assertThat(async.opcode()).isEqualTo(Opcode.ASYNC_MESSAGE);
            assertThat(async.bhs().getByte(36)).isEqualTo((byte) 1);
            assertThat(async.bhs().getShort(42)).isEqualTo((short) 3);
            async.release();
        }
    }

    @Test
    void addedConnectionJoinsTheSessionWhichEndsWithItsLastConnection() {
        SessionFixture f = new SessionFixture();
        IscsiTcpTransport transport = SessionFixture.tcp(f.registry, f.portal, f.target,
                LoginSettings.defaults(), ConnectionSettings.defaults());
        IscsiConnection second = (IscsiConnection) transport.engine();
        EmbeddedChannel ch = new EmbeddedChannel(transport);
        second.startFullFeature(new org.jtarget.fabric.iscsi.login.LoginOutcome(f.target, f.params,
                0x23d000000001L, f.session().tsih(), 2, 1, 7));
        assertThat(second.session()).isSameAs(f.session());
        assertThat(f.session().connections()).hasSize(2);
        // commands on either connection share the CmdSN window
        ch.writeInbound(f.command(2, 2, false, false, 0, null, true));
        f.send(f.command(1, 1, false, false, 0, null, true));
        assertThat(f.core.submitted).extracting(ScsiCommand::tag).containsExactly(1L, 2L);
        f.channel.close();
        assertThat(f.core.loggedOut).isEmpty();
        ch.close();
        assertThat(f.core.loggedOut).hasSize(1);
        ch.finishAndReleaseAll();
        f.close();
    }

    private static IscsiPdu tmf(SessionFixture f, int function, int itt, int refItt, int cmdSn, int refCmdSn) {
        IscsiPdu pdu = IscsiPdu.create(f.alloc(), Opcode.TASK_MGMT_REQUEST);
        pdu.flags(0x80 | function);
        pdu.initiatorTaskTag(itt);
        pdu.word20(refItt);
        pdu.cmdSn(cmdSn);
        pdu.maxCmdSn(refCmdSn); // word 32: RefCmdSN
        return pdu;
    }

    /** Hand-written key=value\0 codec and a SendTargets answer long enough to need continuation. */
    static final class HandTextCodec implements TextCodec {

        static String expected() {
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < 5; i++) {
                sb.append("TargetName=iqn.2024-01.org.jtarget:disk").append(i).append('\0');
                sb.append("TargetAddress=127.0.0.1:3260,1").append('\0');
            }
            return sb.toString();
        }

        @Override
        public List<Map.Entry<String, String>> parse(ByteBuf buf) {
            List<Map.Entry<String, String>> pairs = new ArrayList<>();
            for (String kv : buf.toString(StandardCharsets.UTF_8).split("\0")) {
                int eq = kv.indexOf('=');
                pairs.add(Map.entry(kv.substring(0, eq), kv.substring(eq + 1)));
            }
            return pairs;
        }

        @Override
        public ByteBuf encode(List<Map.Entry<String, String>> pairs, ByteBufAllocator alloc) {
            StringBuilder sb = new StringBuilder();
            for (Map.Entry<String, String> e : pairs) {
                sb.append(e.getKey()).append('=').append(e.getValue()).append('\0');
            }
            byte[] bytes = sb.toString().getBytes(StandardCharsets.UTF_8);
            return alloc.buffer(bytes.length).writeBytes(bytes);
        }

        @Override
        public List<Map.Entry<String, String>> sendTargets(String value, LoginContext context, String target) {
            List<Map.Entry<String, String>> out = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                out.add(Map.entry("TargetName", "iqn.2024-01.org.jtarget:disk" + i));
                out.add(Map.entry("TargetAddress", "127.0.0.1:3260,1"));
            }
            return out;
        }
    }
}
