package org.jtarget.rdma.iwarp;

import org.jtarget.rdma.CompletionQueue;
import org.jtarget.rdma.MemoryRegion;
import org.jtarget.rdma.QueuePair;
import org.jtarget.rdma.QueuePairInitAttributes;
import org.jtarget.rdma.QueuePairState;
import org.jtarget.rdma.RdmaFixture;
import org.jtarget.rdma.WorkCompletionStatus;
import org.jtarget.rdma.WorkRequestOpcode;
import org.jtarget.rdma.cm.CmEvent;
import org.jtarget.rdma.cm.CmEventType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.DataInputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.jtarget.rdma.RdmaFixture.ALL;
import static org.jtarget.rdma.RdmaFixture.rdma;
import static org.jtarget.rdma.RdmaFixture.recv;
import static org.jtarget.rdma.RdmaFixture.send;
import static org.jtarget.rdma.iwarp.FrameDecoderTest.fpdu;
import static org.jtarget.rdma.iwarp.FrameDecoderTest.mpaRequest;
import static org.jtarget.rdma.iwarp.FrameDecoderTest.tagged;
import static org.jtarget.rdma.iwarp.FrameDecoderTest.untagged;
import static org.jtarget.rdma.iwarp.IwarpConnectionTest.assertTerminated;
import static org.jtarget.rdma.iwarp.IwarpConnectionTest.readReply;
import static org.jtarget.rdma.iwarp.TcpFixture.await;

/**
 * RFC 6581's peer-to-peer mode: our initiator asking for it against our responder (every RTR type,
 * then traffic both ways, so the RTR's MSNs are counted alike on both sides), and each side against
 * a raw socket: the exact RTR on the wire, and a reply or a first FPDU that does not match ending
 * the connection with a TERMINATE "no matching RTR option".
 */
class PeerToPeerTest {

    private TcpFixture f;
    private MemoryRegion src;
    private MemoryRegion dst;

    @BeforeEach
    void setUp() throws Exception {
        f = new TcpFixture();
        src = f.register(1 << 16, ALL);
        dst = f.register(1 << 16, ALL);
        RdmaFixture.fill(src.segment(), 3);
    }

    @AfterEach
    void tearDown() {
        f.close();
    }

    // ---- our initiator against our responder -------------------------------------------------------

    @ParameterizedTest
    @EnumSource(value = ReadyToReceive.class, names = {"SEND", "WRITE", "READ"})
    void eachOfferedRtrOpensTheConnectionAndTrafficFollows(ReadyToReceive rtr) throws Exception {
        f.cm.requestPeerToPeer(EnumSet.of(rtr));
        TcpFixture.Pair p = f.new Pair(8);
        assertThat(TcpConnectionManager.readyToReceive(p.clientId)).isEqualTo(rtr);
        assertThat(TcpConnectionManager.readyToReceive(p.serverId)).isEqualTo(rtr);
        trafficBothWays(p);
    }

    @Test
    void ourResponderPicksWriteFromAFullOffer() throws Exception {
        f.cm.requestPeerToPeer(EnumSet.of(ReadyToReceive.SEND, ReadyToReceive.READ, ReadyToReceive.WRITE));
        TcpFixture.Pair p = f.new Pair(8);
        assertThat(TcpConnectionManager.readyToReceive(p.clientId)).isEqualTo(ReadyToReceive.WRITE);
        trafficBothWays(p);
    }

    @Test
    void withoutTheOptionNoRtrIsNegotiated() throws Exception {
        TcpFixture.Pair p = f.new Pair(8);
        assertThat(TcpConnectionManager.readyToReceive(p.clientId)).isEqualTo(ReadyToReceive.NONE);
        assertThat(TcpConnectionManager.readyToReceive(p.serverId)).isEqualTo(ReadyToReceive.NONE);
    }

    /** SENDs, a WRITE and a READ from the initiator, then a SEND from the responder, all succeed. */
    private void trafficBothWays(TcpFixture.Pair p) throws Exception {
        p.b.postRecv(recv(1, dst, 0, 64));
        p.b.postRecv(recv(2, dst, 64, 64));
        p.a.postRecv(recv(3, dst, 8192, 64));
        p.a.postSend(send(10, src, 0, 64));
        p.a.postSend(rdma(WorkRequestOpcode.RDMA_WRITE, 11, src, 1024, 512, dst.address() + 1024, dst.rkey()));
        p.a.postSend(rdma(WorkRequestOpcode.RDMA_READ, 12, dst, 4096, 512, src.address() + 2048, src.rkey()));
        p.a.postSend(send(13, src, 64, 64));
        assertThat(await(p.cqA, 4)).extracting(wc -> wc.status).containsOnly(WorkCompletionStatus.SUCCESS);
        assertThat(await(p.cqB, 2)).extracting(wc -> wc.status).containsOnly(WorkCompletionStatus.SUCCESS);
        p.b.postSend(send(20, src, 128, 64));
        assertThat(await(p.cqB, 1).get(0).status).isEqualTo(WorkCompletionStatus.SUCCESS);
        assertThat(await(p.cqA, 1).get(0).status).isEqualTo(WorkCompletionStatus.SUCCESS);
        assertThat(same(0, 0, 128)).isTrue();
        assertThat(same(1024, 1024, 512)).isTrue();
        assertThat(same(2048, 4096, 512)).isTrue();
        assertThat(same(128, 8192, 64)).isTrue();
        assertThat(p.a.state()).isEqualTo(QueuePairState.RTS);
        assertThat(p.b.state()).isEqualTo(QueuePairState.RTS);
    }

    private boolean same(long srcOff, long dstOff, long len) {
        return src.segment().asSlice(srcOff, len).mismatch(dst.segment().asSlice(dstOff, len)) == -1;
    }

    // ---- our initiator against a raw responder -------------------------------------------------------

    /** A raw responder: our client connected to it, its MPA request read. */
    private final class RawResponder implements AutoCloseable {
        final ServerSocket server = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress());
        final BlockingQueue<CmEvent> events = new LinkedBlockingQueue<>();
        final QueuePair qp;
        final CompletionQueue cq;
        final Socket socket;
        final DataInputStream in;
        final byte[] request;

        RawResponder(Set<ReadyToReceive> offer) throws Exception {
            f.cm.requestPeerToPeer(offer);
            cq = f.device.createCompletionQueue(64, null);
            qp = f.device.createQueuePair(f.pd, new QueuePairInitAttributes(cq, cq, 8, 8, 2, 2));
            f.cm.connect(server.getLocalSocketAddress(), qp, new byte[] {5}, events::add);
            socket = server.accept();
            socket.setSoTimeout(20_000);
            in = new DataInputStream(socket.getInputStream());
            request = readReply(in);
        }

        /** Sends an accepting reply whose IRD/ORD word is {@code ird}/{@code ord} (RTR bits included). */
        void reply(int ird, int ord) throws IOException {
            byte[] pd = {(byte) (ird >>> 8), (byte) ird, (byte) (ord >>> 8), (byte) ord, 6};
            socket.getOutputStream().write(ByteBuffer.allocate(20 + pd.length).put("MPA ID Rep Frame".getBytes())
                    .put((byte) 0x10).put((byte) 2).putShort((short) pd.length).put(pd).array());
        }

        /** The next FPDU's ULPDU (DDP segment). */
        byte[] nextUlpdu() throws IOException {
            int length = in.readUnsignedShort();
            byte[] u = new byte[length];
            in.readFully(u);
            in.skipNBytes((-(2 + length) & 3) + 4);
            return u;
        }

        @Override
        public void close() throws IOException {
            socket.close();
            server.close();
        }
    }

    private static final int P2P = 0x8000;
    private static final int SEND_RTR = 0x4000;
    private static final int WRITE_RTR = 0x8000;
    private static final int READ_RTR = 0x4000;

    @Test
    void theRequestAsksForPeerToPeerAndOffersExactlyTheChosenRtrs() throws Exception {
        try (RawResponder r = new RawResponder(EnumSet.of(ReadyToReceive.SEND, ReadyToReceive.READ))) {
            ByteBuffer b = ByteBuffer.wrap(r.request);
            assertThat(new String(r.request, 0, 16)).isEqualTo("MPA ID Req Frame");
            assertThat(b.get(16) & 0xff).as("flags: enhanced").isEqualTo(0x10);
            assertThat(b.getShort(20) & 0xffff).as("IRD: P2P, SEND RTR, 64").isEqualTo(P2P | SEND_RTR | 64);
            assertThat(b.getShort(22) & 0xffff).as("ORD: READ RTR, 64").isEqualTo(READ_RTR | 64);
            assertThat(r.request[24]).as("the caller's private data").isEqualTo((byte) 5);
        }
    }

    @Test
    void aWriteRtrIsAZeroLengthTaggedWriteAndTheConnectionIsUpAtOnce() throws Exception {
        try (RawResponder r = new RawResponder(EnumSet.of(ReadyToReceive.WRITE, ReadyToReceive.READ))) {
            r.reply(P2P | 16, WRITE_RTR | 16);
            ByteBuffer u = ByteBuffer.wrap(r.nextUlpdu());
            assertThat(u.capacity()).as("tagged header, no payload").isEqualTo(14);
            assertThat(u.get(0) & 0xff).as("tagged, last, DDP 1").isEqualTo(0xc1);
            assertThat(u.get(1) & 0x0f).as("RDMA WRITE").isEqualTo(0);
            CmEvent e = TcpFixture.next(r.events, CmEventType.ESTABLISHED);
            assertThat(e.privateData()).containsExactly(6);
            assertThat(TcpConnectionManager.readyToReceive(e.id())).isEqualTo(ReadyToReceive.WRITE);
            r.qp.postSend(send(1, src, 0, 8));
            ByteBuffer next = ByteBuffer.wrap(r.nextUlpdu());
            assertThat(next.getInt(10)).as("the first SEND's MSN").isEqualTo(1);
        }
    }

    @Test
    void aSendRtrTakesTheFirstSendMsn() throws Exception {
        try (RawResponder r = new RawResponder(EnumSet.of(ReadyToReceive.SEND))) {
            r.reply(P2P | SEND_RTR | 16, 16);
            ByteBuffer u = ByteBuffer.wrap(r.nextUlpdu());
            assertThat(u.capacity()).as("untagged header, no payload").isEqualTo(18);
            assertThat(u.get(1) & 0x0f).as("SEND").isEqualTo(3);
            assertThat(new int[] {u.getInt(6), u.getInt(10), u.getInt(14)}).as("queue, MSN, MO")
                    .containsExactly(0, 1, 0);
            TcpFixture.next(r.events, CmEventType.ESTABLISHED);
            r.qp.postSend(send(1, src, 0, 8));
            assertThat(ByteBuffer.wrap(r.nextUlpdu()).getInt(10)).as("the first SEND's MSN").isEqualTo(2);
        }
    }

    /**
     * The connection is up as soon as the READ RTR is out (as with Linux's siw initiator; a siw
     * responder can miss an RTR and needs the next FPDU to notice it), and the RTR's zero-length
     * response, whenever it comes, is consumed: the first real READ gets the next response's data.
     */
    @Test
    void aReadRtrOpensTheConnectionAtOnceAndItsResponseIsConsumedLater() throws Exception {
        try (RawResponder r = new RawResponder(EnumSet.of(ReadyToReceive.READ))) {
            r.reply(P2P | 16, READ_RTR | 16);
            ByteBuffer u = ByteBuffer.wrap(r.nextUlpdu());
            assertThat(u.capacity()).as("untagged header and READ request").isEqualTo(18 + 28);
            assertThat(u.get(1) & 0x0f).as("READ request").isEqualTo(1);
            assertThat(new int[] {u.getInt(6), u.getInt(10), u.getInt(18 + 12)}).as("queue, MSN, size")
                    .containsExactly(1, 1, 0);
            CmEvent e = TcpFixture.next(r.events, CmEventType.ESTABLISHED);
            assertThat(e.privateData()).containsExactly(6);
            r.qp.postSend(rdma(WorkRequestOpcode.RDMA_READ, 1, dst, 0, 8, 0x1000, 0x77));
            ByteBuffer read = ByteBuffer.wrap(r.nextUlpdu());
            assertThat(read.getInt(10)).as("the first READ request's MSN").isEqualTo(2);
            r.socket.getOutputStream().write(fpdu(tagged(2, true, u.getInt(18), u.getLong(22), new byte[0]), false));
            byte[] data = {1, 2, 3, 4, 5, 6, 7, 8};
            r.socket.getOutputStream().write(fpdu(tagged(2, true, read.getInt(18), read.getLong(22), data), false));
            assertThat(await(r.cq, 1).get(0).status).isEqualTo(WorkCompletionStatus.SUCCESS);
            byte[] placed = new byte[8];
            MemorySegment.copy(dst.segment(), ValueLayout.JAVA_BYTE, 0, placed, 0, 8);
            assertThat(placed).as("the READ's data, not the RTR's response").containsExactly(data);
        }
    }

    @Test
    void aReadRtrAnsweredWithDataTerminates() throws Exception {
        try (RawResponder r = new RawResponder(EnumSet.of(ReadyToReceive.READ))) {
            r.reply(P2P | 16, READ_RTR | 16);
            ByteBuffer u = ByteBuffer.wrap(r.nextUlpdu());
            TcpFixture.next(r.events, CmEventType.ESTABLISHED);
            r.socket.getOutputStream().write(fpdu(tagged(2, true, u.getInt(18), u.getLong(22), new byte[8]), false));
            assertTerminated(r.socket, TerminateCode.DDP_BASE_BOUNDS);
            TcpFixture.next(r.events, CmEventType.DISCONNECTED);
        }
    }

    @Test
    void aReplyPickingAnRtrWeDidNotOfferEndsWithNoMatchingRtr() throws Exception {
        try (RawResponder r = new RawResponder(EnumSet.of(ReadyToReceive.READ))) {
            r.reply(P2P | 16, WRITE_RTR | 16); // what siw answers an offer of SEND alone
            assertTerminated(r.socket, TerminateCode.MPA_NO_MATCHING_RTR);
            TcpFixture.next(r.events, CmEventType.UNREACHABLE);
            assertThat(r.qp.state()).isNotEqualTo(QueuePairState.RTS);
        }
    }

    @Test
    void aReplyWithoutPeerToPeerEndsWithNoMatchingRtr() throws Exception {
        try (RawResponder r = new RawResponder(EnumSet.of(ReadyToReceive.WRITE))) {
            r.reply(16, 16);
            assertTerminated(r.socket, TerminateCode.MPA_NO_MATCHING_RTR);
            TcpFixture.next(r.events, CmEventType.UNREACHABLE);
        }
    }

    @Test
    void aReplyPickingTwoRtrsEndsWithNoMatchingRtr() throws Exception {
        try (RawResponder r = new RawResponder(EnumSet.of(ReadyToReceive.WRITE, ReadyToReceive.READ))) {
            r.reply(P2P | 16, WRITE_RTR | READ_RTR | 16);
            assertTerminated(r.socket, TerminateCode.MPA_NO_MATCHING_RTR);
            TcpFixture.next(r.events, CmEventType.UNREACHABLE);
        }
    }

    // ---- a raw initiator against our responder --------------------------------------------------------

    /** A raw initiator that asked for peer-to-peer mode with {@code ird}/{@code ord}; the reply read. */
    private final class RawInitiator implements AutoCloseable {
        final BlockingQueue<QueuePair> accepted = new LinkedBlockingQueue<>();
        final BlockingQueue<CmEvent> events = new LinkedBlockingQueue<>();
        final Socket socket;
        final DataInputStream in;
        final byte[] reply;

        RawInitiator(int ird, int ord) throws Exception {
            CompletionQueue cq = f.device.createCompletionQueue(64, null);
            var listener = f.cm.listen(new InetSocketAddress("127.0.0.1", 0), e -> {
                events.add(e);
                if (e.type() == CmEventType.CONNECT_REQUEST) {
                    try {
                        QueuePair qp = f.device.createQueuePair(f.pd, new QueuePairInitAttributes(cq, cq, 4, 4, 2, 2));
                        e.id().accept(qp, new byte[0]);
                        accepted.add(qp);
                    } catch (Exception ex) {
                        throw new IllegalStateException(ex);
                    }
                }
            });
            InetSocketAddress a = (InetSocketAddress) listener.localAddress();
            socket = new Socket(a.getAddress(), a.getPort());
            socket.setSoTimeout(20_000);
            in = new DataInputStream(socket.getInputStream());
            socket.getOutputStream().write(mpaRequest(0x10,
                    new byte[] {(byte) (ird >>> 8), (byte) ird, (byte) (ord >>> 8), (byte) ord}));
            reply = readReply(in);
        }

        int replyIrd() {
            return ByteBuffer.wrap(reply).getShort(20) & 0xffff;
        }

        int replyOrd() {
            return ByteBuffer.wrap(reply).getShort(22) & 0xffff;
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    @Test
    void ourResponderAnswersAZeroLengthReadRtrWhoseStagsNameNoRegion() throws Exception {
        try (RawInitiator r = new RawInitiator(P2P | 16, READ_RTR | 16)) {
            assertThat(r.replyIrd() & P2P).as("P2P in the reply").isEqualTo(P2P);
            assertThat(r.replyOrd() & (WRITE_RTR | READ_RTR)).as("READ picked").isEqualTo(READ_RTR);
            TcpFixture.next(r.events, CmEventType.CONNECT_REQUEST);
            byte[] read = ByteBuffer.allocate(28).putInt(0x4242).putLong(0x1000).putInt(0).putInt(1).putLong(0).array();
            r.socket.getOutputStream().write(fpdu(untagged(1, true, 1, 1, 0, read), false));
            TcpFixture.next(r.events, CmEventType.ESTABLISHED);
            int length = r.in.readUnsignedShort();
            byte[] u = new byte[length];
            r.in.readFully(u);
            ByteBuffer b = ByteBuffer.wrap(u);
            assertThat(length).as("zero-length READ response").isEqualTo(14);
            assertThat(b.get(1) & 0x0f).isEqualTo(2);
            assertThat(b.getInt(2)).as("sink STag").isEqualTo(0x4242);
            assertThat(b.getLong(6)).as("sink TO").isEqualTo(0x1000);
        }
    }

    @Test
    void aFirstFpduThatIsNotTheRtrTerminatesWithNoMatchingRtr() throws Exception {
        try (RawInitiator r = new RawInitiator(P2P | 16, WRITE_RTR | 16)) {
            TcpFixture.next(r.events, CmEventType.CONNECT_REQUEST);
            QueuePair qp = r.accepted.poll(20, TimeUnit.SECONDS);
            r.socket.getOutputStream().write(fpdu(untagged(3, true, 0, 1, 0, new byte[0]), false));
            assertTerminated(r.socket, TerminateCode.MPA_NO_MATCHING_RTR);
            assertThat(qp).isNotNull();
            assertThat(r.events.poll(300, TimeUnit.MILLISECONDS)).as("never ESTABLISHED").isNull();
        }
    }

    @Test
    void aSendRtrTakesTheFirstMsnAtOurResponderToo() throws Exception {
        try (RawInitiator r = new RawInitiator(P2P | SEND_RTR | 16, 16)) {
            assertThat(r.replyIrd() & (P2P | SEND_RTR)).as("SEND picked").isEqualTo(P2P | SEND_RTR);
            TcpFixture.next(r.events, CmEventType.CONNECT_REQUEST);
            QueuePair qp = r.accepted.poll(20, TimeUnit.SECONDS);
            r.socket.getOutputStream().write(fpdu(untagged(3, true, 0, 1, 0, new byte[0]), false));
            TcpFixture.next(r.events, CmEventType.ESTABLISHED);
            qp.postRecv(recv(1, dst, 0, 64));
            r.socket.getOutputStream().write(fpdu(untagged(3, true, 0, 2, 0, "hello".getBytes()), false));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (dst.segment().get(java.lang.foreign.ValueLayout.JAVA_BYTE, 4) != 'o') {
                assertThat(System.nanoTime()).isLessThan(deadline);
                Thread.sleep(1);
            }
            assertThat(qp.state()).isEqualTo(QueuePairState.RTS);
        }
    }
}
