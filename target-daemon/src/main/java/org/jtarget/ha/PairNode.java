package org.jtarget.ha;

import io.netty.buffer.ByteBuf;
import org.jtarget.backstore.spi.Backstore;
import org.jtarget.buffer.ScatterList;
import org.jtarget.ha.link.Acknowledgement;
import org.jtarget.ha.link.Hello;
import org.jtarget.ha.link.LinkEvents;
import org.jtarget.ha.link.LinkHeader;
import org.jtarget.ha.link.ReplicationLink;
import org.jtarget.ha.witness.WitnessAnswer;
import org.jtarget.backstore.spi.StoreException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * One node of an HA pair: its role, its data's generation, its replicated stores, and what it does
 * when the link to the peer comes and goes.
 *
 * <ul>
 * <li>At start a node serves nothing ({@link Role#UNDECIDED}, its port groups in standby) until the
 *     link is up; then both ends decide alike who serves ({@link RoleDecision}).</li>
 * <li>The primary sends every change to the secondary and waits for it ({@link ReplicatedBackstore});
 *     when the link is lost it carries on alone (degraded): it begins a new generation, durable
 *     before the first change it acknowledges alone, and its dirty-region logs keep what the peer
 *     misses. When the link is back it copies those regions (or everything, when the peer's copy
 *     is not known to be whole) to the peer, then tells it the copy is whole.</li>
 * <li>The secondary applies what the primary sends to its local stores; while it is being
 *     resynchronised its stores are recorded as incomplete, so that a crash in between never lets
 *     it serve a partial copy.</li>
 * <li>Without the peer a secondary keeps waiting: promotion needs the witness (not yet).</li>
 * </ul>
 *
 * Link events arrive on the link's loop; what blocks (the state file, store I/O) runs on the
 * node's own threads.
 */
public final class PairNode implements LinkEvents, Replication, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(PairNode.class);
    /** How long a pair found inconsistent waits before it meets again (a config fixed on one node, restarted). */
    static final Duration INCONSISTENT_PAIR_RETRY = Duration.ofSeconds(30);

    /** What this node does for the pair. */
    public enum Role {
        /** Not decided yet (no link since the start): serves nothing. */
        UNDECIDED,
        /** Serves the replicated LUs and sends their changes to the peer. */
        PRIMARY,
        /** Applies the primary's changes; its port groups are in standby. */
        SECONDARY
    }

    /** Where the node's role and its view of the peer go (the daemon sets the ALUA states from it). */
    public interface RoleListener {
        /**
         * @param role       this node's role
         * @param peerRole   the peer's, or null when the link is down
         * @param peerGroups the peer's target port groups as its last HELLO gave them
         */
        void changed(Role role, Role peerRole, List<Integer> peerGroups);
    }

    /** A replicated store of this node: its name on both nodes, the store beneath, whether its data survives a restart. */
    public record StoreSpec(String name, Backstore local, boolean volatileData, DirtyRegionLog log) {
    }

    private final String node;
    private final String peerNode;
    private final String preferred;
    private final String pairId;
    private final NodeStateFile stateFile;
    private final List<ReplicatedBackstore> stores = new ArrayList<>();
    private final List<Integer> portGroups;
    private final RoleListener listener;
    private final ScheduledExecutorService control = Executors.newSingleThreadScheduledExecutor(r -> Thread.ofPlatform()
            .name("ha-control").daemon(true).unstarted(r));
    /** The pair's witness, or null (then a secondary never promotes itself and a lone primary needs no lease). */
    private final Witness witness;
    private final ExecutorService storeIo;
    private ReplicationLink link;
    private NodeStateFile.State state;
    private volatile Role role = Role.UNDECIDED;
    private volatile Role peerRole;
    private volatile List<Integer> peerGroups = List.of();
    private Hello sentHello;
    private boolean inSync;
    private boolean degraded;
    private volatile CompletableFuture<Role> decided = new CompletableFuture<>();
    /** What the current link's peer listed as changed on its own (used when this node is its primary). */
    private volatile PeerChanges peerChanges = new PeerChanges(0);
    private volatile Thread resync;
    private volatile String resyncProgress = "";
    /** How far the running resync has copied its current store, or null (none runs, or none copied yet). */
    private volatile ResyncProgress resyncWork;
    /** The bytes the last completed resync copied, and its summary for the status (none yet: -1, ""). */
    private volatile long lastResyncBytes = -1;
    private volatile String lastResync = "";
    /** Until when (System.nanoTime) the witness lets this node serve without its peer. */
    private volatile long leaseUntil = System.nanoTime();
    /** Since when the link is down (System.nanoTime), for the promotion's wait. */
    private volatile long downSince = System.nanoTime();
    /** The peer said GOODBYE (a clean stop, its lease released): no need to wait before a promotion. */
    private volatile boolean peerStopped;

    /**
     * @param writers the threads that may change one store at once (its LU's I/O threads)
     */
    public PairNode(String node, String peerNode, String preferred, String pairId, NodeStateFile stateFile,
                    List<StoreSpec> specs, List<Integer> portGroups, int writers, Witness witness,
                    RoleListener listener) throws IOException {
        this.node = node;
        this.witness = witness;
        this.peerNode = peerNode;
        this.preferred = preferred;
        this.pairId = pairId;
        this.stateFile = stateFile;
        this.portGroups = List.copyOf(portGroups);
        this.listener = listener;
        this.storeIo = Executors.newFixedThreadPool(Math.max(2, writers), r -> Thread.ofPlatform()
                .name("ha-apply").daemon(true).unstarted(r));
        this.state = stateFile.load();
        for (StoreSpec s : specs) {
            if (s.volatileData() && state.isComplete(s.name())) {
                state = state.withComplete(s.name(), false); // a memory store restarts empty
            }
            stores.add(new ReplicatedBackstore(s.local(), stores.size(), pairId, this, s.log(), writers + 1));
            if (s.log().extentsDirtiedAtOpen() > 0) {
                LOG.warn("HA node {}: {} was not stopped cleanly; the {} extent(s) with changes in flight count as "
                        + "changed ({} MiB to resynchronise)", node, s.name(), s.log().extentsDirtiedAtOpen(),
                        s.log().dirtyBytes() >> 20);
            }
        }
        stateFile.save(state);
    }

    /** The stores as the SCSI core must use them, in the order given. */
    public List<ReplicatedBackstore> stores() {
        return List.copyOf(stores);
    }

    /**
     * Starts the link and, with a witness, the lease and promotion checks every heartbeat
     * interval; the node serves once it has met its peer, or the witness let it serve alone.
     */
    public void start(ReplicationLink link) throws org.jtarget.rdma.RdmaException {
        this.link = link;
        LOG.info("HA node {} of pair {}: generation {}, {} replicated store(s); waiting for {}{}", node, pairId,
                state.generation(), stores.size(), peerNode, witness == null ? " (no witness: never serves alone)" : "");
        link.start();
        long interval = link.settings().heartbeatInterval().toNanos();
        control.scheduleWithFixedDelay(this::tick, interval, interval, TimeUnit.NANOSECONDS);
    }

    public Role role() {
        return role;
    }

    /** The bytes the last completed resync copied to the peer, -1 before the first. */
    long lastResyncBytes() {
        return lastResyncBytes;
    }

    /**
     * The status lines (also in {@code status} beside the state file, rewritten when they change):
     * the node's role and generation, the peer's state and resync progress, the witness lease,
     * and per store whether its copy is whole and how much the peer lacks.
     */
    public synchronized String status() {
        StringBuilder b = new StringBuilder(describe()).append('\n');
        if (witness != null) {
            long ms = (leaseUntil - System.nanoTime()) / 1_000_000;
            b.append("witness lease: ").append(role == Role.PRIMARY && ms > 0 ? "held for " + ms + " ms more" : "none")
                    .append('\n');
        }
        if (!lastResync.isEmpty()) {
            b.append("last resync: ").append(lastResync).append('\n');
        }
        for (ReplicatedBackstore s : stores) {
            b.append("store ").append(s.name()).append(": ")
                    .append(state.isComplete(s.name()) ? "whole" : "incomplete (not to be served)")
                    .append(", ").append(s.log().dirtyBytes() >> 20).append(" MiB changed here that ")
                    .append(peerNode).append(" may lack\n");
        }
        return b.toString();
    }

    private String lastStatus = "";

    /** Rewrites the status file when the status changed (not durable: it is for people and scripts). */
    private void writeStatus() {
        String now = status();
        if (now.equals(lastStatus)) {
            return;
        }
        lastStatus = now;
        java.nio.file.Path file = stateFile.path().resolveSibling("status");
        java.nio.file.Path tmp = stateFile.path().resolveSibling("status.tmp");
        try {
            java.nio.file.Files.writeString(tmp, now);
            java.nio.file.Files.move(tmp, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE,
                    java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            LOG.debug("HA status file {}: {}", file, e.getMessage());
        }
    }

    /**
     * One reading of the node for the metrics endpoint.
     *
     * @param peerRole null while the peer is not connected
     * @param resyncing a resync to the peer is running
     */
    public record Snapshot(String node, String peerNode, Role role, Role peerRole, boolean degraded, boolean inSync,
                           boolean resyncing, long generation, long lastResyncBytes, List<StoreSnapshot> stores) {
    }

    /**
     * @param whole          this node's copy is whole (it may be served)
     * @param changedBytes   bytes changed here that the peer may lack (what a resync copies; while
     *                       one runs, what is left of it)
     * @param changesInFlight changes sent to the peer and not answered yet
     */
    public record StoreSnapshot(String name, boolean whole, long changedBytes, int changesInFlight) {
    }

    public synchronized Snapshot snapshot() {
        List<StoreSnapshot> list = new ArrayList<>();
        for (ReplicatedBackstore s : stores) {
            list.add(new StoreSnapshot(s.name(), state.isComplete(s.name()), s.log().dirtyBytes(), s.changesInFlight()));
        }
        return new Snapshot(node, peerNode, role, peerRole, degraded, inSync, resync != null,
                state.generation().counter(), lastResyncBytes, list);
    }

    /** One line for logs: role, peer, generation, resync progress. */
    public synchronized String describe() {
        String peer = peerRole == null ? "peer " + peerNode + " not connected"
                : "peer " + peerNode + " " + peerRole.name().toLowerCase() + (resync != null ? ", " + resyncProgress
                : inSync ? ", in sync" : "");
        return "HA node " + node + ": " + role.name().toLowerCase() + (degraded ? " (degraded)" : "") + ", " + peer
                + ", generation " + state.generation();
    }

    // ------------------------------------------------------------------ LinkEvents (link loop)

    @Override
    public synchronized Hello hello() {
        List<Hello.Store> list = new ArrayList<>();
        for (ReplicatedBackstore s : stores) {
            boolean whole = state.isComplete(s.name());
            list.add(new Hello.Store(s.name(), s.info().blockSize(), s.info().blockCount(),
                    !whole ? Hello.DATA_MISSING : s.log().isClean() ? Hello.DATA_CONSISTENT : Hello.DATA_CHANGED,
                    s.unmapsToZeros()));
        }
        sentHello = new Hello(node, role == Role.PRIMARY, state.generation().counter(), state.generation().node(), 0, 0,
                0, 0, portGroups, list);
        return sentHello;
    }

    @Override
    public void up(Hello peer) {
        peerChanges = new PeerChanges(stores.size()); // before any CHANGED of this link can arrive
        CompletableFuture<Role> decision = new CompletableFuture<>();
        decided = decision;
        if (!onControl(() -> decision.complete(linkUp(peer)))) {
            decision.complete(role);
        }
    }

    @Override
    public void down(String reason) {
        decided.complete(Role.UNDECIDED); // applies of the link that ended waited for its decision: they refuse
        decided = new CompletableFuture<>();
        downSince = System.nanoTime();
        peerStopped = reason.equals("the peer stopped");
        onControl(this::linkDown);
    }

    /**
     * Runs {@code task} on the control thread; false when the node is closing: {@link #close()}
     * stops the control thread before it ends the link, whose end is one more link event, and a
     * link event must not throw into the link's loop (that cut the connection's end short).
     */
    private boolean onControl(Runnable task) {
        try {
            control.execute(task);
            return true;
        } catch (java.util.concurrent.RejectedExecutionException closing) {
            LOG.debug("HA node {}: closing, a link event is not handled", node);
            return false;
        }
    }

    @Override
    public void apply(int type, int store, long lba, long blocks, int flags, ByteBuf data, Acknowledgement ack) {
        if (type == LinkHeader.CHANGED) {
            String refusal = peerChanged(store, lba, blocks, (flags & LinkHeader.FLAG_COMPLETE) != 0);
            ack.done(refusal == null, refusal);
            return;
        }
        CompletableFuture<Role> decision = decided;
        if (type == LinkHeader.WRITE && decision.isDone() && store < stores.size()
                && stores.get(store).local().isNonBlocking()) {
            // a store that never blocks (memory) is written here, on the link's loop: a hand-off to
            // an apply thread and back cost two wake-ups and context switches per write, more than
            // the copy itself; the ACK then leaves with the others of this loop pass
            String refusal = applyHere(decision, type, store, lba, blocks, flags, data);
            ack.done(refusal == null, refusal);
            return;
        }
        try {
            storeIo.execute(() -> {
                String refusal = applyHere(decision, type, store, lba, blocks, flags, data);
                ack.done(refusal == null, refusal);
            });
        } catch (java.util.concurrent.RejectedExecutionException stopping) {
            ack.done(false, "node " + node + " is stopping");
        }
    }

    /**
     * Why a range the peer names is not one of store {@code s}'s (or, {@code overflows}, does not fit
     * where its data came), or null when it is.
     */
    private static String outside(ReplicatedBackstore s, long lba, long blocks, boolean overflows) {
        return overflows || lba < 0 || blocks < 0 || lba + blocks > s.info().blockCount()
                ? blocks + " blocks at " + lba + " lie outside " + s.name() : null;
    }

    /** Records a range of the peer's own changes (link loop: no waiting); why it is refused, or null. */
    private String peerChanged(int index, long lba, long blocks, boolean last) {
        if (index >= stores.size()) {
            return "no store " + index;
        }
        String outside = outside(stores.get(index), lba, blocks, false);
        if (outside != null) {
            return outside;
        }
        peerChanges.add(index, lba, blocks, last);
        return null;
    }

    /** The primary handed the pair over (a planned switchover): this node serves from now on. */
    @Override
    public void handover() {
        onControl(() -> {
            if (role != Role.SECONDARY) {
                LOG.warn("HA node {}: {} handed the pair over, but this node is {}", node, peerNode,
                        role.name().toLowerCase());
                return;
            }
            synchronized (this) {
                inSync = true;
                degraded = false;
                leaseUntil = System.nanoTime(); // the next tick asks the witness, if any
            }
            LOG.info("HA node {}: takes over from {} (planned switchover), generation {}", node, peerNode,
                    currentGeneration());
            setRoles(Role.PRIMARY, Role.SECONDARY, peerGroups);
        });
    }

    /**
     * A planned switchover (SIGUSR1 to the daemon): the primary, in sync with its connected peer,
     * stops taking changes, waits until every change in flight was applied at the peer, gives its
     * lease up and tells the peer to serve; it stays as the secondary. Refused, with a WARN line
     * saying why, on a node that is not such a primary.
     */
    public void switchover() {
        control.execute(this::handOver);
    }

    private void handOver() {
        String refusal = role != Role.PRIMARY ? "this node is " + role.name().toLowerCase()
                : !peerIsOurs() ? peerNode + " is not connected"
                : resync != null || !inSync ? peerNode + " is not in sync yet" : null;
        if (refusal != null) {
            LOG.warn("HA node {}: switchover refused: {}", node, refusal);
            return;
        }
        role = Role.SECONDARY; // new changes are refused from here (04/0A: the initiator retries)
        try {
            for (ReplicatedBackstore s : stores) {
                if (!s.awaitIdle(link.settings().heartbeatTimeout().toMillis())) {
                    throw new IllegalStateException("changes of " + s.name() + " still in flight");
                }
            }
            if (!link.handover()) {
                throw new IllegalStateException("the link to " + peerNode + " went down");
            }
        } catch (InterruptedException | IllegalStateException e) {
            role = Role.PRIMARY;
            LOG.error("HA node {}: switchover abandoned, still primary: {}", node, e.getMessage());
            return;
        }
        if (witness != null) {
            witness.release();
        }
        LOG.info("HA node {}: handed the pair over to {} (planned switchover)", node, peerNode);
        setRoles(Role.SECONDARY, Role.PRIMARY, peerGroups);
    }

    @Override
    public void refused(String what, int store, long lba, long blocks, String why) {
        String name = store < stores.size() ? stores.get(store).name() : "store " + store;
        LOG.warn("HA: {} could not apply {} of {} blocks at {} of {}: {}; leaving it behind", peerNode, what, blocks,
                lba, name, why);
        link.drop(peerNode + " could not apply a change of " + name);
    }

    // ------------------------------------------------------------------ Replication (I/O threads)

    /** The primary serves while its secondary follows it, or while the witness's lease holds. */
    @Override
    public boolean serving() {
        return role == Role.PRIMARY && (witness == null || peerIsOurs() || System.nanoTime() - leaseUntil < 0);
    }

    // Every send below turns an unexpected exception into "not replicated" (sendFailed): the change
    // is then logged dirty and the node goes on degraded, instead of the exception reaching the
    // core while the pair still counts itself in sync with a peer that never got the change.

    @Override
    public boolean write(int store, long lba, int blockSize, ScatterList src, int length, boolean fua) {
        try {
            return peerIsOurs() && link.write(store, lba, blockSize, src, length, fua);
        } catch (RuntimeException e) {
            return sendFailed("a WRITE", e);
        }
    }

    @Override
    public boolean write(int store, long lba, int blockSize, ByteBuf src, boolean fua) {
        try {
            return peerIsOurs() && link.write(store, lba, blockSize, src, fua);
        } catch (RuntimeException e) {
            return sendFailed("a WRITE", e);
        }
    }

    @Override
    public boolean tryWrite(int store, long lba, int blockSize, ScatterList src, int length, boolean fua,
                            org.jtarget.ha.link.Ticket ticket) {
        try {
            return peerIsOurs() && link.tryWrite(store, lba, blockSize, src, length, fua, ticket);
        } catch (RuntimeException e) {
            return sendFailed("a WRITE", e);
        }
    }

    /**
     * A bug sending a change: logged with its stack, and the link ended, so that the peer resyncs
     * what it may have missed; false, as for a change the peer did not apply.
     */
    private boolean sendFailed(String what, RuntimeException e) {
        LOG.error("HA node {}: sending {} to {} failed; the change counts as not replicated", node, what, peerNode, e);
        link.drop("sending " + what + " failed: " + e);
        return false;
    }

    @Override
    public java.util.concurrent.Executor blockingWork() {
        return storeIo;
    }

    @Override
    public boolean unmap(int store, long lba, long blocks) {
        try {
            return peerIsOurs() && link.unmap(store, lba, blocks);
        } catch (RuntimeException e) {
            return sendFailed("an UNMAP", e);
        }
    }

    @Override
    public boolean flush(int store, long lba, long blocks) {
        try {
            return peerIsOurs() && link.flush(store, lba, blocks);
        } catch (RuntimeException e) {
            return sendFailed("a FLUSH", e);
        }
    }

    @Override
    public boolean state(int store, ByteBuf message) {
        try {
            return peerIsOurs() && link.state(store, message);
        } catch (RuntimeException e) {
            return sendFailed("a STATE", e);
        }
    }

    @Override
    public int maxStateBytes() {
        ReplicationLink l = link;
        return l == null ? org.jtarget.ha.link.LinkSettings.DEFAULT_SLOT_SIZE : l.settings().slotSize();
    }

    private boolean peerIsOurs() {
        return peerRole == Role.SECONDARY && link.isUp();
    }

    /**
     * Without a witness the node begins its new generation by itself (its secondary never
     * promotes, so nobody else can serve). With one, the witness must agree (a promotion), or
     * the change must not be acknowledged: the peer may be serving already.
     */
    @Override
    public synchronized void notReplicated(String store) throws IOException {
        if (witness != null) {
            goOnAloneWithWitness(store);
            return;
        }
        if (degraded) {
            return;
        }
        Generation next = state.generation().next(node);
        Generation since = inSync ? state.generation() : state.trackedSince();
        NodeStateFile.State s = state.withGeneration(next, since);
        stateFile.save(s);
        state = s;
        degraded = true;
        inSync = false;
        LOG.warn("HA node {}: {} is not receiving changes; serving alone (degraded) as generation {}, changes kept "
                + "for it since generation {}", node, peerNode, next, since);
    }

    private void goOnAloneWithWitness(String store) throws IOException {
        if (degraded && System.nanoTime() - leaseUntil < 0) {
            return;
        }
        long asked = System.nanoTime();
        WitnessAnswer a = degraded ? witness.lease(state.generation()) : witness.promote(state.generation());
        if (a instanceof WitnessAnswer.Granted g) {
            if (!degraded) {
                beginAlone(g.generation(), "its peer " + peerNode + " is not receiving changes");
            }
            leaseUntil = asked + TimeUnit.MILLISECONDS.toNanos(witness.leaseMillis());
            return;
        }
        String why = ((WitnessAnswer.Refused) a).reason();
        LOG.error("HA node {}: {} is not receiving changes and the witness refused to let this node go on alone ({});"
                + " it stops serving", node, peerNode, why);
        control.execute(() -> stepDown(why));
        throw new StoreException(StoreException.Kind.NOT_SERVED_HERE, store + ": node " + node
                + " may not serve without " + peerNode + ": " + why, null);
    }

    /** Records the witness's new generation (durable before it serves) and turns degraded. Holds the lock. */
    private void beginAlone(Generation next, String why) throws IOException {
        Generation since = inSync || role != Role.PRIMARY ? state.generation() : state.trackedSince();
        NodeStateFile.State s = state.withGeneration(next, since);
        // The witness has moved the pair to the new generation: record it even on an interrupted
        // thread (the control thread of a node that stops while its promotion was being granted),
        // or the node would restart at a generation the witness no longer grants anything for.
        boolean interrupted = Thread.interrupted();
        try {
            stateFile.save(s);
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        state = s;
        degraded = true;
        inSync = false;
        LOG.warn("HA node {}: {}; serving alone (degraded) as generation {}, the witness agreeing; changes kept for "
                + "{} since generation {}", node, why, next, peerNode, since);
    }

    // ------------------------------------------------------------------ the witness (control thread)

    /**
     * Every heartbeat interval: with a witness, the primary renews its lease and a node without its
     * primary may be promoted; the status file is brought up to date.
     */
    private void tick() {
        try {
            if (witness != null && role == Role.PRIMARY) {
                renewLease();
            } else if (witness != null && !link.isUp()) {
                maybePromote();
            }
            writeStatus();
        } catch (IOException | RuntimeException e) {
            LOG.error("HA node {}: {}", node, e.toString());
        }
    }

    private void renewLease() {
        long asked = System.nanoTime();
        WitnessAnswer a = witness.lease(currentGeneration());
        if (a instanceof WitnessAnswer.Granted) {
            leaseUntil = asked + TimeUnit.MILLISECONDS.toNanos(witness.leaseMillis());
        } else if (!peerIsOurs() && System.nanoTime() - leaseUntil >= 0) {
            stepDown(((WitnessAnswer.Refused) a).reason());
        }
    }

    private synchronized Generation currentGeneration() {
        return state.generation();
    }

    /**
     * A node that is not serving and has no link: once the link has been silent for the heartbeat
     * timeout plus two intervals (the old primary's lease, which it could not renew, has ended by
     * then even if its clock runs a little slow), and if every store's copy is whole, it asks the
     * witness to let it serve.
     */
    private void maybePromote() throws IOException {
        Duration wait = link.settings().heartbeatTimeout().plus(link.settings().heartbeatInterval().multipliedBy(2));
        if (!peerStopped && System.nanoTime() - downSince < wait.toNanos()) {
            return;
        }
        synchronized (this) {
            for (ReplicatedBackstore s : stores) {
                if (!state.isComplete(s.name())) {
                    return; // a partial copy never serves
                }
            }
            long asked = System.nanoTime();
            WitnessAnswer a = witness.promote(state.generation());
            if (!(a instanceof WitnessAnswer.Granted g)) {
                LOG.debug("HA node {}: not promoted: {}", node, ((WitnessAnswer.Refused) a).reason());
                return;
            }
            beginAlone(g.generation(), peerNode + " is gone (" + (peerStopped ? "it stopped" : "no link for "
                    + wait.toMillis() + " ms") + ")");
            leaseUntil = asked + TimeUnit.MILLISECONDS.toNanos(witness.leaseMillis());
        }
        setRoles(Role.PRIMARY, null, peerGroups);
    }

    /** This node may no longer serve (the witness gave the pair to the peer, or no lease): standby. */
    private void stepDown(String why) {
        if (role != Role.PRIMARY) {
            return;
        }
        LOG.error("HA node {}: stops serving: {}", node, why);
        synchronized (this) {
            degraded = false;
        }
        setRoles(Role.UNDECIDED, peerRole, peerGroups);
    }

    // ------------------------------------------------------------------ transitions (control thread)

    private Role linkUp(Hello peer) {
        String mismatch = mismatch(peer);
        if (mismatch != null) {
            LOG.error("HA: pair {} is inconsistent: {}; ha.backstores must name the same stores, of the same size "
                    + "and block size, on both nodes (trying again in {} s)", pairId, mismatch,
                    INCONSISTENT_PAIR_RETRY.toSeconds());
            link.drop("inconsistent pair: " + mismatch, INCONSISTENT_PAIR_RETRY);
            return role;
        }
        Hello me;
        synchronized (this) {
            me = sentHello;
        }
        RoleDecision.Outcome outcome = RoleDecision.decide(me, peer, preferred);
        switch (outcome) {
            case RoleDecision.ThisNode t -> becomePrimary(peer, me);
            case RoleDecision.PeerNode p -> becomeSecondary(peer);
            case RoleDecision.Nobody n -> {
                LOG.error("HA: neither node of pair {} serves: {}", pairId, n.reason());
                setRoles(Role.UNDECIDED, peer.primary() ? Role.PRIMARY : Role.UNDECIDED, peer.portGroups());
            }
        }
        return role;
    }

    /** Why the peer's stores are not this node's, or null. */
    private String mismatch(Hello peer) {
        if (peer.stores().size() != stores.size()) {
            return peerNode + " replicates " + peer.stores().size() + " store(s), " + node + " " + stores.size();
        }
        for (int i = 0; i < stores.size(); i++) {
            ReplicatedBackstore s = stores.get(i);
            Hello.Store p = peer.stores().get(i);
            if (!p.name().equals(s.name()) || p.blockSize() != s.info().blockSize()
                    || p.blockCount() != s.info().blockCount()) {
                return "store " + (i + 1) + " is " + s.name() + " (" + s.info().blockCount() + " x "
                        + s.info().blockSize() + " bytes) on " + node + ", " + p.name() + " (" + p.blockCount() + " x "
                        + p.blockSize() + " bytes) on " + peerNode;
            }
        }
        return null;
    }

    private void becomePrimary(Hello peer, Hello me) {
        boolean newPair = me.generation() == 0 && peer.generation() == 0;
        try {
            synchronized (this) {
                if (newPair) {
                    for (ReplicatedBackstore s : stores) {
                        state = state.withComplete(s.name(), true); // a new pair starts from this node's contents
                    }
                    stateFile.save(state);
                }
            }
        } catch (IOException e) {
            LOG.error("HA: cannot record the state of node {} in {}: {}", node, stateFile.path(), e.getMessage());
            link.drop("the state file cannot be written");
            return;
        }
        synchronized (this) {
            inSync = false; // until the resync below has run
        }
        setRoles(Role.PRIMARY, Role.SECONDARY, peer.portGroups());
        if (witness != null) {
            // the lease at once, not at the next tick: a link lost before then would otherwise find
            // this primary without one, and it would refuse writes it may take (the first copy of
            // thin stores can be over within the tick)
            renewLease();
        }
        startResync(peer);
    }

    private void becomeSecondary(Hello peer) {
        try {
            synchronized (this) {
                for (ReplicatedBackstore s : stores) {
                    state = state.withComplete(s.name(), false); // until the primary says the copy is whole
                }
                stateFile.save(state);
                inSync = false;
                degraded = false;
            }
        } catch (IOException e) {
            LOG.error("HA: cannot record the state of node {} in {}: {}", node, stateFile.path(), e.getMessage());
            link.drop("the state file cannot be written");
            return;
        }
        setRoles(Role.SECONDARY, Role.PRIMARY, peer.portGroups());
        List<ReplicatedBackstore> changedHere = new ArrayList<>();
        for (ReplicatedBackstore s : stores) {
            if (sentHello.stores().get(s.index()).state() == Hello.DATA_CHANGED) {
                changedHere.add(s);
            }
        }
        if (!changedHere.isEmpty()) {
            Thread.ofPlatform().name("ha-changes").daemon(true).start(() -> listChanges(changedHere));
        }
    }

    /**
     * Tells the primary which regions this node changed on its own (its HELLO said
     * {@link Hello#DATA_CHANGED}): the primary copies them besides what it logged, rather than
     * everything. Stops when the link goes down; the next link starts over.
     */
    private void listChanges(List<ReplicatedBackstore> changedHere) {
        for (ReplicatedBackstore s : changedHere) {
            DirtyRegionLog log = s.log();
            long regionBlocks = log.regionSize() / s.info().blockSize();
            for (long r = log.nextDirtyRegion(0); r >= 0; r = log.nextDirtyRegion(r)) {
                int n = log.dirtyRun(r, Integer.MAX_VALUE);
                long lba = r * regionBlocks;
                if (!link.changed(s.index(), lba, Math.min(n * regionBlocks, s.info().blockCount() - lba), false)) {
                    return;
                }
                r += n;
            }
            if (!link.changed(s.index(), 0, 0, true)) {
                return;
            }
            LOG.info("HA node {}: told {} of the {} MiB of {} changed here on its own", node, peerNode,
                    log.dirtyBytes() >> 20, s.name());
        }
    }

    private void linkDown() {
        stopResync();
        setRoles(role, null, peerGroups);
    }

    private void setRoles(Role mine, Role peers, List<Integer> groups) {
        Role before = role;
        role = mine;
        peerRole = peers;
        peerGroups = groups;
        if (before != mine) {
            LOG.info("HA node {}: {} (was {})", node, mine.name().toLowerCase(), before.name().toLowerCase());
        }
        listener.changed(mine, peers, groups);
    }

    // ------------------------------------------------------------------ resync (primary)

    /**
     * What the primary copies of one store: everything; what its log holds (the peer's copy is
     * that of a generation the log counts from); or that and the regions the peer changed on its
     * own, which the peer lists (its copy is such a generation's but for those).
     */
    private enum CopyScope { EVERYTHING, LOGGED, LOGGED_AND_PEERS }

    private void startResync(Hello peer) {
        Generation theirs = new Generation(peer.generation(), peer.generationNode());
        List<CopyScope> scopes = new ArrayList<>();
        synchronized (this) {
            boolean known = theirs.equals(state.generation()) || theirs.equals(state.trackedSince());
            for (ReplicatedBackstore s : stores) {
                int theirState = peer.stores().get(s.index()).state();
                scopes.add(!known || theirState == Hello.DATA_MISSING ? CopyScope.EVERYTHING
                        : theirState == Hello.DATA_CHANGED ? CopyScope.LOGGED_AND_PEERS : CopyScope.LOGGED);
            }
        }
        PeerChanges changes = peerChanges;
        Thread t = Thread.ofPlatform().name("ha-resync").daemon(true).unstarted(() -> resync(peer, scopes, changes));
        resync = t;
        t.start();
    }

    private void stopResync() {
        Thread t = resync;
        if (t != null) {
            t.interrupt();
            try {
                t.join(TimeUnit.SECONDS.toMillis(30));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void resync(Hello peer, List<CopyScope> scopes, PeerChanges changes) {
        long start = System.nanoTime();
        long copied = 0;
        long holes = 0;
        try {
            for (ReplicatedBackstore s : stores) {
                // the units' SCSI state first (whole, as the peer may have missed any change): the
                // peer's copy is not whole before the data's COMPLETE, so it never serves without it
                if (!s.sendAllState()) {
                    return; // the link went down: the next link starts over
                }
                switch (scopes.get(s.index())) {
                    case EVERYTHING -> s.log().markAllDirty();
                    case LOGGED_AND_PEERS -> addPeersChanges(s, changes);
                    case LOGGED -> { }
                }
                Resync copy = new Resync(s, link, peer.stores().get(s.index()).unmapsToZeros(), this::resyncMoved);
                long n = copy.run();
                if (n < 0) {
                    return; // the link went down: the next link starts over
                }
                copied += n;
                holes += copy.holeBytes();
                if (!link.complete(s.index(), s.info().blockCount())) {
                    return;
                }
            }
            synchronized (this) {
                state = state.withGeneration(state.generation(), state.generation());
                stateFile.save(state);
                inSync = true;
                degraded = false;
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            lastResyncBytes = copied;
            lastResync = (copied >> 20) + " MiB copied in " + String.format("%.1f", seconds) + " s"
                    + (holes > 0 ? " (and " + (holes >> 20) + " MiB of unallocated blocks as UNMAP)" : "");
            LOG.info("HA node {}: {} in sync, {}", node, peerNode, lastResync);
        } catch (IOException e) {
            LOG.error("HA node {}: resync of {} stopped: {}", node, peerNode, e.getMessage());
            link.drop("resync failed: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            resync = null;
            resyncWork = null;
        }
    }

    /**
     * How far a resync has copied one store: the bytes of dirty regions done (copied or sent as
     * UNMAP) of those dirty when it began, since {@code startedNanos} (System.nanoTime).
     */
    public record ResyncProgress(String backstore, long doneBytes, long totalBytes, long startedNanos) {
    }

    /** The running resync's progress on its current store, or null. */
    public ResyncProgress resyncProgress() {
        return resyncWork;
    }

    private void resyncMoved(ResyncProgress p) {
        resyncWork = p;
        double seconds = Math.max(1e-3, (System.nanoTime() - p.startedNanos()) / 1e9);
        long percent = p.totalBytes() == 0 ? 100 : Math.min(100, p.doneBytes() * 100 / p.totalBytes());
        resyncProgress = "syncing " + percent + "% (" + ((p.totalBytes() - p.doneBytes()) >> 20) + " MiB left, "
                + (long) (p.doneBytes() / seconds / (1 << 20)) + " MiB/s)";
    }

    /**
     * Waits for the peer's list of what it changed on its own and marks it dirty here (durably:
     * a crash of this node before the copy keeps it); everything when the list does not come.
     */
    private void addPeersChanges(ReplicatedBackstore s, PeerChanges changes) throws InterruptedException, IOException {
        resyncProgress = "waiting for " + peerNode + "'s own changes";
        long timeout = Math.max(10_000, 10 * link.settings().heartbeatTimeout().toMillis());
        List<PeerChanges.Range> ranges = changes.await(s.index(), timeout);
        if (ranges == null) {
            LOG.warn("HA node {}: {} did not list its own changes of {} within {} ms: copying all of it", node,
                    peerNode, s.name(), timeout);
            s.log().markAllDirty();
            return;
        }
        long bs = s.info().blockSize();
        long bytes = 0;
        for (PeerChanges.Range r : ranges) {
            s.log().markDirty(r.lba() * bs, r.blocks() * bs);
            bytes += r.blocks() * bs;
        }
        s.log().flush();
        LOG.info("HA node {}: {} changed {} MiB of {} on its own: {} MiB to copy in all", node, peerNode,
                bytes >> 20, s.name(), s.log().dirtyBytes() >> 20);
    }

    // ------------------------------------------------------------------ applying the peer's changes (secondary)

    private String applyHere(CompletableFuture<Role> decision, int type, int index, long lba, long blocks, int flags,
                             ByteBuf data) {
        try {
            decision.get(30, TimeUnit.SECONDS); // the role this link decided is in place
        } catch (Exception e) {
            return "node " + node + " has not decided its role";
        }
        if (role != Role.SECONDARY) {
            return "node " + node + " is not a secondary";
        }
        if (index >= stores.size()) {
            return "no store " + index;
        }
        ReplicatedBackstore s = stores.get(index);
        if (type == LinkHeader.STATE) {
            return installState(s, data, blocks);
        }
        Backstore local = s.local();
        int bs = s.info().blockSize();
        String outside = outside(s, lba, blocks, type == LinkHeader.WRITE && blocks * bs > data.capacity());
        if (outside != null) {
            return outside;
        }
        try {
            switch (type) {
                case LinkHeader.WRITE -> local.write(lba, data.setIndex(0, (int) (blocks * bs)),
                        (flags & LinkHeader.FLAG_FUA) != 0);
                case LinkHeader.UNMAP -> unmap(local, lba, blocks, (flags & LinkHeader.FLAG_ZEROES) != 0);
                case LinkHeader.FLUSH -> {
                    local.flush(lba, blocks);
                    if ((flags & LinkHeader.FLAG_COMPLETE) != 0) {
                        copyComplete(s);
                    }
                }
                default -> {
                    return "cannot apply " + LinkHeader.typeName(type);
                }
            }
            return null;
        } catch (IOException | RuntimeException e) {
            LOG.warn("HA node {}: cannot apply {} of {} blocks at {} of {}: {}", node, LinkHeader.typeName(type), blocks,
                    lba, s.name(), e.getMessage());
            return e.getMessage() == null ? e.toString() : e.getMessage();
        }
    }

    /** The primary's state of a unit on store {@code s} ({@code length} bytes of {@code data}); why not installed, or null. */
    private String installState(ReplicatedBackstore s, ByteBuf data, long length) {
        if (length < 0 || length > data.capacity()) {
            return "a STATE message of " + length + " bytes for a slot of " + data.capacity();
        }
        try {
            s.install(data.setIndex(0, (int) length));
            return null;
        } catch (IOException | RuntimeException e) {
            LOG.warn("HA node {}: cannot install the state {} sent for {}: {}", node, peerNode, s.name(), e.getMessage());
            return e.getMessage() == null ? e.toString() : e.getMessage();
        }
    }

    /**
     * A store that cannot unmap refuses: the primary then leaves this node behind for those
     * blocks; so does one asked for zeros that does not promise them (a resync then sends data).
     */
    private static void unmap(Backstore local, long lba, long blocks, boolean zeroes) throws IOException {
        if (zeroes && !local.info().thin()) {
            throw new IOException(local.name() + " does not read deallocated blocks as zeros");
        }
        if (local.supportsUnmap()) {
            local.unmap(lba, blocks);
            return;
        }
        throw new IOException(local.name() + " cannot unmap");
    }

    private synchronized void copyComplete(ReplicatedBackstore s) throws IOException {
        // This copy is now the primary's: regions this node once changed alone (as a primary that
        // died with writes in flight, or went on degraded) are no longer missing at the peer. Left
        // dirty, they made every later HELLO say DATA_CHANGED, and every return of this node as
        // the secondary cost a full copy instead of the regions it missed.
        s.log().clearAll();
        s.log().flush();
        NodeStateFile.State next = state.withComplete(s.name(), true);
        boolean all = true;
        for (ReplicatedBackstore other : stores) {
            all &= next.isComplete(other.name());
        }
        Hello p = link.peer();
        if (all && p != null) {
            Generation g = new Generation(p.generation(), p.generationNode());
            next = next.withGeneration(g, g); // the same data as the primary's generation
            inSync = true;
        }
        stateFile.save(next);
        state = next;
        if (all) {
            LOG.info("HA node {}: copy of {} whole, generation {}", node, peerNode, state.generation());
        }
    }

    /** Says GOODBYE to the peer, gives the witness's lease up, stops the threads and closes the dirty-region logs. */
    @Override
    public void close() {
        control.shutdownNow();
        decided.complete(Role.UNDECIDED); // applies waiting for a decision that will not come refuse now
        if (link != null) {
            link.close();
        }
        if (witness != null) {
            if (role == Role.PRIMARY) {
                witness.release();
            }
            witness.close();
        }
        stopResync();
        storeIo.shutdown();
        try {
            storeIo.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (ReplicatedBackstore s : stores) {
            try {
                s.log().close();
            } catch (IOException e) {
                LOG.warn("HA: closing the dirty-region log of {}: {}", s.name(), e.getMessage());
            }
        }
    }
}
