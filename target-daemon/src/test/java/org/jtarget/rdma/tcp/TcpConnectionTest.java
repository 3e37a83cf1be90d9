package org.jtarget.rdma.tcp;

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

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.jtarget.rdma.RdmaFixture.ALL;
import static org.jtarget.rdma.RdmaFixture.rdma;
import static org.jtarget.rdma.RdmaFixture.recv;
import static org.jtarget.rdma.RdmaFixture.send;
import static org.jtarget.rdma.tcp.TcpFixture.await;

/**
 * Fuzz-style: a raw socket plays a hostile peer against the tcp provider. Whatever it sends, only
 * the queue pair of its own connection fails; the process and another connection keep working.
 */
class TcpConnectionTest {

    private static final int FUZZ_ITERATIONS = 150;

    private TcpFixture f;
    private TcpFixture.Pair good;
    private MemoryRegion src;
    private MemoryRegion dst;
    private CmListener hostileListener;
    private final BlockingQueue<QueuePair> accepted = new LinkedBlockingQueue<>();

    @BeforeEach
    void setUp() throws Exception {
        f = new TcpFixture();
        good = f.new Pair(8);
        src = f.register(1 << 16, ALL);
        dst = f.register(1 << 16, ALL);
        RdmaFixture.fill(src.segment(), 1);
        var cq = f.device.createCompletionQueue(1024, null);
        hostileListener = f.cm.listen(new InetSocketAddress("127.0.0.1", 0), e -> {
            if (e.type() == CmEventType.CONNECT_REQUEST) {
                try {
                    QueuePair qp = f.device.createQueuePair(f.pd, new QueuePairInitAttributes(cq, cq, 4, 4, 2, 2));
                    e.id().accept(qp, null);
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

    private static byte[] frame(int opcode, int flags, int msn, byte[] rest) {
        ByteBuffer b = ByteBuffer.allocate(4 + 8 + rest.length);
        b.putInt(8 + rest.length).put((byte) opcode).put((byte) flags).putShort((short) 0).putInt(msn).put(rest);
        return b.array();
    }

    private static byte[] connectRequest() {
        return frame(TcpRdmaFrame.CONNECT_REQUEST, 0, 0,
                ByteBuffer.allocate(8).putInt(TcpRdmaFrame.MAGIC).putShort((short) 1).put((byte) 7).put((byte) 0).array());
    }

    /** Connects with a valid handshake; returns the server's queue pair. */
    private QueuePair handshake(Socket s) throws Exception {
        s.getOutputStream().write(connectRequest());
        DataInputStream in = new DataInputStream(s.getInputStream());
        int len = in.readInt();
        byte[] body = new byte[len];
        in.readFully(body);
        assertThat(body[0]).isEqualTo((byte) TcpRdmaFrame.CONNECT_ACCEPT);
        QueuePair qp = accepted.poll(20, TimeUnit.SECONDS);
        assertThat(qp).isNotNull();
        return qp;
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

    private static byte[][] malformedFrames() {
        return new byte[][] {
            frame(0x77, 0, 0, new byte[0]),                                        // unknown opcode
            ByteBuffer.allocate(8).putInt(3).putInt(0).array(),                   // shorter than a header
            ByteBuffer.allocate(12).putInt(Integer.MAX_VALUE).putInt(0x10).putInt(0).array(), // too long
            frame(TcpRdmaFrame.SEND, 0, 5, new byte[8]),                           // MSN out of order
            frame(TcpRdmaFrame.ACK, 0, 0, new byte[0]),                            // ACK of nothing sent
            frame(TcpRdmaFrame.READ_RESPONSE, 0, 0, new byte[16]),                 // response to no READ
            connectRequest(),                                                      // second handshake
            frame(TcpRdmaFrame.NAK, 0, 0, new byte[] {0, 0, 0, 99}),               // NAK of nothing
            frame(TcpRdmaFrame.READ_REQUEST, 0, 0, ByteBuffer.allocate(16).putLong(0).putInt(1).putInt(-1).array()),
            frame(TcpRdmaFrame.ACK, 0, 0, new byte[4]),                            // ACK with a payload
            frame(TcpRdmaFrame.RDMA_WRITE, 0, 0, new byte[3]),                     // shorter than its header
            frame(TcpRdmaFrame.CONNECT_REJECT, 0, 0, new byte[0]),                 // reject after the handshake
        };
    }

    @Test
    void eachMalformedFrameFailsOnlyItsQueuePair() throws Exception {
        int round = 0;
        for (byte[] bad : malformedFrames()) {
            try (Socket s = open()) {
                QueuePair qp = handshake(s);
                s.getOutputStream().write(bad);
                s.getOutputStream().flush();
                awaitError(qp);
            }
            goodPairStillWorks(++round);
        }
    }

    @Test
    void garbageBeforeTheHandshakeClosesTheConnection() throws Exception {
        try (Socket s = open()) {
            s.getOutputStream().write(frame(TcpRdmaFrame.SEND, 0, 0, new byte[8]));
            assertThat(s.getInputStream().read()).as("closed by the provider").isEqualTo(-1);
        }
        goodPairStillWorks(1);
    }

    @Test
    void randomAndTruncatedFramesFailOnlyTheirQueuePair() throws Exception {
        long seed = Long.getLong("fuzz.seed", System.nanoTime()); // -Dfuzz.seed=N replays a failure
        Random rnd = new Random(seed);
        try {
            for (int i = 0; i < FUZZ_ITERATIONS; i++) {
                QueuePair qp;
                try (Socket s = open()) {
                    qp = handshake(s);
                    DataOutputStream out = new DataOutputStream(s.getOutputStream());
                    out.write(randomStream(rnd));
                    out.flush();
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

    /** Valid frames, random bytes and valid frames cut short, mixed. */
    private static byte[] randomStream(Random rnd) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        int pieces = 1 + rnd.nextInt(4);
        int msn = 0;
        for (int i = 0; i < pieces; i++) {
            byte[] piece = switch (rnd.nextInt(5)) {
                case 0 -> {
                    byte[] r = new byte[1 + rnd.nextInt(64)];
                    rnd.nextBytes(r);
                    yield r;
                }
                case 1 -> frame(TcpRdmaFrame.SEND, rnd.nextInt(8), msn++, new byte[8 + rnd.nextInt(32)]);
                case 2 -> frame(TcpRdmaFrame.RDMA_WRITE, 0, msn++,
                        ByteBuffer.allocate(16 + rnd.nextInt(64)).putLong(rnd.nextLong()).putInt(rnd.nextInt()).array());
                case 3 -> frame(rnd.nextInt(256), rnd.nextInt(256), rnd.nextInt(), new byte[rnd.nextInt(24)]);
                default -> frame(TcpRdmaFrame.READ_REQUEST, 0, msn++,
                        ByteBuffer.allocate(16).putLong(rnd.nextLong()).putInt(rnd.nextInt()).putInt(rnd.nextInt(4096)).array());
            };
            if (rnd.nextInt(3) == 0) {
                piece = java.util.Arrays.copyOf(piece, rnd.nextInt(piece.length + 1)); // truncated
            }
            out.writeBytes(piece);
        }
        return out.toByteArray();
    }
}
