package org.jtarget.rdma.iwarp;

import org.jtarget.rdma.AccessFlag;
import org.jtarget.rdma.MemoryRegion;
import org.jtarget.rdma.QueuePair;
import org.jtarget.rdma.QueuePairInitAttributes;
import org.jtarget.rdma.QueuePairState;
import org.jtarget.rdma.RdmaException;
import org.jtarget.rdma.RdmaFixture;
import org.jtarget.rdma.WorkCompletionStatus;
import org.jtarget.rdma.WorkRequestOpcode;
import org.jtarget.rdma.cm.CmEventType;
import org.jtarget.rdma.cm.CmListener;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Random;
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
import static org.jtarget.rdma.iwarp.TcpFixture.await;

/**
 * A raw socket plays an iWARP peer, hostile or not, against the provider: each violation ends its own
 * connection with the MPA reject or the TERMINATE (layer, error type, code) RFC 5040/5044 give,
 * touches no byte outside a region, and the process and another connection keep working.
 */
class IwarpConnectionTest {

    private static final int FUZZ_ITERATIONS = 150;

    private TcpFixture f;
    private TcpFixture.Pair good;
    private MemoryRegion src;
    private MemoryRegion dst;
    private MemoryRegion target;
    private CmListener hostileListener;
    private final BlockingQueue<QueuePair> accepted = new LinkedBlockingQueue<>();

    @BeforeEach
    void setUp() throws Exception {
        f = new TcpFixture();
        good = f.new Pair(8);
        src = f.register(1 << 16, ALL);
        dst = f.register(1 << 16, ALL);
        target = f.register(16 << 20, Set.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_READ));
        RdmaFixture.fill(src.segment(), 1);
        var cq = f.device.createCompletionQueue(1024, null);
        hostileListener = f.cm.listen(new InetSocketAddress("127.0.0.1", 0), e -> {
            if (e.type() == CmEventType.CONNECT_REQUEST) {
                try {
                    QueuePair qp = f.device.createQueuePair(f.pd, new QueuePairInitAttributes(cq, cq, 4, 4, 2, 2));
                    e.id().accept(qp, new byte[] {9});
                    accepted.add(qp);
                } catch (RdmaException ex) {
                    throw new IllegalStateException(ex);
                }
            }
        });
    }

    @AfterEach
    void tearDown() {
        f.close();
    }

    private Socket open() throws IOException {
        InetSocketAddress a = (InetSocketAddress) hostileListener.localAddress();
        Socket s = new Socket(a.getAddress(), a.getPort());
        s.setSoTimeout(20_000);
        return s;
    }

    /** The MPA request siw sends: revision 2, flags 0x10 (plus {@code flags}), IRD/ORD 16/16. */
    private static byte[] request(int flags) {
        return mpaRequest(0x10 | flags, new byte[] {0, 16, 0, 16});
    }

    /** Reads an MPA request or reply; returns its 20 header bytes followed by its private data. */
    static byte[] readReply(DataInputStream in) throws IOException {
        byte[] header = new byte[20];
        in.readFully(header);
        int length = ByteBuffer.wrap(header).getShort(18) & 0xffff;
        byte[] all = java.util.Arrays.copyOf(header, 20 + length);
        in.readFully(all, 20, length);
        return all;
    }

    /** Connects with a valid MPA exchange (CRC as asked); returns the server's queue pair. */
    private QueuePair handshake(Socket s, boolean crc) throws Exception {
        s.getOutputStream().write(request(crc ? 0x40 : 0));
        byte[] reply = readReply(new DataInputStream(s.getInputStream()));
        assertThat(new String(reply, 0, 16)).isEqualTo("MPA ID Rep Frame");
        assertThat(reply[16]).isEqualTo((byte) (crc ? 0x50 : 0x10));
        assertThat(reply[17]).isEqualTo((byte) 2);
        assertThat(java.util.Arrays.copyOfRange(reply, 18, 25)).containsExactly(0, 5, 0, 64, 0, 64, 9);
        QueuePair qp = accepted.poll(20, TimeUnit.SECONDS);
        assertThat(qp).isNotNull();
        return qp;
    }

    /** Reads FPDUs until the connection ends; returns the last ULPDU (the TERMINATE expected). */
    private static byte[] lastUlpdu(Socket s) throws IOException {
        DataInputStream in = new DataInputStream(s.getInputStream());
        byte[] last = null;
        while (true) {
            int length;
            try {
                length = in.readUnsignedShort();
            } catch (EOFException end) {
                return last;
            }
            last = new byte[length];
            in.readFully(last);
            in.skipNBytes((-(2 + length) & 3) + 4);
        }
    }

    /** Asserts the connection ends with a TERMINATE of {@code code} (RFC 5040 4.8). */
    static void assertTerminated(Socket s, TerminateCode code) throws IOException {
        byte[] t = lastUlpdu(s);
        assertThat(t).as("a TERMINATE").isNotNull().hasSizeGreaterThanOrEqualTo(22);
        ByteBuffer b = ByteBuffer.wrap(t);
        assertThat(b.get(1) & 0x0f).as("opcode").isEqualTo(7);
        assertThat(b.getInt(6)).as("queue").isEqualTo(2);
        int control = b.getInt(18);
        assertThat(new int[] {control >>> 28, control >>> 24 & 15, control >>> 16 & 255})
                .as("layer, type, code").containsExactly(code.layer, code.type, code.code);
    }

    private static void awaitError(QueuePair qp) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (qp.state() != QueuePairState.ERROR) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("queue pair " + qp.qpNum() + " still " + qp.state());
            }
            Thread.sleep(1);
        }
    }

    private void goodPairStillWorks(int round) throws Exception {
        good.b.postRecv(recv(round, dst, 0, 64));
        good.a.postSend(rdma(WorkRequestOpcode.RDMA_WRITE, round, src, 0, 4096, dst.address() + 1024, dst.rkey()));
        good.a.postSend(send(round, src, 0, 64));
        assertThat(await(good.cqA, 2)).extracting(wc -> wc.status).containsOnly(WorkCompletionStatus.SUCCESS);
        assertThat(await(good.cqB, 1).get(0).status).isEqualTo(WorkCompletionStatus.SUCCESS);
        assertThat(good.a.state()).isEqualTo(QueuePairState.RTS);
    }

    private static void write(Socket s, byte[]... fpdus) throws IOException {
        for (byte[] p : fpdus) {
            s.getOutputStream().write(p);
        }
        s.getOutputStream().flush();
    }

    @Test
    void aBadMpaKeyClosesTheConnectionWithoutAReply() throws Exception {
        try (Socket s = open()) {
            byte[] bad = request(0);
            bad[4] = 'X';
            write(s, bad);
            assertThat(s.getInputStream().read()).as("closed by the provider").isEqualTo(-1);
        }
        goodPairStillWorks(1);
    }

    /**
     * A peer that connects and sends nothing, or half an MPA request, is closed once the request
     * timeout passes (shortened here), without a reply; the pair already connected keeps working.
     */
    @Test
    void aSilentPeerIsClosedWhenTheMpaRequestTimeoutPasses() throws Exception {
        f.cm.mpaTimeouts(Duration.ofMillis(300), TcpConnectionManager.DEFAULT_MPA_REPLY_TIMEOUT);
        try (Socket silent = open(); Socket half = open()) {
            write(half, java.util.Arrays.copyOf(request(0), 10));
            long start = System.nanoTime();
            assertThat(silent.getInputStream().read()).as("closed by the provider").isEqualTo(-1);
            assertThat(half.getInputStream().read()).as("closed by the provider").isEqualTo(-1);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
        }
        assertThat(accepted).isEmpty();
        goodPairStillWorks(1);
    }

    /** An active end whose peer never replies to its MPA request gives up: UNREACHABLE, socket closed. */
    @Test
    void aConnectWithoutAnMpaReplyIsUnreachableWhenTheReplyTimeoutPasses() throws Exception {
        f.cm.mpaTimeouts(TcpConnectionManager.DEFAULT_MPA_REQUEST_TIMEOUT, Duration.ofMillis(300));
        try (java.net.ServerSocket mute = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            var cq = f.device.createCompletionQueue(16, null);
            QueuePair qp = f.device.createQueuePair(f.pd, new QueuePairInitAttributes(cq, cq, 4, 4, 2, 2));
            BlockingQueue<org.jtarget.rdma.cm.CmEvent> events = new LinkedBlockingQueue<>();
            f.cm.connect(mute.getLocalSocketAddress(), qp, new byte[] {1}, events::add);
            try (Socket peer = mute.accept()) {
                peer.setSoTimeout(20_000);
                DataInputStream in = new DataInputStream(peer.getInputStream());
                in.readFully(new byte[20 + 4 + 1]); // the MPA request: header, IRD/ORD, private data
                TcpFixture.next(events, CmEventType.UNREACHABLE);
                assertThat(in.read()).as("closed by the provider").isEqualTo(-1);
            }
        }
        goodPairStillWorks(1);
    }

    @Test
    void markersAreRejectedWithAnMpaReject() throws Exception {
        try (Socket s = open()) {
            write(s, request(0x80));
            DataInputStream in = new DataInputStream(s.getInputStream());
            byte[] reply = readReply(in);
            assertThat(new String(reply, 0, 16)).isEqualTo("MPA ID Rep Frame");
            assertThat(reply[16] & 0xa0).as("reject, no markers").isEqualTo(0x20);
            assertThat(in.read()).isEqualTo(-1);
        }
        assertThat(accepted).isEmpty();
        goodPairStillWorks(1);
    }

    @Test
    void aCrcMismatchTerminatesWithTheMpaCrcError() throws Exception {
        try (Socket s = open()) {
            QueuePair qp = handshake(s, true);
            byte[] write = fpdu(tagged(0, true, target.rkey(), target.address(), new byte[] {1, 2, 3, 4}), true);
            write[write.length - 1] ^= 1;
            write(s, write);
            assertTerminated(s, TerminateCode.MPA_CRC);
            awaitError(qp);
        }
        goodPairStillWorks(1);
    }

    @Test
    void aGoodCrcIsAccepted() throws Exception {
        try (Socket s = open()) {
            QueuePair qp = handshake(s, true);
            write(s, fpdu(tagged(0, true, target.rkey(), target.address() + 8, new byte[] {1, 2, 3, 4, 5}), true));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (target.segment().get(java.lang.foreign.ValueLayout.JAVA_BYTE, 12) != 5) {
                assertThat(System.nanoTime()).isLessThan(deadline);
                Thread.sleep(1);
            }
            assertThat(qp.state()).isEqualTo(QueuePairState.RTS);
        }
    }

    @Test
    void aWriteToAnUnknownStagTerminatesWithDdpInvalidStag() throws Exception {
        try (Socket s = open()) {
            QueuePair qp = handshake(s, false);
            write(s, fpdu(tagged(0, true, 0x7777_7777, 0, new byte[8]), false));
            assertTerminated(s, TerminateCode.DDP_INVALID_STAG);
            awaitError(qp);
        }
        goodPairStillWorks(1);
    }

    @Test
    void aWritePastTheRegionsEndTerminatesWithDdpBaseBoundsAndTouchesNothing() throws Exception {
        long end = target.address() + target.length();
        try (Socket s = open()) {
            QueuePair qp = handshake(s, false);
            byte[] ones = new byte[64];
            java.util.Arrays.fill(ones, (byte) 1);
            write(s, fpdu(tagged(0, true, target.rkey(), end - 32, ones), false));
            assertTerminated(s, TerminateCode.DDP_BASE_BOUNDS);
            awaitError(qp);
        }
        for (long i = target.length() - 64; i < target.length(); i++) {
            assertThat(target.segment().get(java.lang.foreign.ValueLayout.JAVA_BYTE, i)).isZero();
        }
        goodPairStillWorks(1);
    }

    @Test
    void aSendWithNoReceivePostedTerminatesWithDdpNoBuffer() throws Exception {
        try (Socket s = open()) {
            QueuePair qp = handshake(s, false);
            write(s, fpdu(untagged(3, true, 0, 1, 0, "hello".getBytes()), false));
            assertTerminated(s, TerminateCode.DDP_NO_BUFFER);
            awaitError(qp);
        }
        goodPairStillWorks(1);
    }

    @Test
    void aReadIsAnsweredWithItsResponseSegments() throws Exception {
        RdmaFixture.fill(target.segment().asSlice(0, 100_000), 5);
        try (Socket s = open()) {
            handshake(s, false);
            write(s, fpdu(untagged(1, true, 1, 1, 0, readRequest(0x1234, 4096, 100_000, target.rkey(), target.address())),
                    false));
            DataInputStream in = new DataInputStream(s.getInputStream());
            ByteArrayOutputStream data = new ByteArrayOutputStream();
            boolean last = false;
            while (!last) {
                int length = in.readUnsignedShort();
                byte[] u = new byte[length];
                in.readFully(u);
                in.skipNBytes((-(2 + length) & 3) + 4);
                ByteBuffer b = ByteBuffer.wrap(u);
                assertThat(b.get(1) & 15).as("READ response").isEqualTo(2);
                assertThat(b.getInt(2)).isEqualTo(0x1234);
                assertThat(b.getLong(6)).isEqualTo(4096 + data.size());
                last = (b.get(0) & 0x40) != 0;
                data.write(u, 14, length - 14);
            }
            byte[] expected = new byte[100_000];
            target.segment().asByteBuffer().get(0, expected);
            assertThat(data.toByteArray()).isEqualTo(expected);
        }
    }

    /**
     * The provider's own requests on the wire, byte for byte as RFC 5041/5044 frame them, with and
     * without CRC: a small SEND (one buffer: header, payload, pad, CRC), a small SEND gathered from
     * two elements, a SEND above the small-payload size and an RDMA WRITE of two segments (header,
     * a view of the region, trailer).
     */
    @Test
    void requestsLeaveAsRfc5044Fpdus() throws Exception {
        for (boolean crc : new boolean[] {false, true}) {
            try (Socket s = open()) {
                QueuePair qp = handshake(s, crc);
                byte[] region = new byte[1 << 16];
                src.segment().asByteBuffer().get(0, region);
                int big = FrameBuffers.SMALL_PAYLOAD + 1;
                qp.postSend(send(1, src, 0, 101));
                qp.postSend(send(2, src, 5, 50).addSge(src.address() + 1000, 31, src.lkey()));
                qp.postSend(send(3, src, 200, big));
                qp.postSend(rdma(WorkRequestOpcode.RDMA_WRITE, 4, src, 0, 1 << 16, 0x5000, 0x77));

                ByteArrayOutputStream expected = new ByteArrayOutputStream();
                expected.writeBytes(fpdu(untagged(3, true, 0, 1, 0, slice(region, 0, 101)), crc));
                byte[] gathered = new byte[81];
                System.arraycopy(region, 5, gathered, 0, 50);
                System.arraycopy(region, 1000, gathered, 50, 31);
                expected.writeBytes(fpdu(untagged(3, true, 0, 2, 0, gathered), crc));
                expected.writeBytes(fpdu(untagged(3, true, 0, 3, 0, slice(region, 200, big)), crc));
                int first = FrameOutput.MAX_SEGMENT_PAYLOAD;
                expected.writeBytes(fpdu(tagged(0, false, 0x77, 0x5000, slice(region, 0, first)), crc));
                expected.writeBytes(fpdu(tagged(0, true, 0x77, 0x5000 + first, slice(region, first, (1 << 16) - first)),
                        crc));
                byte[] received = new byte[expected.size()];
                new DataInputStream(s.getInputStream()).readFully(received);
                assertThat(received).as("crc " + crc).isEqualTo(expected.toByteArray());
            }
        }
    }

    private static byte[] slice(byte[] b, int from, int length) {
        return java.util.Arrays.copyOfRange(b, from, from + length);
    }

    private static byte[] readRequest(int sinkStag, long sinkTo, int size, int sourceStag, long sourceTo) {
        return ByteBuffer.allocate(28).putInt(sinkStag).putLong(sinkTo).putInt(size).putInt(sourceStag)
                .putLong(sourceTo).array();
    }

    @Test
    void readsBeyondTheIrdTerminateWithInsufficientIrd() throws Exception {
        try (Socket s = open()) {
            QueuePair qp = handshake(s, false);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            for (int msn = 1; msn <= Responder.IRD + 40; msn++) {
                out.writeBytes(fpdu(untagged(1, true, 1, msn, 0,
                        readRequest(1, 0, 1 << 20, target.rkey(), target.address())), false));
            }
            write(s, out.toByteArray());
            assertTerminated(s, TerminateCode.MPA_INSUFFICIENT_IRD);
            awaitError(qp);
        }
        goodPairStillWorks(1);
    }

    @Test
    void aSegmentBeforeTheMpaExchangeClosesTheConnection() throws Exception {
        try (Socket s = open()) {
            write(s, fpdu(untagged(3, true, 0, 1, 0, new byte[8]), false));
            assertThat(s.getInputStream().read()).as("closed by the provider").isEqualTo(-1);
        }
        goodPairStillWorks(1);
    }

    private static byte[][] malformedSegments() {
        return new byte[][] {
            fpdu(untagged(9, true, 0, 1, 0, new byte[0]), false),                 // unknown opcode
            fpdu(untagged(3, true, 7, 1, 0, new byte[0]), false),                 // unknown queue
            new byte[] {0, 3, 0x41, 0x43, 0, 0, 0, 0},                            // shorter than a header
            fpdu(untagged(3, true, 0, 5, 0, new byte[8]), false),                 // MSN out of order
            fpdu(tagged(2, true, 0, 0, new byte[16]), false),                     // response to no READ
            request(0),                                                           // second MPA request
            fpdu(untagged(1, true, 1, 1, 0, new byte[12]), false),                // READ request too short
            fpdu(untagged(3, true, 0, 1, 4, new byte[8]), false),                 // SEND starting at offset 4
            fpdu(tagged(0, true, 0, 0, new byte[3]), false),                      // WRITE to STag 0
        };
    }

    @Test
    void eachMalformedSegmentFailsOnlyItsQueuePair() throws Exception {
        int round = 0;
        for (byte[] bad : malformedSegments()) {
            try (Socket s = open()) {
                QueuePair qp = handshake(s, false);
                write(s, bad);
                awaitError(qp);
            }
            goodPairStillWorks(++round);
        }
    }

    @Test
    void randomAndTruncatedSegmentsFailOnlyTheirQueuePair() throws Exception {
        long seed = Long.getLong("fuzz.seed", System.nanoTime()); // -Dfuzz.seed=N replays a failure
        Random rnd = new Random(seed);
        try {
            for (int i = 0; i < FUZZ_ITERATIONS; i++) {
                QueuePair qp;
                try (Socket s = open()) {
                    qp = handshake(s, false);
                    write(s, randomStream(rnd));
                }
                awaitError(qp);
                if (i % 10 == 0) {
                    goodPairStillWorks(i + 100);
                }
            }
            goodPairStillWorks(1);
        } catch (AssertionError | Exception e) {
            throw new AssertionError("seed " + seed + ": " + e.getMessage(), e);
        }
    }

    /** Valid segments, random bytes and segments cut short, mixed. */
    private static byte[] randomStream(Random rnd) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int pieces = 1 + rnd.nextInt(4);
        int msn = 1;
        for (int i = 0; i < pieces; i++) {
            byte[] piece = switch (rnd.nextInt(5)) {
                case 0 -> {
                    byte[] r = new byte[1 + rnd.nextInt(64)];
                    rnd.nextBytes(r);
                    yield r;
                }
                case 1 -> fpdu(untagged(3 + rnd.nextInt(4), rnd.nextBoolean(), 0, msn++, 0,
                        new byte[rnd.nextInt(32)]), rnd.nextBoolean());
                case 2 -> fpdu(tagged(0, true, rnd.nextInt(), rnd.nextLong(), new byte[rnd.nextInt(64)]), false);
                case 3 -> fpdu(untagged(rnd.nextInt(16), rnd.nextBoolean(), rnd.nextInt(4), rnd.nextInt(), rnd.nextInt(),
                        new byte[rnd.nextInt(24)]), false);
                default -> fpdu(untagged(1, true, 1, 1, 0, readRequest(rnd.nextInt(), rnd.nextLong(), rnd.nextInt(4096),
                        rnd.nextInt(), rnd.nextLong())), false);
            };
            if (rnd.nextInt(3) == 0) {
                piece = java.util.Arrays.copyOf(piece, rnd.nextInt(piece.length + 1)); // truncated
            }
            out.writeBytes(piece);
        }
        return out.toByteArray();
    }
}
