package org.jtarget.ha;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.jtarget.backstore.memory.MemoryBackstore;
import org.jtarget.backstore.spi.StoreException;
import org.jtarget.ha.link.LinkProvider;
import org.jtarget.ha.link.LinkSettings;
import org.jtarget.ha.witness.WitnessClient;
import org.jtarget.ha.witness.WitnessServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Two nodes of a pair in one process, over the iwarp provider on 127.0.0.1, each with a memory
 * store that outlives its node (so that a restart keeps the data, as a file would): the preferred
 * node of a new pair serves and copies its contents, writes reach the secondary before they
 * return, a lone primary goes on degraded and later copies only what the peer missed.
 */
class PairNodeTest {

    private static final int BLOCK = 512;
    private static final long BLOCKS = 64L << 20 >> 9; // 64 MiB

    @TempDir
    Path dir;

    private final List<Runnable> cleanups = new ArrayList<>();
    private final int portA = freePort();
    private final int portB = freePort();
    private int witnessPort;
    private final MemoryBackstore storeA = memory();
    private final MemoryBackstore storeB = memory();

    private static MemoryBackstore memory() {
        try {
            return new MemoryBackstore("disk", BLOCK, BLOCKS, true, false, 1 << 20);
        } catch (StoreException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A running node and what its role listener heard. */
    private final class Node {
        final PairNode node;
        final BlockingQueue<String> roles = new LinkedBlockingQueue<>();
        final LinkProvider provider;
        boolean closed;

        Node(String name, String peer, int port, int peerPort, org.jtarget.backstore.spi.Backstore store) throws Exception {
            this(name, peer, port, peerPort, store, 0);
        }

        /** With the witness at {@code witnessPort} (0: none). */
        Node(String name, String peer, int port, int peerPort, org.jtarget.backstore.spi.Backstore store, int witnessPort)
                throws Exception {
            Path state = dir.resolve(name);
            Witness witness = witnessPort == 0 ? null : new Witness(new WitnessClient("127.0.0.1", witnessPort,
                    Duration.ofMillis(100)), "a+b", name, Duration.ofMillis(500));
            DirtyRegionLog log = DirtyRegionLog.open(state, "disk", BLOCKS * BLOCK, 4096, 1024, 16);
            node = new PairNode(name, peer, "a", "a+b", new NodeStateFile(state.resolve("node.state")),
                    List.of(new PairNode.StoreSpec("disk", store, false, log)), List.of(name.equals("a") ? 1 : 2), 4, witness,
                    (role, peerRole, groups) -> roles.add(role + "/" + peerRole + "/" + groups));
            provider = new LinkProvider(name, 24 << 20);
            LinkSettings settings = new LinkSettings(name, peer, new InetSocketAddress("127.0.0.1", port),
                    new InetSocketAddress("127.0.0.1", peerPort), Duration.ofMillis(100), Duration.ofMillis(500),
                    64 << 10, 8);
            node.start(provider.link(settings, node));
            cleanups.add(this::close);
        }

        ReplicatedBackstore store() {
            return node.stores().getFirst();
        }

        String awaitRole(String expected) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            String last = null;
            while (System.nanoTime() < deadline) {
                String r = roles.poll(100, TimeUnit.MILLISECONDS);
                if (r != null) {
                    last = r;
                    if (r.equals(expected)) {
                        return r;
                    }
                }
            }
            throw new AssertionError("role " + expected + " not reached; last " + last);
        }

        void close() {
            if (closed) {
                return;
            }
            closed = true;
            node.close();
            provider.close();
        }
    }

    @AfterEach
    void stop() {
        cleanups.reversed().forEach(Runnable::run);
    }

    private Node a() throws Exception {
        return new Node("a", "b", portA, portB, storeA);
    }

    private Node b() throws Exception {
        return new Node("b", "a", portB, portA, storeB);
    }

    private static ByteBuf random(int bytes, long seed) {
        byte[] d = new byte[bytes];
        new Random(seed).nextBytes(d);
        return Unpooled.wrappedBuffer(d);
    }

    private static byte[] read(MemoryBackstore s, long lba, int blocks) throws Exception {
        ByteBuf b = Unpooled.buffer(blocks * BLOCK);
        s.read(lba, blocks, b);
        byte[] out = new byte[blocks * BLOCK];
        b.readBytes(out);
        return out;
    }

    private static void awaitInSync(Node primary) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!primary.node.describe().contains("in sync") && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(primary.node.describe()).contains("in sync");
    }

    /** Nodes b and a with a new witness (its port in {@link #witnessPort}), a serving and b in sync: {a, b}. */
    private List<Node> inSyncWithWitness() throws Exception {
        witnessPort = witness().address().getPort();
        return inSync(witnessPort);
    }

    /** Nodes b and a with the witness at {@code witnessPort} (0: none), a serving and b in sync: {a, b}. */
    private List<Node> inSync(int witnessPort) throws Exception {
        Node b = new Node("b", "a", portB, portA, storeB, witnessPort);
        Node a = new Node("a", "b", portA, portB, storeA, witnessPort);
        a.awaitRole("PRIMARY/SECONDARY/[2]");
        awaitInSync(a);
        return List.of(a, b);
    }

    @Test
    void aNewPairServesFromThePreferredNodeAndWritesReachTheSecondaryBeforeTheyReturn() throws Exception {
        storeA.write(0, random(4096, 9), false); // the preferred node's contents become the pair's
        Node b = b();
        Node a = a();
        a.awaitRole("PRIMARY/SECONDARY/[2]");
        b.awaitRole("SECONDARY/PRIMARY/[1]");
        awaitInSync(a);
        assertThat(read(storeB, 0, 8)).isEqualTo(read(storeA, 0, 8));

        ByteBuf data = random(300 << 10, 1);
        a.store().write(1000, data.duplicate(), true);
        assertThat(read(storeB, 1000, 600)).isEqualTo(read(storeA, 1000, 600));
        a.store().unmap(1000, 8);
        assertThat(read(storeB, 1000, 8)).isEqualTo(new byte[8 * BLOCK]);
        a.store().flush(0, BLOCKS);

        assertThatThrownBy(() -> b.store().write(0, random(512, 2), false)).isInstanceOf(StoreException.class)
                .extracting(e -> ((StoreException) e).kind()).isEqualTo(StoreException.Kind.NOT_SERVED_HERE);
        assertThat(b.store().info().identitySeed()).isEqualTo(a.store().info().identitySeed()).isEqualTo("ha:a+b:disk");
    }

    /** The core's side of one key of unit state, as a test sees it: what was installed, in order. */
    private static final class Holder implements org.jtarget.backstore.spi.ReplicatedState.Holder {
        final List<String> installed = new java.util.concurrent.CopyOnWriteArrayList<>();
        volatile byte[] state = new byte[0];

        @Override
        public void install(byte[] record) throws java.io.IOException {
            if (record.length > 0 && record[0] == 'X') {
                throw new java.io.IOException("a record this core does not read");
            }
            state = record;
            installed.add(new String(record, java.nio.charset.StandardCharsets.UTF_8));
        }

        @Override
        public void snapshot(org.jtarget.backstore.spi.ReplicatedState.Sink sink) throws java.io.IOException {
            sink.accept(state);
        }
    }

    @Test
    void unitStateReachesTheSecondaryBeforePublishReturnsAndAReturningSecondaryGetsItWhole() throws Exception {
        List<Node> pair = inSync(0);
        Node a = pair.get(0);
        Node b = pair.get(1);
        Holder onA = new Holder();
        Holder onB = new Holder();
        a.store().attach("iqn.t/lun0/pr", onA);
        b.store().attach("iqn.t/lun0/pr", onB);
        assertThat(a.store().replicatedState()).isSameAs(a.store());

        onA.state = "one".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        a.store().publish("iqn.t/lun0/pr", onA.state);
        assertThat(onB.installed).as("installed before publish returned").containsExactly("one");
        // the STATE went through a staging slot with a few bytes: writes of a whole slot use it again
        for (int i = 0; i < 9; i++) { // more than the 8 slots, so that one of them is the STATE's
            org.jtarget.buffer.ScatterList whole = new org.jtarget.buffer.ScatterList();
            whole.add(random(64 << 10, 70 + i));
            a.store().write(i * 128L, whole, 64 << 10, false);
            whole.clear();
        }
        assertThat(read(storeB, 0, 9 * 128)).isEqualTo(read(storeA, 0, 9 * 128));
        assertThatThrownBy(() -> b.store().publish("iqn.t/lun0/pr", new byte[1]))
                .isInstanceOf(StoreException.class).extracting(e -> ((StoreException) e).kind())
                .isEqualTo(StoreException.Kind.NOT_SERVED_HERE);
        assertThat(b.store().acceptsChanges()).isFalse();
        assertThat(a.store().acceptsChanges()).isTrue();
        assertThatThrownBy(() -> a.store().publish("iqn.t/lun0/pr", new byte[a.store().maxRecordBytes() + 1]))
                .hasMessageContaining("more than the");

        // a key the secondary holds nowhere yet is kept, and installed when the unit appears
        a.store().publish("iqn.t/lun1/pr", "early".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        Holder late = new Holder();
        b.store().attach("iqn.t/lun1/pr", late);
        assertThat(late.installed).containsExactly("early");

        // a record the secondary's core refuses: the primary leaves it behind (degraded), as for a write
        a.store().publish("iqn.t/lun0/pr", "X".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        a.awaitRole("PRIMARY/null/[2]");
        assertThat(a.node.describe()).contains("degraded");

        b.close();
        onA.state = "two".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        a.store().publish("iqn.t/lun0/pr", onA.state); // the peer is gone: degraded, not refused
        Node b2 = b();
        Holder onB2 = new Holder();
        b2.store().attach("iqn.t/lun0/pr", onB2);
        a.awaitRole("PRIMARY/SECONDARY/[2]");
        awaitInSync(a);
        assertThat(onB2.installed).as("the resync begins with the whole state").contains("two");
    }

    @Test
    void theSecondaryWritesAStoreThatNeverBlocksOnItsLinkLoopAndAnswersAtOnce() throws Exception {
        List<String> writers = new java.util.concurrent.CopyOnWriteArrayList<>();
        var recording = new org.jtarget.backstore.spi.ForwardingBackstore(storeB) {
            @Override
            public void write(long lba, ByteBuf src, boolean fua) throws java.io.IOException {
                writers.add(Thread.currentThread().getName());
                super.write(lba, src, fua);
            }
        };
        Node b = new Node("b", "a", portB, portA, recording);
        Node a = a();
        a.awaitRole("PRIMARY/SECONDARY/[2]");
        b.awaitRole("SECONDARY/PRIMARY/[1]");
        awaitInSync(a);
        writers.clear(); // the resync's writes may have come before the role decision (apply threads)
        for (int i = 0; i < 20; i++) {
            a.store().write(i * 64L, random(4096, i), false);
        }
        assertThat(read(storeB, 0, 8)).isEqualTo(read(storeA, 0, 8));
        assertThat(writers).hasSize(20).allSatisfy(t -> assertThat(t).as("no hand-off to an apply thread")
                .doesNotStartWith("ha-apply"));
    }

    @Test
    void aLonePrimaryGoesOnDegradedAndLaterCopiesOnlyWhatThePeerMissed() throws Exception {
        List<Node> pair = inSync(0);
        Node a = pair.get(0);
        Node b = pair.get(1);
        b.close();
        a.awaitRole("PRIMARY/null/[2]");
        for (int i = 0; i < 8; i++) {
            a.store().write(i * 4096L, random(64 << 10, 10 + i), false); // 512 KiB in 8 places, peer gone
        }
        assertThat(a.node.describe()).contains("degraded").contains("generation 1@a");
        assertThat(a.store().log().dirtyBytes()).isEqualTo(512L << 10);
        PairNode.Snapshot alone = a.node.snapshot();
        assertThat(alone.role()).isEqualTo(PairNode.Role.PRIMARY);
        assertThat(alone.peerRole()).isNull();
        assertThat(alone.degraded()).isTrue();
        assertThat(alone.generation()).isEqualTo(1);
        assertThat(alone.stores()).singleElement().satisfies(st -> {
            assertThat(st.changedBytes()).as("what the peer lacks, for the metrics").isEqualTo(512L << 10);
            assertThat(st.whole()).isTrue();
            assertThat(st.changesInFlight()).isZero();
        });

        Node b2 = b();
        a.awaitRole("PRIMARY/SECONDARY/[2]");
        b2.awaitRole("SECONDARY/PRIMARY/[1]");
        awaitInSync(a);
        for (int i = 0; i < 8; i++) {
            assertThat(read(storeB, i * 4096L, 128)).isEqualTo(read(storeA, i * 4096L, 128));
        }
        assertThat(a.store().log().isClean()).isTrue();
        assertThat(b2.node.describe()).contains("generation 1@a");
        PairNode.Snapshot synced = a.node.snapshot();
        assertThat(synced.inSync()).isTrue();
        assertThat(synced.degraded()).isFalse();
        assertThat(synced.peerRole()).isEqualTo(PairNode.Role.SECONDARY);
        assertThat(synced.lastResyncBytes()).isEqualTo(512L << 10);
        assertThat(synced.stores().getFirst().changedBytes()).isZero();
    }

    @Test
    void aRunningResyncShowsHowFarItHasCopiedItsStore() throws Exception {
        List<Node> pair = inSync(0);
        Node a = pair.get(0);
        pair.get(1).close();
        a.awaitRole("PRIMARY/null/[2]");
        for (int i = 0; i < 8; i++) {
            a.store().write(i * 4096L, random(64 << 10, 20 + i), false); // 8 runs of 64 KiB, 2 MiB apart
        }
        List<PairNode.ResyncProgress> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
        var watching = new org.jtarget.backstore.spi.ForwardingBackstore(storeB) {
            @Override
            public void write(long lba, ByteBuf src, boolean fua) throws java.io.IOException {
                PairNode.ResyncProgress p = a.node.resyncProgress(); // as the resync sends each run
                if (p != null) {
                    seen.add(p);
                }
                super.write(lba, src, fua);
            }
        };
        new Node("b", "a", portB, portA, watching);
        a.awaitRole("PRIMARY/SECONDARY/[2]");
        awaitInSync(a);
        // a run is counted once the peer applied it: the first write sees none, the last seven see 1..7 runs
        assertThat(seen).extracting(PairNode.ResyncProgress::doneBytes)
                .containsExactly(64L << 10, 128L << 10, 192L << 10, 256L << 10, 320L << 10, 384L << 10, 448L << 10);
        assertThat(seen).extracting(PairNode.ResyncProgress::totalBytes).containsOnly(512L << 10);
        assertThat(seen).extracting(PairNode.ResyncProgress::backstore).containsOnly("disk");
        assertThat(a.node.resyncProgress()).as("none runs now").isNull();
    }

    @Test
    void aSecondaryWhoseCopyIsNotWholeNeverServesAndGetsEverything() throws Exception {
        Node b = b();
        Node a = a();
        awaitInSync(a);
        a.store().write(0, random(64 << 10, 3), false);
        a.close();
        b.close();
        // b restarts first and alone: it waits, serving nothing
        Node b2 = b();
        Thread.sleep(300);
        assertThat(b2.node.role()).isEqualTo(PairNode.Role.UNDECIDED);
        assertThatThrownBy(() -> b2.store().write(0, random(512, 4), false)).isInstanceOf(StoreException.class);
        Node a2 = a();
        a2.awaitRole("PRIMARY/SECONDARY/[2]");
        awaitInSync(a2);
        assertThat(read(storeB, 0, 128)).isEqualTo(read(storeA, 0, 128));
    }

    @Test
    void aWriteStartedWithoutBlockingEndsWhenThePeerAppliedItAndDeclinesWhatWouldWait() throws Exception {
        List<Node> pair = inSync(0);
        Node a = pair.get(0);
        Node b = pair.get(1);
        a.store().write(0, random(4096, 60), false); // activates the first extent of the log
        java.util.concurrent.CompletableFuture<java.io.IOException> done = new java.util.concurrent.CompletableFuture<>();
        org.jtarget.buffer.ScatterList data = new org.jtarget.buffer.ScatterList();
        data.add(random(8192, 61));
        assertThat(a.store().tryWriteAsync(16, data, 8192, false, done::complete)).isTrue();
        assertThat(done.get(5, TimeUnit.SECONDS)).isNull();
        assertThat(read(storeB, 16, 16)).isEqualTo(read(storeA, 16, 16));
        assertThat(read(storeA, 16, 16)).isEqualTo(random(8192, 61).array());

        java.util.concurrent.atomic.AtomicBoolean called = new java.util.concurrent.atomic.AtomicBoolean();
        assertThat(a.store().tryWriteAsync(BLOCKS - 16, data, 8192, false, e -> called.set(true)))
                .as("an extent not active yet needs a log write: the blocking path").isFalse();
        b.close();
        a.awaitRole("PRIMARY/null/[2]");
        assertThat(a.store().tryWriteAsync(16, data, 8192, false, e -> called.set(true)))
                .as("no peer following: the blocking path goes on degraded").isFalse();
        assertThat(b.store().tryWriteAsync(16, data, 8192, false, e -> called.set(true))).isFalse();
        assertThat(called).isFalse();
        data.clear();
    }

    // ------------------------------------------------------------------ with a witness

    private WitnessServer witness() throws Exception {
        WitnessServer w = WitnessServer.start(new InetSocketAddress("127.0.0.1", 0), dir.resolve("witness.state"));
        cleanups.add(() -> {
            try {
                w.close();
            } catch (java.io.IOException e) {
                throw new IllegalStateException(e);
            }
        });
        return w;
    }

    private CuttableProxy proxy(int port) throws Exception {
        CuttableProxy p = new CuttableProxy(port);
        cleanups.add(() -> {
            try {
                p.close();
            } catch (java.io.IOException e) {
                throw new IllegalStateException(e);
            }
        });
        return p;
    }

    @Test
    void aPrimaryCutOffFromPeerAndWitnessStepsDownAndTheSecondaryIsPromotedWithEveryAcknowledgedWrite() throws Exception {
        int w = witness().address().getPort();
        CuttableProxy aToWitness = proxy(w);
        CuttableProxy aToB = proxy(portB); // a dials b: the link goes through here
        Node b = new Node("b", "a", portB, portA, storeB, w);
        Node a = new Node("a", "b", portA, aToB.port(), storeA, aToWitness.port());
        a.awaitRole("PRIMARY/SECONDARY/[2]");
        awaitInSync(a);
        a.store().write(2048, random(64 << 10, 21), true);

        aToB.cut();
        aToWitness.cut(); // a is alone: no peer, no witness
        b.awaitRole("PRIMARY/null/[1]");
        a.awaitRole("UNDECIDED/null/[2]");
        assertThat(read(storeB, 2048, 128)).as("what a acknowledged is on b").isEqualTo(read(storeA, 2048, 128));
        assertThatThrownBy(() -> a.store().write(0, random(4096, 22), false)).isInstanceOf(StoreException.class);
        b.store().write(4096, random(4096, 23), false);
        assertThat(b.node.describe()).contains("generation 1@b");

        aToB.restore();
        aToWitness.restore();
        a.awaitRole("SECONDARY/PRIMARY/[2]");
        awaitInSync(b);
        assertThat(read(storeA, 4096, 8)).isEqualTo(read(storeB, 4096, 8));
        assertThat(read(storeA, 0, 8)).as("a's refused write is replaced by b's data").isEqualTo(read(storeB, 0, 8));
    }

    @Test
    void aPrimaryThatStillReachesTheWitnessKeepsThePairAndTheSecondaryIsNotPromoted() throws Exception {
        int w = witness().address().getPort();
        CuttableProxy aToB = proxy(portB);
        Node b = new Node("b", "a", portB, portA, storeB, w);
        Node a = new Node("a", "b", portA, aToB.port(), storeA, w);
        a.awaitRole("PRIMARY/SECONDARY/[2]");
        awaitInSync(a);
        aToB.cut();
        a.store().write(0, random(4096, 31), false); // a goes on alone: the witness agrees
        assertThat(a.node.describe()).contains("degraded").contains("generation 1@a");
        Thread.sleep(2000); // four heartbeat timeouts
        assertThat(b.node.role()).as("no split brain").isNotEqualTo(PairNode.Role.PRIMARY);
        assertThatThrownBy(() -> b.store().write(0, random(4096, 32), false)).isInstanceOf(StoreException.class);
        aToB.restore();
        b.awaitRole("SECONDARY/PRIMARY/[1]");
        awaitInSync(a);
        assertThat(read(storeB, 0, 8)).isEqualTo(read(storeA, 0, 8));
    }

    @Test
    void aPrimaryThatStopsCleanlyHandsOverAtOnce() throws Exception {
        List<Node> pair = inSyncWithWitness();
        Node a = pair.get(0);
        Node b = pair.get(1);
        long start = System.nanoTime();
        a.close();
        b.awaitRole("PRIMARY/null/[1]");
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).as("no wait for the lease")
                .isLessThan(500);
        b.store().write(0, random(4096, 41), false);
    }

    /**
     * A primary with changes the peer may lack (here: the extents a crash left active) that stops,
     * and rejoins as the secondary, gets them copied back; from then on its copy is the primary's, so
     * its own log is clean and its HELLO says so: when it goes away again as the secondary, its
     * return costs only what it missed (the chaos loop found every such return copying everything).
     */
    @Test
    void aFormerPrimaryThatGotItsCopyAsTheSecondaryHasACleanLogSoItsNextReturnCopiesOnlyWhatItMissed()
            throws Exception {
        List<Node> pair = inSyncWithWitness();
        Node a = pair.get(0);
        Node b = pair.get(1);
        a.store().log().markDirty(0, 4L << 20); // as DirtyRegionLog.open does with an extent active at a crash
        a.close();
        b.awaitRole("PRIMARY/null/[1]");
        b.store().write(0, random(4096, 61), false);

        Node a2 = new Node("a", "b", portA, portB, storeA, witnessPort);
        a2.awaitRole("SECONDARY/PRIMARY/[2]");
        awaitInSync(b);
        assertThat(read(storeA, 0, 8)).isEqualTo(read(storeB, 0, 8));
        assertThat(a2.store().log().isClean()).as("a's copy is b's: nothing of a's is missing at b").isTrue();
        assertThat(a2.node.hello().stores().getFirst().state()).isEqualTo(org.jtarget.ha.link.Hello.DATA_CONSISTENT);

        a2.close(); // the secondary goes away; b goes on alone and logs what a misses
        b.store().write(8192, random(64 << 10, 62), false);
        assertThat(b.store().log().dirtyBytes()).isEqualTo(64L << 10);
        new Node("a", "b", portA, portB, storeA, witnessPort).awaitRole("SECONDARY/PRIMARY/[2]");
        awaitInSync(b);
        assertThat(b.node.describe()).doesNotContain("syncing");
        assertThat(read(storeA, 8192, 128)).isEqualTo(read(storeB, 8192, 128));
    }

    /**
     * A primary that died with writes in flight (an extent active at the crash, whose blocks it
     * may hold differently from the peer) rejoins the promoted peer as its secondary: it lists
     * that extent (CHANGED), and the new primary copies it back together with what it logged
     * alone, not the whole store; the blocks the old primary held alone are overwritten.
     */
    @Test
    void aReturningPrimaryWithWritesInFlightAtItsCrashGetsOnlyThoseExtentsAndWhatItMissed() throws Exception {
        List<Node> pair = inSyncWithWitness();
        Node a = pair.get(0);
        Node b = pair.get(1);
        long inFlight = 8L << 20; // the 4 MiB extent at 8 MiB, written through the pair first
        a.store().write(inFlight / BLOCK, random(4 << 20, 70), false);
        storeA.write(inFlight / BLOCK + 16, random(4096, 71), false); // applied at a only: b never got it
        a.store().log().markDirty(inFlight, 4L << 20); // as DirtyRegionLog.open does with an extent active at a crash
        a.close();
        b.awaitRole("PRIMARY/null/[1]");
        b.store().write(32L << 20 >> 9, random(64 << 10, 72), false); // 64 KiB a misses

        Node a2 = new Node("a", "b", portA, portB, storeA, witnessPort);
        a2.awaitRole("SECONDARY/PRIMARY/[2]");
        awaitInSync(b);
        assertThat(b.node.lastResyncBytes()).as("a's 4 MiB extent and the 64 KiB b wrote alone, not 64 MiB")
                .isEqualTo((4L << 20) + (64 << 10));
        assertThat(read(storeA, 0, (int) BLOCKS)).isEqualTo(read(storeB, 0, (int) BLOCKS));
        assertThat(a2.store().log().isClean()).isTrue();
        assertThat(b.store().log().isClean()).isTrue();
        assertThat(b.node.status()).contains("last resync: 4 MiB copied");
    }

    /**
     * A new pair of thin stores: the preferred node's first copy sends what was written as data
     * and the rest (which reads as zeros) as UNMAPs that leave zeros at the peer, whatever the
     * peer's store held before; the peer reads the same everywhere.
     */
    @Test
    void theFirstCopyOfThinStoresSendsOnlyWhatWasWrittenAndTheRestAsUnmap() throws Exception {
        storeA.write(3L << 20 >> 9, random(1 << 20, 80), false); // 1 MiB of data in a's 64 MiB
        for (long mib = 0; mib < 64; mib += 8) {
            storeB.write(mib << 20 >> 9, random(64 << 10, 81 + mib), false); // stale blocks the copy must zero
        }
        List<Node> pair = inSync(0);
        Node a = pair.get(0);
        Node b = pair.get(1);
        assertThat(a.node.lastResyncBytes()).as("only the 1 MiB a's store holds goes as data").isEqualTo(1 << 20);
        assertThat(a.node.status()).contains("(and 63 MiB of unallocated blocks as UNMAP)");
        assertThat(read(storeB, 0, (int) BLOCKS)).isEqualTo(read(storeA, 0, (int) BLOCKS));
        assertThat(b.node.role()).isEqualTo(PairNode.Role.SECONDARY);
    }

    /**
     * A bug while sending a change (here: a scatter list shorter than the length it is said to
     * hold) is no exception for the core: the change counts as not replicated, and the link is
     * ended so that the peer catches up when it comes back.
     */
    @Test
    void aChangeThatCannotBeSentCountsAsNotReplicatedAndEndsTheLink() throws Exception {
        List<Node> pair = inSync(0);
        Node a = pair.get(0);
        Node b = pair.get(1);
        org.jtarget.buffer.ScatterList shortList = new org.jtarget.buffer.ScatterList();
        shortList.add(Unpooled.directBuffer(BLOCK).writeZero(BLOCK));
        assertThat(a.node.write(0, 0, BLOCK, shortList, 16 * BLOCK, false)).isFalse();
        a.awaitRole("PRIMARY/null/[2]");
        a.awaitRole("PRIMARY/SECONDARY/[2]");
        assertThat(b.node.role()).isEqualTo(PairNode.Role.SECONDARY);
    }

    @Test
    void aPlannedSwitchoverHandsThePairOverWithNothingToCopyAndTheStatusFileSaysSo() throws Exception {
        List<Node> pair = inSyncWithWitness();
        Node a = pair.get(0);
        Node b = pair.get(1);
        a.store().write(0, random(8192, 51), false);
        a.node.switchover();
        b.awaitRole("PRIMARY/SECONDARY/[1]");
        a.awaitRole("SECONDARY/PRIMARY/[2]");
        assertThatThrownBy(() -> a.store().write(0, random(512, 52), false)).isInstanceOf(StoreException.class);
        b.store().write(64, random(8192, 53), true);
        assertThat(read(storeA, 64, 16)).as("the new primary replicates to the old one").isEqualTo(read(storeB, 64, 16));
        assertThat(b.node.describe()).contains("generation 0").doesNotContain("degraded");
        Path status = dir.resolve("b").resolve("status");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!(java.nio.file.Files.exists(status) && java.nio.file.Files.readString(status).contains("HA node b: primary"))
                && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertThat(status).content().contains("HA node b: primary").contains("peer a secondary")
                .contains("witness lease: held").contains("store disk: whole");
        b.node.switchover(); // and back
        a.awaitRole("PRIMARY/SECONDARY/[2]");
        a.node.switchover();
        b.awaitRole("PRIMARY/SECONDARY/[1]");
    }

    @Test
    void aSwitchoverIsRefusedOnASecondary() throws Exception {
        Node b = b();
        Node a = a();
        a.awaitRole("PRIMARY/SECONDARY/[2]");
        b.node.switchover();
        Thread.sleep(300);
        assertThat(a.node.role()).isEqualTo(PairNode.Role.PRIMARY);
        assertThat(b.node.role()).isEqualTo(PairNode.Role.SECONDARY);
    }

    /**
     * A node stops its control thread before it ends its link, and the link's end is one more link
     * event: it used to throw RejectedExecutionException into the link's loop (a WARN with a stack
     * trace at every clean stop of a connected node, and the connection's end cut short).
     */
    @Test
    void linkEventsWhileTheNodeClosesAreNotThrownIntoTheLink() throws Exception {
        Node b = b();
        Node a = a();
        a.awaitRole("PRIMARY/SECONDARY/[2]");
        a.node.close();
        assertThatCode(() -> a.node.down("this node stopped")).doesNotThrowAnyException();
        assertThatCode(() -> a.node.handover()).doesNotThrowAnyException();
        assertThatCode(() -> a.node.up(a.node.hello())).doesNotThrowAnyException();
        b.close();
    }

    /**
     * A promotion the witness granted is recorded even on an interrupted thread: a node that stops
     * (its control thread interrupted) while the witness grants it a new generation used to fail
     * to save it (ClosedByInterruptException), and then knew an older generation than the witness,
     * which grants nothing for it: the pair could never again serve without one of its nodes.
     */
    @Test
    void aGenerationTheWitnessGrantedIsRecordedEvenOnAnInterruptedThread() throws Exception {
        List<Node> pair = inSyncWithWitness();
        Node a = pair.get(0);
        Node b = pair.get(1);
        b.close();
        a.awaitRole("PRIMARY/null/[2]");
        Thread.currentThread().interrupt();
        try {
            a.node.notReplicated("disk"); // asks the witness to go on alone: granted, generation 1@a
            assertThat(Thread.currentThread().isInterrupted()).as("the interrupt is kept").isTrue();
        } finally {
            Thread.interrupted();
        }
        assertThat(a.node.describe()).contains("degraded").contains("generation 1@a");
        assertThat(new NodeStateFile(dir.resolve("a").resolve("node.state")).load().generation())
                .hasToString("1@a");
    }

    private static int freePort() {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
