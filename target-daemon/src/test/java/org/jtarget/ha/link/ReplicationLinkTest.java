package org.jtarget.ha.link;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.jtarget.buffer.ScatterList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two nodes' replication links in one process over the iwarp provider on 127.0.0.1: the link comes
 * up, a write is divided into staging slots and applied at the peer before it returns, failures
 * answer as not replicated, and a silent peer is declared lost after the heartbeat timeout.
 */
class ReplicationLinkTest {

    private static final int BLOCK = 512;
    private static final Duration INTERVAL = Duration.ofMillis(100);
    private static final Duration TIMEOUT = Duration.ofMillis(600);

    private final List<Node> nodes = new CopyOnWriteArrayList<>();

    /** One node: its provider, pool and link, and what its link told it. */
    private final class Node implements LinkEvents {
        final String name;
        final LinkProvider provider;
        final ReplicationLink link;
        final ExecutorService io = Executors.newFixedThreadPool(2);
        final byte[] store = new byte[8 << 20];
        final BlockingQueue<Hello> ups = new LinkedBlockingQueue<>();
        final BlockingQueue<String> downs = new LinkedBlockingQueue<>();
        final BlockingQueue<String> refusals = new LinkedBlockingQueue<>();
        final BlockingQueue<String> handovers = new LinkedBlockingQueue<>();
        final AtomicBoolean failApply = new AtomicBoolean();
        final java.util.concurrent.atomic.AtomicInteger hellos = new java.util.concurrent.atomic.AtomicInteger();
        final AtomicBoolean silent = new AtomicBoolean();
        final List<Long> applied = new CopyOnWriteArrayList<>();
        final List<Acknowledgement> unanswered = new CopyOnWriteArrayList<>();

        Node(String name, String peer, int port, int peerPort) throws Exception {
            this(name, peer, port, peerPort, 1);
        }

        /** A node with {@code lanes} event loops and as many lanes. */
        Node(String name, String peer, int port, int peerPort, int lanes) throws Exception {
            this.name = name;
            provider = new LinkProvider(name, 32 << 20, lanes);
            LinkSettings settings = new LinkSettings(name, peer, new InetSocketAddress("127.0.0.1", port),
                    new InetSocketAddress("127.0.0.1", peerPort), INTERVAL, TIMEOUT, 64 << 10, 4, lanes);
            link = provider.link(settings, this);
            nodes.add(this);
        }

        @Override
        public Hello hello() {
            hellos.incrementAndGet();
            return new Hello(name, name.equals("a"), 7, "a", 0, 0, 0, 0, List.of(name.equals("a") ? 1 : 2),
                    List.of(new Hello.Store("disk", BLOCK, store.length / BLOCK, Hello.DATA_CONSISTENT)));
        }

        @Override
        public void up(Hello peer) {
            ups.add(peer);
        }

        @Override
        public void down(String reason) {
            downs.add(reason);
        }

        @Override
        public void apply(int type, int storeIndex, long lba, long blocks, int flags, ByteBuf data, Acknowledgement ack) {
            if (silent.get()) {
                unanswered.add(ack); // not answered until close: the peer must give up on its own
                return;
            }
            io.execute(() -> {
                if (failApply.get()) {
                    ack.done(false, "medium error at " + lba);
                    return;
                }
                if (type == LinkHeader.WRITE) {
                    data.getBytes(0, store, (int) (lba * BLOCK), (int) (blocks * BLOCK));
                }
                applied.add(lba);
                ack.done(true, null);
            });
        }

        @Override
        public void handover() {
            handovers.add(name);
        }

        @Override
        public void refused(String what, int storeIndex, long lba, long blocks, String why) {
            refusals.add(what + " " + lba + ": " + why);
        }

        void close() {
            unanswered.forEach(a -> a.done(false, "test over"));
            link.close();
            sleep(200);
            provider.close();
            io.shutdown();
        }
    }

    @AfterEach
    void stop() {
        for (Node n : nodes) {
            n.close();
        }
    }

    private Node[] pair() throws Exception {
        return pair(1);
    }

    private Node[] pair(int lanes) throws Exception {
        int pa = freePort();
        int pb = freePort();
        Node a = new Node("a", "b", pa, pb, lanes);
        Node b = new Node("b", "a", pb, pa, lanes);
        b.link.start();
        a.link.start();
        Hello bSawA = b.ups.poll(10, TimeUnit.SECONDS);
        Hello aSawB = a.ups.poll(10, TimeUnit.SECONDS);
        assertThat(bSawA).as("b's link up").isNotNull();
        assertThat(aSawB).as("a's link up").isNotNull();
        assertThat(aSawB.node()).isEqualTo("b");
        assertThat(aSawB.portGroups()).containsExactly(2);
        assertThat(bSawA.primary()).isTrue();
        assertThat(bSawA.store("disk").blockCount()).isEqualTo(8L << 20 >> 9);
        return new Node[] {a, b};
    }

    @Test
    void aWriteLargerThanASlotIsDividedAndAppliedAtThePeerBeforeItReturns() throws Exception {
        Node[] p = pair();
        byte[] data = new byte[300 << 10];
        new Random(1).nextBytes(data);
        assertThat(p[0].link.write(0, 100, BLOCK, Unpooled.wrappedBuffer(data), false)).isTrue();
        byte[] got = new byte[data.length];
        System.arraycopy(p[1].store, 100 * BLOCK, got, 0, data.length);
        assertThat(got).isEqualTo(data);
        assertThat(p[1].applied).containsExactlyInAnyOrder(100L, 228L, 356L, 484L, 612L);
    }

    /**
     * Every staging slot first carries a piece shorter than a slot from a buffer (a WRITE SAME's
     * expansion on a file store takes that path), then a write from a scatter list (a WRITE's
     * Data-Out) fills whole slots: the slots must take it. The buffer path used to leave the slot's
     * limit at its piece's length, and the scatter-list copy, which writes at absolute indexes
     * within the limit, then failed with IndexOutOfBoundsException: the initiator got HARDWARE
     * ERROR for a WRITE already applied at the primary and not at the secondary (seen under Linux
     * in GuestHaFailoverIT as a file that read back wrong through the promoted secondary).
     */
    @Test
    void aScatterListWriteFillsSlotsThatCarriedShorterPiecesBefore() throws Exception {
        Node[] p = pair();
        for (int i = 0; i < 4; i++) { // the 4 slots are taken in turn
            assertThat(p[0].link.write(0, i, BLOCK, Unpooled.wrappedBuffer(new byte[BLOCK]), false)).isTrue();
        }
        byte[] data = new byte[4 * (64 << 10)];
        new Random(2).nextBytes(data);
        ScatterList list = new ScatterList();
        list.add(Unpooled.wrappedBuffer(data));
        try {
            assertThat(p[0].link.write(0, 1000, BLOCK, list, data.length, false)).isTrue();
        } finally {
            list.clear();
        }
        byte[] got = new byte[data.length];
        System.arraycopy(p[1].store, 1000 * BLOCK, got, 0, data.length);
        assertThat(got).isEqualTo(data);
    }

    @Test
    void manyThreadsWriteAtOnceThroughTheWindow() throws Exception {
        Node[] p = pair();
        ExecutorService writers = Executors.newFixedThreadPool(8);
        List<java.util.concurrent.Future<Boolean>> results = new java.util.ArrayList<>();
        for (int t = 0; t < 64; t++) {
            int lba = t * 128;
            results.add(writers.submit(() -> {
                byte[] d = new byte[64 << 10];
                java.util.Arrays.fill(d, (byte) lba);
                return p[0].link.write(0, lba, BLOCK, Unpooled.wrappedBuffer(d), true);
            }));
        }
        for (var r : results) {
            assertThat(r.get(20, TimeUnit.SECONDS)).isTrue();
        }
        writers.shutdown();
        for (int t = 0; t < 64; t++) {
            assertThat(p[1].store[t * 128 * BLOCK + 100]).isEqualTo((byte) (t * 128));
        }
    }

    @Test
    void unmapAndFlushAreAnsweredAndAFailureAtThePeerIsNotReplicated() throws Exception {
        Node[] p = pair();
        assertThat(p[0].link.unmap(0, 8, 16)).isTrue();
        assertThat(p[0].link.flush(0, 0, 16384)).isTrue();
        p[1].failApply.set(true);
        assertThat(p[0].link.write(0, 0, BLOCK, Unpooled.wrappedBuffer(new byte[4096]), false)).isFalse();
        assertThat(p[0].refusals.poll(5, TimeUnit.SECONDS)).isEqualTo("WRITE 0: medium error at 0");
        assertThat(p[0].link.isUp()).as("a refused write is the peer's store's failure, not the link's").isTrue();
    }

    @Test
    void theAnswersOfOneLoopPassLeaveAsOneAckAndAFailureAlone() throws Exception {
        Node[] p = pair();
        p[1].silent.set(true); // b holds the answers until the test gives them, all in one task of its loop
        ExecutorService writer = Executors.newSingleThreadExecutor();
        try {
            var first = writer.submit(() -> p[0].link.write(0, 0, BLOCK, Unpooled.wrappedBuffer(new byte[256 << 10]), false));
            awaitHeld(p[1], 4); // four pieces of 64 KiB, all in flight
            answerOnLoop(p[1], null);
            assertThat(first.get(5, TimeUnit.SECONDS)).isTrue();
            assertThat(p[0].link.ackCounts()).as("ACK messages, requests answered").containsExactly(1, 4);

            var second = writer.submit(() -> p[0].link.write(0, 0, BLOCK, Unpooled.wrappedBuffer(new byte[256 << 10]), false));
            awaitHeld(p[1], 4);
            answerOnLoop(p[1], "medium error"); // the third piece fails: its ACK carries the reason alone
            assertThat(second.get(5, TimeUnit.SECONDS)).isFalse();
            assertThat(p[0].link.ackCounts()).containsExactly(3, 8);
            assertThat(p[0].refusals.poll(5, TimeUnit.SECONDS)).endsWith(": medium error");
        } finally {
            writer.shutdownNow();
        }
    }

    private static void awaitHeld(Node n, int count) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (n.unanswered.size() < count && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(n.unanswered).hasSize(count);
    }

    /** Answers every held request in one task of the node's link loop; the third with {@code failure}, if any. */
    private static void answerOnLoop(Node n, String failure) throws Exception {
        List<Acknowledgement> held = List.copyOf(n.unanswered);
        n.unanswered.clear();
        n.provider.group.next().submit(() -> {
            for (int i = 0; i < held.size(); i++) {
                boolean fail = failure != null && i == 2;
                held.get(i).done(!fail, fail ? failure : null);
            }
        }).get(5, TimeUnit.SECONDS);
    }

    /**
     * With two event loops, the dialer connects a second lane from its other loop; a write started
     * on each loop goes over that loop's own lane (answered there: lane 0 sees only its own), and
     * both land at the peer.
     */
    @Test
    void aWriteStartedOnAnEventLoopGoesOverThatLoopsLane() throws Exception {
        Node[] p = pair(2);
        awaitLanes(p[0], 1);
        awaitLanes(p[1], 1);
        int lba = 0;
        for (io.netty.util.concurrent.EventExecutor loop : p[0].provider.group) {
            byte[] data = new byte[8 * BLOCK];
            java.util.Arrays.fill(data, (byte) (lba + 1));
            assertThat(writeOnLoop(p[0], loop, lba, data)).as("write on " + loop).isTrue();
            assertThat(p[1].store[lba * BLOCK + 7]).isEqualTo((byte) (lba + 1));
            lba += 8;
        }
        assertThat(p[0].link.ackCounts(0)[1]).as("requests answered over lane 0").isEqualTo(1);
        assertThat(p[0].link.ackCounts(1)[1]).as("requests answered over lane 1").isEqualTo(1);
        assertThat(p[0].link.write(0, 64, BLOCK, Unpooled.wrappedBuffer(new byte[BLOCK]), false))
                .as("a write from a thread that is no event loop takes lane 0").isTrue();
        assertThat(p[0].link.ackCounts(0)[1]).isEqualTo(2);
        assertThat(p[0].hellos.get() + p[1].hellos.get())
                .as("the node's HELLO is asked for lane 0 only: a node keeps it as what it told its peer").isEqualTo(2);
    }

    /** A lane that fails takes the link down with it (its requests were lost); the dialer makes the link and its lanes again. */
    @Test
    void aLaneThatEndsEndsTheLinkAndItComesBackWithItsLanes() throws Exception {
        Node[] p = pair(2);
        awaitLanes(p[0], 1);
        p[1].link.failLane(1, "test: lane cut");
        assertThat(p[1].downs.poll(5, TimeUnit.SECONDS)).startsWith("lane 1 ended: test: lane cut");
        assertThat(p[0].downs.poll(5, TimeUnit.SECONDS)).isNotNull();
        assertThat(p[0].ups.poll(10, TimeUnit.SECONDS)).as("a dials again").isNotNull();
        awaitLanes(p[0], 1);
        for (io.netty.util.concurrent.EventExecutor loop : p[0].provider.group) {
            assertThat(writeOnLoop(p[0], loop, 0, new byte[BLOCK])).isTrue();
        }
    }

    private static void awaitLanes(Node n, int count) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (n.link.lanesUp() < count && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(n.link.lanesUp()).as(n.name + "'s lanes up").isEqualTo(count);
    }

    /** Starts a write on {@code loop} as the primary's event loops do ({@link ReplicationLink#tryWrite}) and waits for its outcome. */
    private static boolean writeOnLoop(Node n, io.netty.util.concurrent.EventExecutor loop, int lba, byte[] data)
            throws Exception {
        java.util.concurrent.CompletableFuture<Boolean> outcome = new java.util.concurrent.CompletableFuture<>();
        ScatterList list = new ScatterList();
        list.add(Unpooled.wrappedBuffer(data));
        loop.execute(() -> {
            Ticket ticket = new Ticket() {
                @Override
                protected void allAnswered(boolean applied) {
                    outcome.complete(applied);
                }
            };
            ticket.reset();
            if (!n.link.tryWrite(0, lba, BLOCK, list, data.length, false, ticket)) {
                outcome.complete(false);
            }
        });
        try {
            return outcome.get(5, TimeUnit.SECONDS);
        } finally {
            list.clear();
        }
    }

    @Test
    void aHandoverReachesThePeerAndNotTheSender() throws Exception {
        Node[] p = pair();
        assertThat(p[0].link.handover()).isTrue();
        assertThat(p[1].handovers.poll(5, TimeUnit.SECONDS)).isEqualTo("b");
        assertThat(p[0].handovers).isEmpty();
        assertThat(p[0].link.write(0, 0, BLOCK, Unpooled.wrappedBuffer(new byte[BLOCK]), false)).as("the link goes on").isTrue();
    }

    @Test
    void aPeerThatStopsSaysGoodbyeAndLaterWritesAreNotReplicated() throws Exception {
        Node[] p = pair();
        p[1].link.close();
        assertThat(p[0].downs.poll(5, TimeUnit.SECONDS)).isEqualTo("the peer stopped");
        assertThat(p[0].link.write(0, 0, BLOCK, Unpooled.wrappedBuffer(new byte[4096]), false)).isFalse();
    }

    @Test
    void aPeerThatNeverAnswersIsLostAfterTheHeartbeatTimeout() throws Exception {
        Node[] p = pair();
        p[1].silent.set(true);
        long start = System.nanoTime();
        assertThat(p[0].link.write(0, 0, BLOCK, Unpooled.wrappedBuffer(new byte[4096]), false)).isFalse();
        long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertThat(waited).isBetween(TIMEOUT.toMillis() - 50, TIMEOUT.toMillis() * 5);
        assertThat(p[0].downs.poll(5, TimeUnit.SECONDS)).startsWith("no answer from b");
    }

    @Test
    void theLinkComesBackAfterThePeerRestarts() throws Exception {
        Node[] p = pair();
        int bPort = ((InetSocketAddress) p[1].link.listenAddress()).getPort();
        int aPort = ((InetSocketAddress) p[0].link.listenAddress()).getPort();
        p[1].close();
        nodes.remove(p[1]);
        assertThat(p[0].downs.poll(5, TimeUnit.SECONDS)).isNotNull();
        Node b2 = new Node("b", "a", bPort, aPort);
        b2.link.start();
        assertThat(p[0].ups.poll(10, TimeUnit.SECONDS)).as("a dials again").isNotNull();
        byte[] block = new byte[BLOCK];
        block[1] = 2;
        assertThat(p[0].link.write(0, 0, BLOCK, Unpooled.wrappedBuffer(block), false)).isTrue();
        assertThat(b2.store[1]).isEqualTo((byte) 2);
    }

    @Test
    void aConnectionFromAnotherNodeIsRefused() throws Exception {
        int pa = freePort();
        int pb = freePort();
        Node b = new Node("b", "a", pb, pa);
        b.link.start();
        Node c = new Node("a", "x", pa, pb); // names itself a, but wants node x: b is not it
        c.link.start();
        assertThat(b.ups.poll(1500, TimeUnit.MILLISECONDS)).isNull();
        assertThat(c.ups.poll(100, TimeUnit.MILLISECONDS)).isNull();
    }

    private static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
