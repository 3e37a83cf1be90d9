package org.jtarget.scsi.lun;

import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.concurrent.ImmediateEventExecutor;
import org.jtarget.io.LunIoExecutors;
import org.jtarget.scsi.alua.TargetPortGroups;
import org.jtarget.scsi.spi.DataDirection;
import org.jtarget.scsi.spi.FabricOps;
import org.jtarget.scsi.spi.ITNexus;
import org.jtarget.scsi.spi.ProtocolId;
import org.jtarget.scsi.spi.ScsiCommand;
import org.jtarget.scsi.spi.ScsiStatus;
import org.jtarget.scsi.spi.TmfRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TargetRegistryTest {

    private static final String T = "iqn.t";
    private static final String OTHER = "iqn.other";
    private static final ITNexus A = new ITNexus(ProtocolId.ISCSI, "iqn.a", "iqn.a,i,0x1", "iqn.t,t,0x1", 1, 1);
    private static final ITNexus B = new ITNexus(ProtocolId.ISCSI, "iqn.b", "iqn.b,i,0x2", "iqn.t,t,0x1", 1, 1);
    private static final ITNexus O = new ITNexus(ProtocolId.ISCSI, "iqn.a", "iqn.a,i,0x3", "iqn.other,t,0x1", 1, 1);
    private static final byte[] TEST_UNIT_READY = new byte[6];
    private static final byte[] REPORT_LUNS = Cdbs.of(0xA0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0);

    private final ArrayDeque<Runnable> io = new ArrayDeque<>();
    private final Fabric fabric = new Fabric();
    private LunIoExecutors threads;

    @AfterEach
    void stopThreads() {
        if (threads != null) {
            threads.shutdown(Duration.ofSeconds(5));
        }
    }

    private TargetRegistry manualRegistry() {
        return new TargetRegistry(new LunIoExecutors(name -> io::add), null);
    }

    private static TargetRegistry.TargetSpec spec(String name, NodeAcl acl, LogicalUnitDefinition... luns) {
        return new TargetRegistry.TargetSpec(name, List.of(luns), acl, new TargetPortGroups(), List.of(), Map.of());
    }

    private static LogicalUnitDefinition lun(int n, TestStore store) {
        return new LogicalUnitDefinition(n, store, false, false);
    }

    private void runIo() {
        Runnable r;
        while ((r = io.poll()) != null) {
            r.run();
        }
    }

    @Test
    void targetsAreFoundByNameCaseInsensitivelyAndListenersSeeEveryChange() {
        TargetRegistry r = manualRegistry();
        List<String> events = new ArrayList<>();
        r.addListener(new TargetRegistry.Listener() {
            @Override public void targetAdded(TargetRegistry.Target t) { events.add("+" + t.name()); }
            @Override public void targetRemoved(TargetRegistry.Target t) { events.add("-" + t.name()); }
            @Override public void lunAdded(TargetRegistry.Target t, LogicalUnit lu) { events.add("+lun" + lu.lun()); }
            @Override public void lunRemoved(TargetRegistry.Target t, LogicalUnit lu) { events.add("-lun" + lu.lun()); }
            @Override public void aclChanged(TargetRegistry.Target t, NodeAcl acl) { events.add("acl " + acl.initiators()); }
        });
        r.addTarget(spec(T, NodeAcl.ANY, lun(0, store())));
        assertThat(r.target("IQN.T").name()).isEqualTo(T);
        assertThatThrownBy(() -> r.addTarget(spec(T, NodeAcl.ANY))).isInstanceOf(IllegalArgumentException.class);
        r.addLun(T, lun(1, store()));
        assertThatThrownBy(() -> r.addLun(T, lun(1, store()))).isInstanceOf(IllegalArgumentException.class);
        r.removeLun(T, 0);
        assertThatThrownBy(() -> r.removeLun(T, 0)).isInstanceOf(IllegalArgumentException.class);
        r.changeAcl(T, NodeAcl.ofInitiators(List.of("iqn.a")));
        assertThat(r.removeTarget(T).isDone()).isTrue();
        assertThat(r.target(T)).isNull();
        assertThat(events).containsExactly("+iqn.t", "+lun1", "-lun0", "acl [iqn.a]", "-iqn.t", "-lun1");
    }

    @Test
    void aRemovedLunAnswersNotSupportedAfterItsInFlightCommandsEndAndOnlyThenItsStoreCloses() {
        TargetRegistry r = manualRegistry();
        ClosingStore removed = new ClosingStore(false);
        ScsiTargetCore core = r.addTarget(spec(T, NodeAcl.ANY, lun(0, store()), lun(1, removed))).core();
        core.nexusLoggedIn(A);
        ScsiCommand inFlight = fabric.submit(core, A, 1, read10());
        ScsiCommand inFlight2 = fabric.submit(core, A, 1, read10());
        assertThat(io).hasSize(2);

        CompletableFuture<LogicalUnit> drained = r.removeLun(T, 1);
        drained.thenAccept(TargetRegistryTest::closeStore);
        assertThat(drained).isNotDone(); // two reads still queued on its store
        assertThat(fabric.run(core, A, 1, TEST_UNIT_READY)).isEqualTo("2 05/25/00");
        assertThat(fabric.run(core, A, 0, REPORT_LUNS)).isEqualTo("0");
        assertThat(fabric.dataIn(core, A, REPORT_LUNS)).containsExactly(0);
        assertThat(removed.closed).isFalse();

        runIo();
        assertThat(fabric.outcome(inFlight)).isEqualTo("0");
        assertThat(fabric.outcome(inFlight2)).isEqualTo("0");
        assertThat(drained).isDone();
        assertThat(removed.closed).isTrue();
        assertThat(removed.usedAfterClose).isFalse();
        // the remaining LU reports the change once to the nexus, then serves it
        assertThat(fabric.run(core, A, 0, TEST_UNIT_READY)).isEqualTo("2 06/3F/0E");
        assertThat(fabric.run(core, A, 0, TEST_UNIT_READY)).isEqualTo("0");
    }

    @Test
    void anAddedLunIsReportedToEveryNexusOfItsTargetAndNoOther() {
        TargetRegistry r = manualRegistry();
        ScsiTargetCore core = r.addTarget(spec(T, NodeAcl.ANY, lun(0, store()))).core();
        ScsiTargetCore other = r.addTarget(spec(OTHER, NodeAcl.ANY, lun(0, store()))).core();
        core.nexusLoggedIn(A);
        core.nexusLoggedIn(B);
        other.nexusLoggedIn(O);

        LogicalUnit added = r.addLun(T, lun(3, store()));
        assertThat(r.logicalUnits().rank(added)).isLessThan(Integer.MAX_VALUE); // a copy target now (XCOPY)

        assertThat(fabric.dataIn(core, A, REPORT_LUNS)).containsExactly(0, 3);
        assertThat(fabric.run(core, A, 0, TEST_UNIT_READY)).isEqualTo("2 06/3F/0E");
        assertThat(fabric.run(core, B, 3, TEST_UNIT_READY)).isEqualTo("2 06/3F/0E"); // the new LU too
        assertThat(fabric.run(core, B, 3, TEST_UNIT_READY)).isEqualTo("0");
        assertThat(fabric.run(other, O, 0, TEST_UNIT_READY)).isEqualTo("0"); // another target: untouched
    }

    @Test
    void aLunAddedAtRunTimeHasItsQueueDepth() {
        TargetRegistry r = manualRegistry();
        ScsiTargetCore core = r.addTarget(spec(T, NodeAcl.ANY, lun(0, store()))).core();
        TestStore blocking = new TestStore(512, 64, false, false);
        LogicalUnit added = r.addLun(T, new LogicalUnitDefinition(1, blocking, false, false, 0, null, 1));
        assertThat(added.queueDepth().limit()).isEqualTo(1);

        ScsiCommand first = fabric.submit(core, A, 1, read10());
        ScsiCommand parked = fabric.submit(core, B, 1, read10());
        assertThat(io).as("one command at the store").hasSize(1);
        assertThat(added.queueDepth().waiting()).isEqualTo(1);
        runIo();
        assertThat(fabric.outcome(first)).isEqualTo("0");
        assertThat(fabric.outcome(parked)).isEqualTo("0");
        assertThat(blocking.calls).containsExactly("read 0 1", "read 0 1");
        assertThat(added.queueDepth().outstanding()).isZero();
    }

    @Test
    void removingATargetDrainsItsLusAndUnregistersThemForCopies() {
        TargetRegistry r = manualRegistry();
        ScsiTargetCore core = r.addTarget(spec(T, NodeAcl.ANY, lun(0, store()), lun(1, new ClosingStore(false))))
                .core();
        core.nexusLoggedIn(A);
        LogicalUnit lu1 = core.logicalUnit(1);
        fabric.submit(core, A, 1, read10());
        CompletableFuture<List<LogicalUnit>> gone = r.removeTarget(T);
        assertThat(gone).isNotDone();
        assertThat(r.logicalUnits().rank(lu1)).isEqualTo(Integer.MAX_VALUE); // no longer a copy target
        runIo();
        assertThat(gone.join()).hasSize(2);
    }

    /**
     * Many commands in flight on three LUs from several threads (real I/O threads, a store that
     * takes its time) while LUN 1 is removed and LUN 3 added: every command ends exactly once, the
     * removed LU's store is never used after it closed, and the other LUs never fail.
     */
    @Test
    void addAndRemoveUnderConcurrentIo() throws Exception {
        threads = new LunIoExecutors(1, 1024);
        TargetRegistry r = new TargetRegistry(threads, null);
        ClosingStore removed = new ClosingStore(true);
        ScsiTargetCore core = r.addTarget(spec(T, NodeAcl.ANY, lun(0, new ClosingStore(true)), lun(1, removed),
                lun(2, new ClosingStore(true)))).core();
        core.nexusLoggedIn(A);
        core.nexusLoggedIn(B);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Semaphore window = new Semaphore(64);
        List<Thread> submitters = new ArrayList<>();
        ConcurrentHashMap<String, AtomicInteger> outcomes = new ConcurrentHashMap<>();
        AtomicInteger submitted = new AtomicInteger();
        CountDownLatch running = new CountDownLatch(3);
        for (ITNexus n : List.of(A, B, A)) {
            Thread t = Thread.ofPlatform().start(() -> {
                int i = 0;
                running.countDown();
                while (!stop.get()) {
                    int lun = i++ % 3;
                    try {
                        window.acquire();
                        submitted.incrementAndGet();
                        fabric.submit(core, n, lun, read10(), outcome -> {
                            outcomes.computeIfAbsent(lun + " " + outcome, k -> new AtomicInteger()).incrementAndGet();
                            window.release();
                        });
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                        return;
                    }
                }
            });
            submitters.add(t);
        }
        running.await();
        awaitEnded(outcomes, 300);
        CompletableFuture<LogicalUnit> drained = r.removeLun(T, 1);
        drained.thenAccept(TargetRegistryTest::closeStore);
        r.addLun(T, lun(3, new ClosingStore(true)));
        awaitEnded(outcomes, sum(outcomes) + 300);
        stop.set(true);
        for (Thread t : submitters) {
            t.join();
        }
        assertThat(window.tryAcquire(64, 10, TimeUnit.SECONDS)).as("every command ended").isTrue();
        assertThat(failure.get()).isNull();
        assertThat(drained.get(10, TimeUnit.SECONDS).lun()).isEqualTo(1);
        assertThat(removed.closed).isTrue();
        assertThat(removed.usedAfterClose).isFalse();
        assertThat(fabric.endedTwice.get()).isZero();
        assertThat(sum(outcomes)).isEqualTo(submitted.get());
        assertThat(outcomes.keySet()).allMatch(k -> k.endsWith(" 0") || k.endsWith(" 2 06/3F/0E")
                || k.equals("1 2 05/25/00"), "only GOOD, the unit attention, or LUN 1 not supported");
        assertThat(outcomes).containsKey("1 2 05/25/00").containsKey("1 0").containsKey("0 0").containsKey("2 0");
        assertThat(fabric.run(core, A, 3, TEST_UNIT_READY)).isIn("0", "2 06/3F/0E");
    }

    private static int sum(Map<String, AtomicInteger> outcomes) {
        return outcomes.values().stream().mapToInt(AtomicInteger::get).sum();
    }

    /** Waits (at most 30 s: a loaded machine) until {@code n} commands have ended. */
    private static void awaitEnded(Map<String, AtomicInteger> outcomes, int n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (sum(outcomes) < n && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(sum(outcomes)).isGreaterThanOrEqualTo(n);
    }

    private static void closeStore(LogicalUnit lu) {
        try {
            lu.store().close();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static TestStore store() {
        return new TestStore(512, 64, true, false);
    }

    private static byte[] read10() {
        return Cdbs.rw10(0x28, 0, 0, 1);
    }

    /** A blocking store that notes a use after close (a drain that closed it too early). */
    static final class ClosingStore extends TestStore {
        volatile boolean closed;
        volatile boolean usedAfterClose;
        private final boolean slow;

        ClosingStore(boolean slow) {
            super(512, 64, false, false);
            this.slow = slow;
        }

        @Override
        public void read(long lba, int blocks, io.netty.buffer.ByteBuf dst) throws IOException {
            usedAfterClose |= closed;
            if (slow) {
                try {
                    Thread.sleep(0, 200_000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            } else {
                calls.add("read");
            }
            dst.writeZero(blocks * 512);
            usedAfterClose |= closed;
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    /** A thread-safe fake fabric: each command's outcome is "status" or "status key/asc/ascq". */
    static final class Fabric implements FabricOps {
        private final Map<ScsiCommand, java.util.function.Consumer<String>> waiting = new ConcurrentHashMap<>();
        private final Map<ScsiCommand, String> outcomes = new ConcurrentHashMap<>();
        private final Map<ScsiCommand, int[]> luns = new ConcurrentHashMap<>();
        final AtomicInteger endedTwice = new AtomicInteger();

        ScsiCommand submit(ScsiTargetCore core, ITNexus nexus, int lun, byte[] cdb) {
            return submit(core, nexus, lun, cdb, o -> { });
        }

        ScsiCommand submit(ScsiTargetCore core, ITNexus nexus, int lun, byte[] cdb,
                           java.util.function.Consumer<String> onEnd) {
            ScsiCommand cmd = new ScsiCommand();
            cmd.cdb(cdb, 0, cdb.length);
            cmd.lun(lun);
            cmd.nexus(nexus);
            cmd.fabric(this);
            cmd.eventLoop(ImmediateEventExecutor.INSTANCE);
            cmd.alloc(PooledByteBufAllocator.DEFAULT);
            cmd.expectedDataTransferLength(4096);
            cmd.direction(DataDirection.READ);
            waiting.put(cmd, onEnd);
            core.submit(cmd);
            return cmd;
        }

        String run(ScsiTargetCore core, ITNexus nexus, int lun, byte[] cdb) {
            return outcome(submit(core, nexus, lun, cdb));
        }

        /** The LUNs of a REPORT LUNS answer. */
        List<Integer> dataIn(ScsiTargetCore core, ITNexus nexus, byte[] reportLuns) {
            ScsiCommand cmd = submit(core, nexus, 0, reportLuns);
            assertThat(outcome(cmd)).isEqualTo("0");
            int[] l = luns.get(cmd);
            List<Integer> r = new ArrayList<>();
            for (int x : l) {
                r.add(x);
            }
            return r;
        }

        String outcome(ScsiCommand cmd) {
            return outcomes.get(cmd);
        }

        @Override
        public void writePending(ScsiCommand cmd) {
            throw new AssertionError("no writes here");
        }

        @Override
        public void queueDataIn(ScsiCommand cmd) {
            end(cmd);
        }

        @Override
        public void queueStatus(ScsiCommand cmd) {
            end(cmd);
        }

        @Override
        public void queueTmResponse(TmfRequest tmf) {
        }

        @Override
        public void abortedTask(ScsiCommand cmd) {
            end(cmd);
        }

        private void end(ScsiCommand cmd) {
            String o;
            if (cmd.status() == ScsiStatus.CHECK_CONDITION) {
                byte[] s = cmd.sense();
                o = String.format("%d %02X/%02X/%02X", cmd.status(), s[2] & 0xF, s[12] & 0xFF, s[13] & 0xFF);
            } else {
                o = String.valueOf(cmd.status());
            }
            if (cmd.dataIn() != null && cmd.cdb()[0] == (byte) 0xA0) {
                int n = cmd.dataIn().getInt(0) / 8;
                int[] l = new int[n];
                for (int i = 0; i < n; i++) {
                    l[i] = cmd.dataIn().getShort(8 + 8 * i) & 0x3FFF;
                }
                luns.put(cmd, l);
            }
            cmd.releaseBuffers();
            if (outcomes.putIfAbsent(cmd, o) != null) {
                endedTwice.incrementAndGet();
            }
            java.util.function.Consumer<String> onEnd = waiting.remove(cmd);
            if (onEnd != null) {
                onEnd.accept(o);
            }
        }
    }
}
