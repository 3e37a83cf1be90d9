package org.jtarget.ha.link;

import io.netty.buffer.ByteBuf;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.EventExecutorGroup;
import org.jtarget.buffer.ScatterList;
import org.jtarget.fabric.rdma.CompletionPoller;
import org.jtarget.fabric.rdma.RegisteredMemory;
import org.jtarget.rdma.ProtectionDomain;
import org.jtarget.rdma.RdmaDevice;
import org.jtarget.rdma.RdmaException;
import org.jtarget.rdma.cm.CmEvent;
import org.jtarget.rdma.cm.CmId;
import org.jtarget.rdma.cm.CmListener;
import org.jtarget.rdma.cm.ConnectionManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The replication link of one node of an HA pair: one RDMA connection to the peer at a time, over
 * which the primary sends every change of the replicated stores ({@link #write}, {@link #unmap},
 * {@link #flush}) and waits for the secondary to have applied it, and both send heartbeats. The
 * node whose name sorts first dials ({@link LinkSettings#dials}), again every heartbeat interval
 * while there is no link; the other listens and takes only its configured peer. The link is up
 * once both HELLOs crossed.
 *
 * <p>A write waits at most the heartbeat timeout for its answer: within it the peer answers, or
 * the heartbeats miss and the link goes down, which answers every outstanding request as lost;
 * the caller then records the blocks as not replicated (degraded).
 *
 * <p>Lanes: once the first connection (lane 0) is up, the dialing node connects once more from
 * each of its other event loops ({@link LinkSettings#lanes}), and a write started on one of those
 * loops (an iSCSI connection's, over a store that never blocks) goes over that loop's lane: posted,
 * framed, sent, answered and completed on the thread that started it. Over lane 0 alone every such
 * write crossed to the link's loop and its answer back, a wake-up each way, which cost the primary
 * more than the replication itself at 4 KiB. Everything else (control messages, state, resync,
 * writes from I/O threads) keeps lane 0. Lanes change nothing in the order of changes: no two
 * overlapping changes are ever in flight together, and an answer means applied, whichever lane
 * carried it. A lane that ends ends the link (its requests were lost as the link's would be); one
 * that cannot be set up leaves the link as it is.
 */
public final class ReplicationLink implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ReplicationLink.class);

    private final LinkSettings settings;
    private final RdmaDevice device;
    private final ConnectionManager cm;
    private final ProtectionDomain pd;
    private final RegisteredMemory memory;
    private final EventExecutorGroup loops;
    private final LinkEvents events;
    private final ThreadLocal<Ticket> tickets = ThreadLocal.withInitial(Ticket::new);
    private final Object lock = new Object();
    private final java.util.Map<CmId, LinkConnection> accepted = new java.util.concurrent.ConcurrentHashMap<>();
    /** Every connection not yet released, so that {@link #close} frees each, whatever state it is in. */
    private final java.util.Set<LinkConnection> unreleased = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private CmListener listener;
    private LinkConnection pending;
    private volatile LinkConnection up;
    /** The lanes above 0 of the link now up or coming up (their {@link LinkConnection#linkId} says which). */
    private volatile LinkConnection[] lanes = new LinkConnection[0];
    private volatile boolean closed;
    /** Not before this (System.nanoTime) does the node dial again, after a {@link #drop(String, java.time.Duration)}. */
    private volatile long nextDial = System.nanoTime();
    private String lastDialFailure;

    public ReplicationLink(LinkSettings settings, RdmaDevice device, ConnectionManager cm, ProtectionDomain pd,
                           RegisteredMemory memory, EventExecutorGroup loops, LinkEvents events) {
        this.settings = settings;
        this.device = device;
        this.cm = cm;
        this.pd = pd;
        this.memory = memory;
        this.loops = loops;
        this.events = events;
    }

    /** Listens for the peer and, if this node dials, starts dialing. */
    public void start() throws RdmaException {
        listener = cm.listen(settings.listen(), this::listenerEvent);
        if (settings.dials()) {
            long interval = settings.heartbeatInterval().toNanos();
            loops.scheduleWithFixedDelay(this::dialIfDown, 0, interval, TimeUnit.NANOSECONDS);
        }
        LOG.info("HA link of node {}: listening on {}, peer {} at {}{}", settings.node(), listener.localAddress(),
                settings.peerNode(), settings.peer(), settings.dials() ? " (this node connects)" : " (the peer connects)");
    }

    /** Where the link listens (the port the system chose for port 0). */
    public java.net.SocketAddress listenAddress() {
        return listener.localAddress();
    }

    public LinkSettings settings() {
        return settings;
    }

    /** True while a link with HELLOs exchanged exists. */
    public boolean isUp() {
        LinkConnection c = up;
        return c != null && !c.isGone();
    }

    /** The peer's HELLO of the current link, or null when down. */
    public Hello peer() {
        LinkConnection c = up;
        return c == null ? null : c.peer();
    }

    /**
     * Ends the current link and, if this node dials, waits {@code holdOff} before it dials again
     * (a pair that cannot work, e.g. inconsistent stores, would otherwise meet and part every
     * heartbeat interval, logging each time).
     */
    public void drop(String reason, java.time.Duration holdOff) {
        nextDial = System.nanoTime() + holdOff.toNanos();
        drop(reason);
    }

    /** Ends the current link ({@code reason} logged at both ends as this node's). */
    public void drop(String reason) {
        LinkConnection c = up;
        if (c != null) {
            CompletionPoller.onLoop(c.loop(), () -> c.fail(reason));
        }
    }

    // ------------------------------------------------------------------ primary: requests

    /**
     * Sends {@code blocks} blocks at {@code lba} of store {@code store} (its index in the HELLO),
     * whose bytes are {@code length} bytes of {@code src}, and waits until the peer applied them.
     *
     * @return true when the peer applied every block; false when the link is down or went down
     *         (the blocks may or may not be at the peer)
     */
    public boolean write(int store, long lba, int blockSize, ScatterList src, int length, boolean fua) {
        return send(store, lba, blockSize, src, null, length, fua);
    }

    /** As {@link #write(int, long, int, ScatterList, int, boolean)}, from a buffer's readable bytes. */
    public boolean write(int store, long lba, int blockSize, ByteBuf src, boolean fua) {
        return send(store, lba, blockSize, null, src, src.readableBytes(), fua);
    }

    /**
     * Starts sending a write without blocking: true when every piece got a request slot at once
     * and was handed to the link (then {@code ticket}, {@link Ticket#reset reset} by the caller,
     * hears the answers, never from inside this call); false when the link is down or the window
     * has not enough free slots (nothing was sent).
     */
    public boolean tryWrite(int store, long lba, int blockSize, ScatterList src, int length, boolean fua, Ticket ticket) {
        LinkConnection c = laneHere(up);
        int piece = pieceBytes(blockSize);
        int pieces = Math.ceilDiv(length, piece);
        if (c == null || c.isGone()) {
            return false;
        }
        LinkConnection.Outbound[] taken = c.taken;
        if (pieces > taken.length) {
            return false;
        }
        synchronized (taken) { // the event loops of several sessions may start writes on one lane at once
            for (int i = 0; i < pieces; i++) {
                taken[i] = c.tryTake();
                if (taken[i] == null) {
                    for (int j = 0; j < i; j++) {
                        c.giveBack(taken[j]);
                    }
                    return false;
                }
            }
            ticket.add(); // held until every piece is submitted: no answer can end the ticket early
            for (int i = 0, offset = 0; i < pieces; i++, offset += piece) {
                LinkConnection.Outbound o = taken[i];
                taken[i] = null;
                submitPiece(c, o, store, lba, blockSize, src, null, offset, Math.min(piece, length - offset), fua, ticket);
            }
        }
        ticket.done(true); // the hold above
        return true;
    }

    /** Unmaps blocks at the peer; as {@link #write}. */
    public boolean unmap(int store, long lba, long blocks) {
        return control(LinkHeader.UNMAP, 0, store, lba, blocks);
    }

    /**
     * Unmaps blocks at the peer that must read as zeros afterwards ({@link LinkHeader#FLAG_ZEROES}:
     * a resync sending a hole); false also when the peer's store cannot promise zeros.
     */
    public boolean unmapToZeros(int store, long lba, long blocks) {
        return control(LinkHeader.UNMAP, LinkHeader.FLAG_ZEROES, store, lba, blocks);
    }

    /** Makes blocks durable at the peer; as {@link #write}. */
    public boolean flush(int store, long lba, long blocks) {
        return control(LinkHeader.FLUSH, 0, store, lba, blocks);
    }

    /**
     * Tells the peer that the resync of the store's {@code blocks} blocks is over: it flushes them
     * and records its copy as whole before it answers; as {@link #write}.
     */
    public boolean complete(int store, long blocks) {
        return control(LinkHeader.FLUSH, LinkHeader.FLAG_COMPLETE, store, 0, blocks);
    }

    /**
     * Tells the primary that this node changed {@code blocks} blocks at {@code lba} of the store on
     * its own ({@link LinkHeader#CHANGED}); {@code last} ends the store's list. As {@link #write}.
     */
    public boolean changed(int store, long lba, long blocks, boolean last) {
        return control(LinkHeader.CHANGED, last ? LinkHeader.FLAG_COMPLETE : 0, store, lba, blocks);
    }

    /**
     * Sends the readable bytes of {@code message}, a {@link LinkHeader#STATE} of store
     * {@code store}, through one staging slot, and waits until the peer installed it; as
     * {@link #write}. False too when the message is larger than a slot (nothing is sent).
     */
    public boolean state(int store, ByteBuf message) {
        LinkConnection c = up;
        int length = message.readableBytes();
        if (c == null || c.isGone() || length > settings.slotSize()) {
            return false;
        }
        Ticket ticket = ticket();
        LinkConnection.Outbound o = take(c);
        if (o != null) {
            stage(o, null, message, 0, length);
            fill(o, LinkHeader.STATE, 0, store, 0, length, length);
            o.ticket = ticket;
            c.submit(o);
        }
        return finish(ticket, o != null);
    }

    private boolean send(int store, long lba, int blockSize, ScatterList list, ByteBuf buf, int length, boolean fua) {
        LinkConnection c = laneHere(up);
        if (c == null || c.isGone()) {
            return false;
        }
        Ticket ticket = ticket();
        int piece = pieceBytes(blockSize);
        boolean allSent = true;
        for (int offset = 0; offset < length; offset += piece) {
            LinkConnection.Outbound o = take(c);
            if (o == null) {
                allSent = false;
                break;
            }
            submitPiece(c, o, store, lba, blockSize, list, buf, offset, Math.min(piece, length - offset), fua, ticket);
        }
        return finish(ticket, allSent);
    }

    /**
     * Copies the {@code n} bytes at {@code offset} of a write ({@code list}, else {@code buf}'s
     * readable bytes) into the request's staging slot. The slot is made whole first: a shorter
     * piece sent from it before left its limit at that piece's length, and the scatter list's copy
     * writes at absolute indexes within the limit (it failed with IndexOutOfBoundsException).
     */
    private static void stage(LinkConnection.Outbound o, ScatterList list, ByteBuf buf, int offset, int n) {
        o.staging.clear();
        if (list != null) {
            list.copyTo(offset, o.staging, 0, n);
        } else {
            buf.getBytes(buf.readerIndex() + offset, o.staging.limit(n));
        }
    }

    /** The bytes of one piece of a write: the most whole blocks a staging slot holds. */
    private int pieceBytes(int blockSize) {
        return settings.slotSize() - settings.slotSize() % blockSize;
    }

    /**
     * One piece of a write, {@code n} bytes from {@code offset} of the write's data (a scatter list,
     * or else a buffer's readable bytes): copied into request {@code o}'s staging, its header
     * filled, handed to the connection's loop; {@code ticket} hears its answer.
     */
    private static void submitPiece(LinkConnection c, LinkConnection.Outbound o, int store, long lba, int blockSize,
                                    ScatterList list, ByteBuf buf, int offset, int n, boolean fua, Ticket ticket) {
        stage(o, list, buf, offset, n);
        fill(o, LinkHeader.WRITE, fua ? LinkHeader.FLAG_FUA : 0, store, lba + offset / blockSize, n / blockSize, n);
        o.ticket = ticket;
        c.submit(o);
    }

    private boolean control(int type, int flags, int store, long lba, long blocks) {
        LinkConnection c = up;
        if (c == null || c.isGone()) {
            return false;
        }
        Ticket ticket = ticket();
        LinkConnection.Outbound o = take(c);
        if (o != null) {
            fill(o, type, flags, store, lba, blocks, 0);
            o.ticket = ticket;
            c.submit(o);
        }
        return finish(ticket, o != null);
    }

    private Ticket ticket() {
        Ticket t = tickets.get();
        t.reset();
        return t;
    }

    private static void fill(LinkConnection.Outbound o, int type, int flags, int store, long lba, long blocks, int dataLength) {
        o.type = type;
        o.flags = flags;
        o.store = store;
        o.lba = lba;
        o.blocks = blocks;
        o.dataLength = dataLength;
    }

    /** A free request of {@code c}: waits while all are out (the window), at most the heartbeat timeout. */
    private LinkConnection.Outbound take(LinkConnection c) {
        try {
            LinkConnection.Outbound o = c.take(settings.heartbeatTimeout().toNanos());
            if (o == null && !c.isGone()) {
                drop("no request slot came free within " + settings.heartbeatTimeout().toMillis() + " ms");
            }
            return o;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** Waits for the answers; true when every piece was sent ({@code allSent}) and applied. */
    private boolean finish(Ticket ticket, boolean allSent) {
        boolean applied = ticket.await(settings.heartbeatTimeout().toNanos(),
                () -> drop("no answer from " + settings.peerNode() + " within " + settings.heartbeatTimeout().toMillis() + " ms"));
        return applied && allSent;
    }

    /**
     * The lane of the calling thread's event loop, when it is one of {@code main}'s link and up;
     * else {@code main} (null when the link is down).
     */
    private LinkConnection laneHere(LinkConnection main) {
        if (main != null) {
            for (LinkConnection l : lanes) {
                if (l.linkId() == main.linkId() && l.loop().inEventLoop() && !l.isGone()) {
                    return l;
                }
            }
        }
        return main;
    }

    // ------------------------------------------------------------------ connections

    private void dialIfDown() {
        synchronized (lock) {
            if (closed || up != null || pending != null || System.nanoTime() - nextDial < 0) {
                return;
            }
        }
        EventExecutor loop = loops.next();
        LinkConnection c;
        try {
            c = LinkConnection.create(settings, device, pd, memory, loop, 0, newLinkId(), this);
        } catch (RdmaException e) {
            dialFailed("cannot set the link up: " + e.getMessage());
            return;
        }
        boolean stopping;
        synchronized (lock) {
            stopping = closed;
            if (!stopping) {
                pending = c;
            }
        }
        if (stopping) { // closed while this connection was made: close() did not see it
            CompletionPoller.onLoop(c.loop(), () -> abandon(c));
            return;
        }
        Thread.ofVirtual().name("ha-dial").start(() -> dial(c));
    }

    /** A number for a new link that its lanes carry: nonzero and unlikely to be an earlier link's. */
    private static long newLinkId() {
        long id = java.util.concurrent.ThreadLocalRandom.current().nextLong();
        return id == 0 ? 1 : id;
    }

    private void dial(LinkConnection c) {
        try {
            // the socket on the connection's own loop, as an accepted one is: each message is then
            // framed, sent, received and completed on one thread, with no hand-off in between
            cm.connect(settings.peer(), c.queuePair(),
                    LinkHandshake.request(settings.node(), settings.peerNode(), c.lane(), c.linkId()),
                    e -> CompletionPoller.onLoop(c.loop(), () -> dialerEvent(c, e)), c.loop());
        } catch (RdmaException | RuntimeException e) {
            CompletionPoller.onLoop(c.loop(), () -> {
                dialFailed(e.getMessage());
                abandon(c);
            });
        }
    }

    private void dialerEvent(LinkConnection c, CmEvent e) {
        switch (e.type()) {
            case ESTABLISHED -> {
                if (c.lane() == 0) {
                    lastDialFailure = null;
                }
                c.established(e.id(), withStaging(c));
            }
            case REJECTED -> {
                notConnected(c, "refused: " + LinkHandshake.describeReject(e.privateData()));
                abandon(c);
            }
            case UNREACHABLE -> {
                notConnected(c, "unreachable");
                abandon(c);
            }
            case DISCONNECTED -> c.disconnected();
            default -> {
            }
        }
    }

    private void notConnected(LinkConnection c, String why) {
        if (c.lane() == 0) {
            dialFailed(why);
        } else {
            laneNotSetUp(c.lane(), why);
        }
    }

    private void laneNotSetUp(int lane, String why) {
        LOG.info("HA link to {}: lane {} not set up ({}); its writes take lane 0", settings.peerNode(), lane, why);
    }

    private void dialFailed(String why) {
        if (!why.equals(lastDialFailure)) {
            LOG.info("HA link to {} at {}: {} (trying again every {} ms)", settings.peerNode(), settings.peer(), why,
                    settings.heartbeatInterval().toMillis());
            lastDialFailure = why;
        }
    }

    private void abandon(LinkConnection c) {
        c.fail("not connected");
        c.disconnected();
    }

    /** The listener's events: connect requests, and the DISCONNECTED of the connections it accepted. */
    private void listenerEvent(CmEvent e) {
        switch (e.type()) {
            case CONNECT_REQUEST -> connectRequest(e.id(), e.privateData());
            case DISCONNECTED -> {
                LinkConnection c = accepted.remove(e.id());
                if (c != null) {
                    CompletionPoller.onLoop(c.loop(), c::disconnected);
                }
            }
            default -> {
                // ESTABLISHED follows our accept: the connection started before it
            }
        }
    }

    private void connectRequest(CmId id, byte[] data) {
        LinkHandshake.Request r = LinkHandshake.decodeRequest(data);
        String refusal = r == null ? "not a jtarget replication request"
                : !r.from().equals(settings.peerNode()) || !r.to().equals(settings.node())
                ? "this is node '" + settings.node() + "', paired with '" + settings.peerNode() + "', not a link from '"
                + r.from() + "' to '" + r.to() + "'"
                : closed ? "node '" + settings.node() + "' is stopping" : null;
        if (refusal == null && r.lane() > 0 && (r.lane() >= LinkSettings.MAX_LANES || !isCurrentLink(r.link()))) {
            refusal = "lane " + r.lane() + " of a link that is not up (any more)";
        }
        if (refusal != null) {
            LOG.warn("HA link: connection from {} refused: {}", id.remoteAddress(), refusal);
            id.reject(LinkHandshake.reject(refusal));
            return;
        }
        EventExecutor loop = id.ioExecutor() instanceof EventExecutor io ? io : loops.next();
        LinkConnection c;
        try {
            c = LinkConnection.create(settings, device, pd, memory, loop, r.lane(), r.link(), this);
        } catch (RdmaException ex) {
            LOG.warn("HA link: connection from {} (lane {}) refused: {}", id.remoteAddress(), r.lane(), ex.getMessage());
            id.reject(LinkHandshake.reject("no resources: " + ex.getMessage()));
            return;
        }
        if (r.lane() == 0) { // a new link: the peer restarted, or dials again after a failure
            replaceCurrent("the peer connected again");
            synchronized (lock) {
                pending = c;
            }
        }
        try {
            id.accept(c.queuePair(), LinkHandshake.accept());
            CompletionPoller.onLoop(loop, () -> c.established(id, withStaging(c)));
        } catch (RdmaException ex) {
            LOG.warn("HA link: accepting {} (lane {}) failed: {}", id.remoteAddress(), r.lane(), ex.getMessage());
            CompletionPoller.onLoop(loop, () -> abandon(c));
        }
        accepted.put(id, c);
    }

    /** Whether {@code linkId} numbers the link up now, or coming up (its lane 0 accepted, HELLO not yet). */
    private boolean isCurrentLink(long linkId) {
        synchronized (lock) {
            LinkConnection main = up != null ? up : pending;
            return !closed && main != null && !main.isGone() && main.linkId() == linkId;
        }
    }

    /**
     * The dialer, once lane 0 is up: one more connection from each other event loop, up to
     * {@link LinkSettings#lanes} in all, each on its own loop.
     */
    private void dialLanes(LinkConnection main) {
        int lane = 1;
        for (EventExecutor loop : loops) {
            if (lane >= settings.lanes()) {
                return;
            }
            if (loop == main.loop()) {
                continue;
            }
            LinkConnection c;
            try {
                c = LinkConnection.create(settings, device, pd, memory, loop, lane, main.linkId(), this);
            } catch (RdmaException e) {
                laneNotSetUp(lane, e.getMessage());
                return;
            }
            Thread.ofVirtual().name("ha-dial").start(() -> dial(c));
            lane++;
        }
    }

    /** A lane whose HELLO came: it carries writes from now on, if its link is still the current one. */
    private void laneUp(LinkConnection c) {
        boolean joined;
        synchronized (lock) { // the lock is re-entrant: the check and the join are one step
            joined = isCurrentLink(c.linkId());
            if (joined) {
                LinkConnection[] more = java.util.Arrays.copyOf(lanes, lanes.length + 1);
                more[lanes.length] = c;
                lanes = more;
            }
        }
        if (!joined) {
            c.fail("lane " + c.lane() + " of a link that ended");
        } else {
            LOG.debug("HA link to {}: lane {} up", settings.peerNode(), c.lane());
        }
    }

    /** A lane ended: if it was carrying writes, the link ends with it (as when any of its requests is lost). */
    private void laneEnded(LinkConnection c, String reason) {
        boolean joined;
        synchronized (lock) {
            joined = java.util.Arrays.asList(lanes).contains(c);
            if (joined) {
                lanes = java.util.Arrays.stream(lanes).filter(l -> l != c).toArray(LinkConnection[]::new);
            }
        }
        LinkConnection main = up;
        if (joined && main != null && main.linkId() == c.linkId()) {
            CompletionPoller.onLoop(main.loop(), () -> main.fail("lane " + c.lane() + " ended: " + reason));
        }
    }

    /** Lane 0 of link {@code linkId} ended: its other lanes end too. */
    private void endLanes(long linkId, String reason) {
        List<LinkConnection> ending = new ArrayList<>();
        synchronized (lock) {
            for (LinkConnection l : lanes) {
                if (l.linkId() == linkId) {
                    ending.add(l);
                }
            }
            lanes = java.util.Arrays.stream(lanes).filter(l -> l.linkId() != linkId).toArray(LinkConnection[]::new);
        }
        for (LinkConnection l : ending) {
            CompletionPoller.onLoop(l.loop(), () -> l.fail(reason));
        }
    }

    /** A peer that connects while an old link is still up has restarted: the old link is dead. */
    private void replaceCurrent(String why) {
        LinkConnection old = up;
        if (old != null) {
            CompletionPoller.onLoop(old.loop(), () -> old.fail(why));
        }
    }

    /**
     * The HELLO connection {@code c} says: lane 0's is the node's ({@link LinkEvents#hello}, which
     * the node keeps as what it told the peer); another lane's names the node and its staging
     * only, so that setting a lane up never changes what the node believes it said.
     */
    private Hello withStaging(LinkConnection c) {
        if (c.lane() > 0) {
            return new Hello(settings.node(), false, 0, "", c.stagingRkey(), c.stagingBase(), settings.slotSize(),
                    settings.slotCount(), List.of(), List.of());
        }
        Hello h = events.hello();
        return new Hello(h.node(), h.primary(), h.generation(), h.generationNode(), c.stagingRkey(), c.stagingBase(),
                settings.slotSize(), settings.slotCount(), h.portGroups(), h.stores());
    }

    // ------------------------------------------------------------------ from the connections (their loop)

    void helloReceived(LinkConnection c, Hello peer) {
        if (c.lane() > 0) {
            laneUp(c);
            return;
        }
        synchronized (lock) {
            if (pending == c) {
                pending = null;
            }
            up = c;
        }
        LOG.info("HA link to {} up (it {}, generation {}{})", settings.peerNode(),
                peer.primary() ? "is primary" : "serves nothing yet", peer.generation(),
                peer.generationNode().isEmpty() ? "" : "@" + peer.generationNode());
        events.up(peer);
        if (settings.dials() && settings.lanes() > 1) {
            dialLanes(c);
        }
    }

    void created(LinkConnection c) {
        unreleased.add(c);
    }

    void released(LinkConnection c) {
        unreleased.remove(c);
    }

    void connectionEnded(LinkConnection c, String reason) {
        if (c.lane() > 0) {
            laneEnded(c, reason);
            return;
        }
        endLanes(c.linkId(), "lane 0 ended: " + reason);
        boolean wasUp;
        synchronized (lock) {
            wasUp = up == c;
            if (wasUp) {
                up = null;
            }
            if (pending == c) {
                pending = null;
            }
        }
        if (wasUp) {
            LOG.warn("HA link to {} down: {}", settings.peerNode(), reason);
            events.down(reason);
        }
    }

    void apply(int type, int store, long lba, long blocks, int flags, ByteBuf data, Acknowledgement ack) {
        events.apply(type, store, lba, blocks, flags, data, ack);
    }

    /** Lane 0's ACK messages received and the requests they answered (tests: coalescing). */
    long[] ackCounts() throws Exception {
        return ackCounts(0);
    }

    /** Lanes above 0 carrying writes for the current link (tests). */
    int lanesUp() {
        LinkConnection main = up;
        return main == null ? 0 : (int) java.util.Arrays.stream(lanes).filter(l -> l.linkId() == main.linkId() && !l.isGone()).count();
    }

    /** Lane {@code lane}'s ACK messages received and the requests they answered (tests). */
    long[] ackCounts(int lane) throws Exception {
        LinkConnection c = lane == 0 ? up : java.util.Arrays.stream(lanes).filter(l -> l.lane() == lane).findFirst().orElseThrow();
        java.util.concurrent.CompletableFuture<long[]> counts = new java.util.concurrent.CompletableFuture<>();
        CompletionPoller.onLoop(c.loop(), () -> counts.complete(c.ackCounts()));
        return counts.get(5, TimeUnit.SECONDS);
    }

    /** Ends lane {@code lane} (above 0) as a transport failure would (tests). */
    void failLane(int lane, String reason) {
        for (LinkConnection l : lanes) {
            if (l.lane() == lane) {
                CompletionPoller.onLoop(l.loop(), () -> l.fail(reason));
            }
        }
    }

    void handoverReceived() {
        LOG.info("HA link: {} hands the pair over to this node", settings.peerNode());
        events.handover();
    }

    /**
     * Tells the peer it serves from now on (a planned switchover); the caller has stopped taking
     * changes and every change it acknowledged was applied at the peer. False when the link is down.
     */
    public boolean handover() {
        LinkConnection c = up;
        if (c == null) {
            return false;
        }
        java.util.concurrent.CompletableFuture<Boolean> sent = new java.util.concurrent.CompletableFuture<>();
        CompletionPoller.onLoop(c.loop(), () -> sent.complete(c.handover()));
        try {
            return sent.get(settings.heartbeatTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            return false;
        }
    }

    void refused(String what, int store, long lba, long blocks, String why) {
        events.refused(what, store, lba, blocks, why);
    }

    /**
     * Says GOODBYE (so that the peer takes the end for a stop, not a failure), ends every
     * connection and frees its memory, and stops listening and dialing. Waits for the connections'
     * loops, at most about a second.
     */
    @Override
    public void close() {
        List<LinkConnection> all = new ArrayList<>();
        synchronized (lock) {
            closed = true;
            if (up != null) {
                all.add(up);
            }
            if (pending != null && pending != up) {
                all.add(pending);
            }
        }
        for (LinkConnection c : accepted.values()) {
            if (!all.contains(c)) {
                all.add(c);
            }
        }
        for (LinkConnection c : unreleased) {
            if (!all.contains(c)) {
                all.add(c); // ended already, its release not yet due
            }
        }
        if (listener != null) {
            listener.close();
        }
        onEachLoop(all, LinkConnection::goodbye);
        sleep(100); // lets the GOODBYE leave before the disconnect
        onEachLoop(all, c -> {
            c.fail("this node stopped");
            c.disconnected();
        });
    }

    private static void onEachLoop(List<LinkConnection> connections, java.util.function.Consumer<LinkConnection> task) {
        for (LinkConnection c : connections) {
            java.util.concurrent.CompletableFuture<Void> done = new java.util.concurrent.CompletableFuture<>();
            CompletionPoller.onLoop(c.loop(), () -> {
                try {
                    task.accept(c);
                } finally {
                    done.complete(null);
                }
            });
            try {
                done.get(1, TimeUnit.SECONDS);
            } catch (Exception e) {
                LOG.debug("HA link: a connection's loop did not answer at close: {}", e.toString());
            }
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
