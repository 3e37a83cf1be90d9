package org.jtarget.ha.link;

import io.netty.buffer.ByteBuf;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import org.jtarget.fabric.rdma.BufferSlots;
import org.jtarget.fabric.rdma.CompletionPoller;
import org.jtarget.fabric.rdma.ConnectionQueues;
import org.jtarget.fabric.rdma.Decoded;
import org.jtarget.fabric.rdma.RegisteredMemory;
import org.jtarget.rdma.AccessFlag;
import org.jtarget.rdma.Errno;
import org.jtarget.rdma.MemoryRegion;
import org.jtarget.rdma.ProtectionDomain;
import org.jtarget.rdma.QueuePair;
import org.jtarget.rdma.RdmaDevice;
import org.jtarget.rdma.RdmaException;
import org.jtarget.rdma.WorkCompletion;
import org.jtarget.rdma.WorkCompletionStatus;
import org.jtarget.rdma.WorkRequest;
import org.jtarget.rdma.WorkRequestOpcode;
import org.jtarget.rdma.cm.CmId;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One RDMA connection of the replication link, from its queue pair to its end. Everything it
 * owns is touched on its event loop only, except what the I/O threads of the primary take and
 * give through the two queues of {@link Outbound} requests, and what store threads of the
 * receiving side answer through {@link Inbound#done}.
 *
 * <p>Memory, carved once from the registered arena: the receive ring; the inbound staging slots
 * (a region of their own, registered for REMOTE_WRITE: the peer places write data there); the
 * outbound staging slots (what this node's writes are copied into before the RDMA WRITE); a
 * header buffer per outbound request and per inbound answer; one for HELLO, one for heartbeats.
 * Slot {@code i} of the peer is used only by this node's request {@code i}, which is free again
 * only when its ACK came, so a slot never holds two writes.
 */
final class LinkConnection {

    /** Room for the largest HELLO (about 80 bytes per store). */
    static final int RECEIVE_SIZE = 4096;
    private static final int HEADER_BUFFER = 64;
    /** Room for a failure's reason after the header (an ACK that answers many needs {@link #ackBufferBytes}). */
    private static final int ACK_BUFFER = 256;

    private static final long RECEIVE = 1L << 40;
    private static final long REQUEST_DATA = 2L << 40;
    private static final long REQUEST = 3L << 40;
    private static final long ACK = 4L << 40;
    private static final long HELLO = 5L << 40;
    private static final long HEARTBEAT = 6L << 40;
    private static final long KIND_MASK = 0xffL << 40;

    /** A request of this node to the peer, in slot {@link #index}. */
    static final class Outbound {
        final int index;
        final ByteBuffer staging;
        int type;
        int flags;
        int store;
        long lba;
        long blocks;
        int dataLength;
        long sequence;
        Ticket ticket;

        Outbound(int index, ByteBuffer staging) {
            this.index = index;
            this.staging = staging;
        }
    }

    /** The answer to the peer's request in slot {@link #index}; {@link #done} from any thread. */
    final class Inbound implements Acknowledgement, Runnable {
        final int index;
        /** The slot's bytes (a WRITE's data), made once: no allocation per request. */
        ByteBuf data;
        long sequence;
        boolean busy;
        volatile boolean ok;
        volatile String why;

        Inbound(int index) {
            this.index = index;
        }

        @Override
        public void done(boolean applied, String reason) {
            ok = applied;
            why = reason;
            if (loop.inEventLoop()) {
                run(); // applied on the loop itself (a store that never blocks): no task, no wake-up
            } else {
                CompletionPoller.onLoop(loop, this);
            }
        }

        @Override
        public void run() {
            busy = false;
            applying.decrementAndGet();
            if (gone) {
                releaseIfIdle();
                return;
            }
            if (ok) {
                queueAck(index);
            } else {
                sendAck(this); // alone, with its reason
            }
        }
    }

    private final LinkSettings settings;
    private final EventExecutor loop;
    /** Which lane of the link this is (0: the first, which carries everything else) and the link's number. */
    private final int lane;
    private final long linkId;
    /** The requests of one write, taken before any is sent ({@link ReplicationLink#tryWrite}); guarded by itself. */
    final Outbound[] taken = new Outbound[8];
    private final RegisteredMemory memory;
    private final ProtectionDomain pd;
    private final ReplicationLink link;
    private final QueuePair qp;
    private final CompletionPoller poller;
    private final org.jtarget.rdma.CompletionQueue cq;
    private final WorkRequest wr = new WorkRequest(1);
    private final BufferSlots receives;
    private final ByteBuf[] requestHeaders;
    private final ByteBuf[] ackHeaders;
    private ByteBuf helloBuffer;
    private ByteBuf heartbeatBuffer;
    private ByteBuf inboundStaging;
    private MemoryRegion inboundRegion;
    private ByteBuf outboundStaging;
    private final Outbound[] outbound;
    private final Inbound[] inbound;
    /** Requests free to take (I/O threads) and taken ones ready to post (the loop). */
    private final ArrayBlockingQueue<Outbound> free;
    private final ArrayBlockingQueue<Outbound> submitted;
    private final AtomicBoolean drainScheduled = new AtomicBoolean();
    private final Runnable drainTask = this::drain;
    private final AtomicInteger applying = new AtomicInteger();
    /**
     * Slots whose requests were applied and whose ACK has not left yet (loop): one ACK message
     * answers them all at the end of the loop's pass ({@link #sendAcks}), instead of one message
     * each: at queue depth 32 the peer's writes arrive in bursts, and every message costs a send
     * request, its completion, and a receive and its completion at the peer.
     */
    private final int[] acksDue;
    private int acksDueCount;
    private boolean acksScheduled;
    private final Runnable sendAcksTask = this::sendAcks;
    /** ACK messages received, and the requests they answered (tests: ACKs are coalesced). */
    private long ackMessages;
    private long acksReceived;
    private CmId id;
    private Hello peer;
    private long nextSequence = 1;
    private long lastReceived;
    private long lastSent;
    private boolean heartbeatInFlight;
    private ScheduledFuture<?> heartbeats;
    private volatile boolean gone;
    private boolean released;
    private String endReason;

    private LinkConnection(LinkSettings settings, EventExecutor loop, int lane, long linkId, RegisteredMemory memory,
                           ProtectionDomain pd, ReplicationLink link, ConnectionQueues queues, CompletionPoller poller) {
        this.settings = settings;
        this.loop = loop;
        this.lane = lane;
        this.linkId = linkId;
        this.memory = memory;
        this.pd = pd;
        this.link = link;
        this.qp = queues.qp();
        this.cq = queues.cq();
        this.poller = poller;
        int slots = settings.slotCount();
        this.receives = new BufferSlots(2 * slots + 8);
        this.requestHeaders = new ByteBuf[slots];
        this.ackHeaders = new ByteBuf[slots];
        this.outbound = new Outbound[slots];
        this.inbound = new Inbound[slots];
        this.acksDue = new int[slots];
        this.free = new ArrayBlockingQueue<>(slots);
        this.submitted = new ArrayBlockingQueue<>(slots);
    }

    /**
     * A connection's queues and memory, its receives posted (before the connect or accept: iWARP
     * has no receiver-not-ready retry).
     *
     * @throws RdmaException when the device refuses the queues, or the arena is too small (then
     *                       with a message naming what was missing)
     */
    static LinkConnection create(LinkSettings settings, RdmaDevice device, ProtectionDomain pd, RegisteredMemory memory,
                                 EventExecutor loop, int lane, long linkId, ReplicationLink link) throws RdmaException {
        int slots = settings.slotCount();
        CompletionPoller poller = new CompletionPoller(loop);
        ConnectionQueues queues = ConnectionQueues.create(device, pd, poller, 3 * slots + 8, 2 * slots + 8);
        LinkConnection c = new LinkConnection(settings, loop, lane, linkId, memory, pd, link, queues, poller);
        link.created(c);
        String shortage = c.carve();
        if (shortage == null) {
            shortage = c.postReceives();
        }
        if (shortage != null) {
            c.release();
            throw new RdmaException(Errno.ENOMEM, shortage);
        }
        return c;
    }

    private String carve() throws RdmaException {
        String shortage = receives.carve(memory, RECEIVE_SIZE, "replication receives");
        if (shortage != null) {
            return shortage;
        }
        int slots = settings.slotCount();
        int staging = slots * settings.slotSize();
        inboundStaging = memory.buffer(staging);
        outboundStaging = memory.buffer(staging);
        helloBuffer = memory.buffer(RECEIVE_SIZE);
        heartbeatBuffer = memory.buffer(HEADER_BUFFER);
        if (inboundStaging == null || outboundStaging == null || helloBuffer == null || heartbeatBuffer == null) {
            return "no registered memory for " + (2 * staging >> 20) + " MiB of replication staging"
                    + " (raise daemon.buffer-pool.pinned-size)";
        }
        inboundRegion = pd.registerMemoryRegion(
                MemorySegment.ofAddress(inboundStaging.memoryAddress()).reinterpret(staging),
                EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE));
        for (int i = 0; i < slots; i++) {
            requestHeaders[i] = memory.buffer(HEADER_BUFFER);
            ackHeaders[i] = memory.buffer(ackBufferBytes(slots));
            if (requestHeaders[i] == null || ackHeaders[i] == null) {
                return "no registered memory for the replication headers";
            }
            outbound[i] = new Outbound(i, outboundStaging.nioBuffer(i * settings.slotSize(), settings.slotSize()));
            inbound[i] = new Inbound(i);
            inbound[i].data = inboundStaging.slice(i * settings.slotSize(), settings.slotSize());
            free.add(outbound[i]);
        }
        return null;
    }

    private String postReceives() {
        for (int i = 0; i < receives.count(); i++) {
            int rc = memory.postReceive(qp, wr, RECEIVE | i, receives.get(i));
            if (rc != Errno.OK) {
                return "replication receive refused (errno " + rc + ")";
            }
        }
        return null;
    }

    QueuePair queuePair() {
        return qp;
    }

    EventExecutor loop() {
        return loop;
    }

    int lane() {
        return lane;
    }

    long linkId() {
        return linkId;
    }

    Hello peer() {
        return peer;
    }

    boolean isGone() {
        return gone;
    }

    /** The connection is up ({@code id} is its end): polls completions, says HELLO, starts heartbeats. Loop. */
    void established(CmId id, Hello hello) {
        this.id = id;
        lastReceived = System.nanoTime();
        poller.attach(cq, this::completed, () -> gone, () -> fail("completion queue overflow"));
        sendHello(hello);
        long interval = settings.heartbeatInterval().toNanos();
        heartbeats = loop.scheduleAtFixedRate(this::heartbeat, interval, interval, TimeUnit.NANOSECONDS);
    }

    /** The staging slots the peer may write into, for this node's HELLO. */
    int stagingRkey() {
        return inboundRegion.rkey();
    }

    long stagingBase() {
        return inboundStaging.memoryAddress();
    }

    // ------------------------------------------------------------------ requests (I/O threads)

    /** A free request, waiting at most {@code timeoutNanos} for one; null when none came or the connection ended. */
    Outbound take(long timeoutNanos) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutNanos;
        while (!gone) {
            Outbound o = free.poll(Math.min(100_000_000L, Math.max(0, deadline - System.nanoTime())), TimeUnit.NANOSECONDS);
            if (o != null) {
                return o;
            }
            if (System.nanoTime() >= deadline) {
                return null;
            }
        }
        return null;
    }

    /** A free request now, or null (the window is full, or the connection ended). */
    Outbound tryTake() {
        return gone ? null : free.poll();
    }

    /** Hands a filled request to the loop, which posts it; its ticket hears the outcome. */
    void submit(Outbound o) {
        o.ticket.add();
        submitted.add(o); // never full: it holds at most the requests taken from free
        if (drainScheduled.compareAndSet(false, true)) {
            CompletionPoller.onLoop(loop, drainTask);
        }
    }

    /** Gives back a request taken but not submitted. */
    void giveBack(Outbound o) {
        free.add(o);
    }

    private void drain() {
        drainScheduled.set(false);
        for (Outbound o = submitted.poll(); o != null; o = submitted.poll()) {
            if (gone || !post(o)) {
                lost(o);
            }
        }
    }

    private boolean post(Outbound o) {
        Hello p = peer;
        o.sequence = nextSequence++;
        int slotSize = settings.slotSize();
        if (o.dataLength > 0) {
            wr.reset();
            wr.wrId = REQUEST_DATA | o.index;
            wr.opcode = WorkRequestOpcode.RDMA_WRITE;
            wr.sendFlags = 0; // its SEND's completion says the same
            wr.remoteAddress = p.stagingBase() + (long) o.index * slotSize;
            wr.rkey = p.stagingRkey();
            wr.addSge(memory.address(outboundStaging, o.index * slotSize), o.dataLength, memory.lkey());
            if (!posted(qp.postSend(wr), "replication RDMA WRITE")) {
                return false;
            }
        }
        ByteBuf h = requestHeaders[o.index].clear();
        LinkHeader.write(h, o.type, o.flags, o.store, o.index, 0, o.sequence, o.lba, o.blocks);
        return postSend(REQUEST | o.index, h, "replication " + LinkHeader.typeName(o.type), false);
    }

    private void lost(Outbound o) {
        Ticket t = o.ticket;
        o.ticket = null;
        free.add(o);
        try {
            t.done(false);
        } catch (RuntimeException e) {
            // a write's completion that failed (its event loop stopped) must not keep the others unanswered
            org.slf4j.LoggerFactory.getLogger(LinkConnection.class).debug("HA link: a lost request's completion failed", e);
        }
    }

    // ------------------------------------------------------------------ completions (loop)

    private void completed(WorkCompletion wc) {
        long kind = wc.wrId & KIND_MASK;
        int index = (int) (wc.wrId & 0xffffffffL);
        if (wc.status == WorkCompletionStatus.WR_FLUSH_ERR) {
            // the queue pair went to ERROR (the peer's end closed or the transport failed): the
            // flushed requests are a consequence, the closed connection is the news
            fail("the connection closed (transport error or the peer's end went away)");
            return;
        }
        if (wc.status != WorkCompletionStatus.SUCCESS) {
            fail((kind == RECEIVE ? "receive" : "send") + " completed " + wc.status);
            return;
        }
        if (kind == RECEIVE) {
            received(index, wc.byteLen);
        } else if (kind == HEARTBEAT) {
            heartbeatInFlight = false;
        }
    }

    private void received(int index, int length) {
        lastReceived = System.nanoTime();
        ByteBuf b = receives.get(index);
        b.setIndex(0, length);
        if (length < LinkHeader.LENGTH) {
            fail("a message of " + length + " bytes, shorter than a header");
            return;
        }
        String bad = dispatch(b);
        if (bad != null) {
            fail(bad);
            return;
        }
        int rc = memory.postReceive(qp, wr, RECEIVE | index, b);
        if (rc != Errno.OK) {
            fail("receive refused (errno " + rc + ")");
        }
    }

    /** Acts on one message; why it is a protocol violation, or null. */
    private String dispatch(ByteBuf b) {
        int type = LinkHeader.type(b);
        return switch (type) {
            case LinkHeader.HELLO -> hello(b);
            case LinkHeader.HEARTBEAT -> null;
            case LinkHeader.GOODBYE -> {
                endReason = "the peer stopped";
                yield null;
            }
            case LinkHeader.HANDOVER -> {
                link.handoverReceived();
                yield null;
            }
            case LinkHeader.WRITE, LinkHeader.UNMAP, LinkHeader.FLUSH, LinkHeader.CHANGED, LinkHeader.STATE -> request(b, type);
            case LinkHeader.ACK -> ack(b);
            default -> "unknown message " + LinkHeader.typeName(type);
        };
    }

    private String hello(ByteBuf b) {
        if (peer != null) {
            return "a second HELLO";
        }
        b.skipBytes(LinkHeader.LENGTH);
        switch (Hello.decode(b)) {
            case Decoded.Malformed<Hello> m -> {
                return m.reason();
            }
            case Decoded.Ok<Hello> ok -> {
                if (!ok.value().node().equals(settings.peerNode())) {
                    return "HELLO from node '" + ok.value().node() + "', not '" + settings.peerNode() + "'";
                }
                if (ok.value().slotCount() < settings.slotCount() || ok.value().slotSize() < settings.slotSize()) {
                    return "the peer's staging (" + ok.value().slotCount() + " x " + ok.value().slotSize()
                            + " bytes) is smaller than this node's";
                }
                peer = ok.value();
                link.helloReceived(this, peer);
                return null;
            }
        }
    }

    private String request(ByteBuf b, int type) {
        int slot = LinkHeader.slot(b);
        if (peer == null) {
            return LinkHeader.typeName(type) + " before HELLO";
        }
        if (slot >= settings.slotCount() || inbound[slot].busy) {
            return LinkHeader.typeName(type) + " in slot " + slot + (slot >= settings.slotCount() ? ", which does not exist" : ", which is busy");
        }
        Inbound in = inbound[slot];
        in.busy = true;
        in.sequence = LinkHeader.sequence(b);
        applying.incrementAndGet();
        ByteBuf data = type == LinkHeader.WRITE || type == LinkHeader.STATE ? in.data.clear() : null;
        link.apply(type, LinkHeader.store(b), LinkHeader.lba(b), LinkHeader.blocks(b), LinkHeader.flags(b), data, in);
        return null;
    }

    /**
     * An ACK: the request in the header's slot, and as many more as the header's {@code blocks}
     * says, each a slot (u16) and a sequence (u64) in the body, all applied ({@link #sendAcks}).
     * A failed request is answered alone, its reason in the body.
     */
    private String ack(ByteBuf b) {
        long more = LinkHeader.blocks(b);
        int body = b.readerIndex() + LinkHeader.LENGTH;
        if (more < 0 || more >= outbound.length || b.readableBytes() < LinkHeader.LENGTH + more * ACK_ENTRY) {
            return "ACK of " + (more + 1) + " requests in " + b.readableBytes() + " bytes";
        }
        ackMessages++;
        String bad = answered(LinkHeader.slot(b), LinkHeader.sequence(b), LinkHeader.status(b) == LinkHeader.OK, b,
                more == 0 ? body : -1);
        for (int i = 0; i < more && bad == null; i++) {
            int at = body + i * ACK_ENTRY;
            bad = answered(b.getUnsignedShort(at), b.getLong(at + 2), true, b, -1);
        }
        return bad;
    }

    /** The peer answered request {@code sequence} in {@code slot}; a failure's reason from {@code reasonAt} on. */
    private String answered(int slot, long sequence, boolean ok, ByteBuf b, int reasonAt) {
        Outbound o = slot < outbound.length ? outbound[slot] : null;
        if (o == null || o.ticket == null || o.sequence != sequence) {
            return "ACK of request " + sequence + " in slot " + slot + ", which is not outstanding";
        }
        acksReceived++;
        if (!ok) {
            String why = reasonAt < 0 ? "" : b.toString(reasonAt, b.writerIndex() - reasonAt, StandardCharsets.UTF_8);
            link.refused(LinkHeader.typeName(o.type), o.store, o.lba, o.blocks, why);
        }
        Ticket t = o.ticket;
        o.ticket = null;
        free.add(o);
        t.done(ok);
        return null;
    }

    /** ACK messages received and the requests they answered, in that order (loop; tests). */
    long[] ackCounts() {
        return new long[] {ackMessages, acksReceived};
    }

    // ------------------------------------------------------------------ sends (loop)

    private void sendHello(Hello hello) {
        ByteBuf h = helloBuffer.clear();
        LinkHeader.write(h, LinkHeader.HELLO, 0, 0, 0, 0, 0, 0, 0);
        hello.encode(h);
        postSend(HELLO, h, "replication HELLO");
    }

    /** The bytes of one more request answered by an ACK: slot u16, sequence u64. */
    static final int ACK_ENTRY = 10;

    /** An ACK buffer: a header, and either a failure's reason or one entry for every other slot. */
    static int ackBufferBytes(int slots) {
        return Math.max(ACK_BUFFER, LinkHeader.LENGTH + (slots - 1) * ACK_ENTRY);
    }

    /** The request in {@code slot} was applied: its ACK leaves with the others of this loop pass. */
    private void queueAck(int slot) {
        acksDue[acksDueCount++] = slot; // at most one per slot: a slot is busy until its ACK is queued
        if (!acksScheduled) {
            acksScheduled = true;
            loop.execute(sendAcksTask); // after the completions and answers of this pass
        }
    }

    /**
     * One ACK for every request applied since the last: the first in the header, the others in
     * the body ({@link #ack}). It goes in the first's ACK buffer, which the peer cannot need again
     * before this message reached it (it sends that slot's next request only after its ACK).
     */
    private void sendAcks() {
        acksScheduled = false;
        int n = acksDueCount;
        acksDueCount = 0;
        if (gone || n == 0) {
            return;
        }
        Inbound first = inbound[acksDue[0]];
        ByteBuf h = ackHeaders[first.index].clear();
        LinkHeader.write(h, LinkHeader.ACK, 0, 0, first.index, LinkHeader.OK, first.sequence, 0, n - 1);
        for (int i = 1; i < n; i++) {
            Inbound in = inbound[acksDue[i]];
            h.writeShort(in.index).writeLong(in.sequence);
        }
        postSend(ACK | first.index, h, "replication ACK", false);
    }

    private void sendAck(Inbound in) {
        ByteBuf h = ackHeaders[in.index].clear();
        LinkHeader.write(h, LinkHeader.ACK, 0, 0, in.index, in.ok ? LinkHeader.OK : LinkHeader.FAILED, in.sequence, 0, 0);
        if (!in.ok && in.why != null) {
            byte[] why = in.why.getBytes(StandardCharsets.UTF_8);
            h.writeBytes(why, 0, Math.min(why.length, ACK_BUFFER - LinkHeader.LENGTH));
        }
        postSend(ACK | in.index, h, "replication ACK", false);
    }

    private void heartbeat() {
        if (gone) {
            return;
        }
        long now = System.nanoTime();
        if (now - lastReceived > settings.heartbeatTimeout().toNanos()) {
            fail("no message from " + settings.peerNode() + " for " + settings.heartbeatTimeout().toMillis() + " ms");
            return;
        }
        if (!heartbeatInFlight && now - lastSent >= settings.heartbeatInterval().toNanos() / 2) {
            heartbeatInFlight = true;
            ByteBuf h = heartbeatBuffer.clear();
            LinkHeader.write(h, LinkHeader.HEARTBEAT, 0, 0, 0, 0, 0, 0, 0);
            postSend(HEARTBEAT, h, "replication heartbeat");
        }
    }

    /**
     * Sends HANDOVER (in the HELLO's buffer, long free: HELLO is the first message and is not sent
     * again on a connection); false when the connection is gone. Loop.
     */
    boolean handover() {
        if (gone) {
            return false;
        }
        ByteBuf h = helloBuffer.clear();
        LinkHeader.write(h, LinkHeader.HANDOVER, 0, 0, 0, 0, 0, 0, 0);
        return postSend(HELLO, h, "replication HANDOVER");
    }

    /** Says GOODBYE (a clean stop), so that the peer does not take the end for a failure. Loop. */
    void goodbye() {
        if (!gone && !heartbeatInFlight) {
            heartbeatInFlight = true;
            ByteBuf h = heartbeatBuffer.clear();
            LinkHeader.write(h, LinkHeader.GOODBYE, 0, 0, 0, 0, 0, 0, 0);
            postSend(HEARTBEAT, h, "replication GOODBYE");
        }
    }

    private boolean postSend(long wrId, ByteBuf h, String what) {
        return postSend(wrId, h, what, true);
    }

    /**
     * Posts a SEND of {@code h}. Requests and ACKs go unsignaled ({@code signaled} false): nothing
     * waits for their completion (a request is done by its ACK, an ACK's buffer by the peer's next
     * request in that slot), and a failed one still completes, with its error, which ends the
     * connection; that saves a completion, its event and its poll per message.
     */
    private boolean postSend(long wrId, ByteBuf h, String what, boolean signaled) {
        wr.reset();
        wr.wrId = wrId;
        if (!signaled) {
            wr.sendFlags = 0;
        }
        wr.addSge(memory.address(h, 0), h.writerIndex(), memory.lkey());
        lastSent = System.nanoTime();
        return posted(qp.postSend(wr), what);
    }

    private boolean posted(int rc, String what) {
        if (rc == Errno.OK) {
            return true;
        }
        fail(what + " refused by the queue pair (errno " + rc + ")");
        return false;
    }

    // ------------------------------------------------------------------ the end

    /** Ends the connection for {@code reason} (once): every outstanding request is lost. Loop. */
    void fail(String reason) {
        if (gone) {
            return;
        }
        gone = true;
        if (endReason == null) {
            endReason = reason;
        }
        if (heartbeats != null) {
            heartbeats.cancel(false);
        }
        for (Outbound o : outbound) {
            if (o != null && o.ticket != null) {
                lost(o);
            }
        }
        for (Outbound o = submitted.poll(); o != null; o = submitted.poll()) {
            lost(o);
        }
        if (id != null) {
            id.disconnect();
        }
        link.connectionEnded(this, endReason);
        releaseLater();
    }

    /**
     * The connection manager's DISCONNECTED normally frees the connection; this frees it anyway a
     * second after the end (a connection whose transport never came up may send no such event), when
     * the queue pair has long flushed and no byte can be placed any more.
     */
    private void releaseLater() {
        try {
            loop.schedule(this::releaseIfIdle, 1, TimeUnit.SECONDS);
        } catch (java.util.concurrent.RejectedExecutionException stopped) {
            releaseIfIdle();
        }
    }

    /** The connection manager says the connection is down. Loop. */
    void disconnected() {
        fail("disconnected by " + settings.peerNode());
        releaseIfIdle();
    }

    /** The queue pair and memory go back once nothing may touch them: no store call still holds a slot. */
    private void releaseIfIdle() {
        if (gone && applying.get() == 0 && !released) {
            release();
        }
    }

    private void release() {
        released = true;
        gone = true;
        link.released(this);
        try {
            qp.destroy();
        } catch (RuntimeException e) {
            // the device is closed already: its queue pairs are gone with it; the memory still goes back
        }
        receives.releaseAll();
        if (inboundRegion != null) {
            try {
                pd.deregister(inboundRegion);
            } catch (RdmaException e) {
                // a remote access still in progress keeps the region: the arena outlives it
            }
        }
        releaseAll(requestHeaders);
        releaseAll(ackHeaders);
        for (ByteBuf b : new ByteBuf[] {inboundStaging, outboundStaging, helloBuffer, heartbeatBuffer}) {
            if (b != null) {
                b.release();
            }
        }
    }

    private static void releaseAll(ByteBuf[] buffers) {
        for (int i = 0; i < buffers.length; i++) {
            if (buffers[i] != null) {
                buffers[i].release();
                buffers[i] = null;
            }
        }
    }
}
