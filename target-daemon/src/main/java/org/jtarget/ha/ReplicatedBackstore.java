package org.jtarget.ha;

import io.netty.buffer.ByteBuf;
import org.jtarget.backstore.spi.AsyncWriter;
import org.jtarget.backstore.spi.Backstore;
import org.jtarget.backstore.spi.BackstoreInfo;
import org.jtarget.backstore.spi.ForwardingBackstore;
import org.jtarget.backstore.spi.ReplicatedState;
import org.jtarget.backstore.spi.StoreException;
import org.jtarget.buffer.ScatterList;

import java.io.IOException;
import java.io.InterruptedIOException;

/**
 * A store of an HA pair as the SCSI core sees it on either node: reads are local; a change
 * (write, unmap, flush) is taken only while this node is the primary, and returns only once the
 * secondary applied it too, or once the change is recorded as the secondary's to catch up (the
 * dirty-region log) and the node's new generation is durable (degraded). Overlapping changes are
 * in flight one at a time ({@link OverlapGate}), so both nodes apply them in the same order.
 *
 * <p>Both nodes report the same identity: the seed is the pair's and the store's name, not the
 * local path. Store calls block on the peer's answer, so the store is never non-blocking; reads
 * still take the store's non-blocking path ({@link #tryReadNonBlocking}).
 */
public final class ReplicatedBackstore extends ForwardingBackstore implements AsyncWriter, ReplicatedState {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(ReplicatedBackstore.class);

    private final int index;
    private final Replication replication;
    private final DirtyRegionLog log;
    private final OverlapGate gate;
    private final BackstoreInfo info;
    /** The core's holders of unit state on this store, by key. */
    private final java.util.Map<String, Holder> holders = new java.util.concurrent.ConcurrentHashMap<>();
    /**
     * Records the peer published for keys nobody here holds yet (a LU built after the link came
     * up, or a unit this node's config lacks): installed when the key is attached.
     */
    private final java.util.Map<String, byte[]> unattached = new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * @param index   the store's number on the link (its place in the HELLO)
     * @param pairId  the pair's name ({@code alpha+beta}), part of the identity both nodes report
     * @param writers how many threads may change the store at once (its I/O threads and the resync)
     */
    ReplicatedBackstore(Backstore local, int index, String pairId, Replication replication, DirtyRegionLog log,
                        int writers) {
        super(local);
        this.index = index;
        this.replication = replication;
        this.log = log;
        this.gate = new OverlapGate(writers);
        BackstoreInfo i = local.info();
        this.info = new BackstoreInfo(i.blockSize(), i.blockCount(), i.writeCacheEnabled(), i.thin(), i.readOnly(),
                i.maxTransferBlocks(), i.optimalTransferBlocks(), "ha:" + pairId + ":" + local.name(),
                i.logicalBlocksPerPhysicalBlockExponent());
    }

    @Override
    public BackstoreInfo info() {
        return info;
    }

    @Override
    public boolean isNonBlocking() {
        return false;
    }

    /**
     * Reads are local; over a store that never blocks (memory) they are always served on the
     * event loop, as without HA (this store says it may block only because its changes wait for
     * the peer).
     */
    @Override
    public boolean tryReadNonBlocking(long lba, int blocks, ByteBuf dst) {
        if (delegate().isNonBlocking()) {
            int start = dst.writerIndex();
            try {
                delegate().read(lba, blocks, dst);
                return true;
            } catch (IOException e) {
                dst.writerIndex(start); // the normal path reads again and reports the error
                return false;
            }
        }
        return delegate().tryReadNonBlocking(lba, blocks, dst);
    }

    /** Not yet replicated: a crypto erase would change the key on this node only. */
    @Override
    public boolean supportsCryptoErase() {
        return false;
    }

    @Override
    public void write(long lba, ByteBuf src, boolean fua) throws IOException {
        int bs = info.blockSize();
        long blocks = src.readableBytes() / bs;
        int ticket = begin(lba, blocks);
        boolean replicated = false;
        try {
            delegate().write(lba, src, fua);
            replicated = sent(replication.write(index, lba, bs, src, fua));
        } finally {
            end(ticket, lba, blocks, replicated);
        }
    }

    @Override
    public void write(long lba, ScatterList src, int length, boolean fua) throws IOException {
        int bs = info.blockSize();
        long blocks = length / bs;
        int ticket = begin(lba, blocks);
        boolean replicated = false;
        try {
            delegate().write(lba, src, length, fua);
            replicated = sent(replication.write(index, lba, bs, src, length, fua));
        } finally {
            end(ticket, lba, blocks, replicated);
        }
    }

    /**
     * The write of a store that never blocks (memory), started on the event loop: the blocks are
     * held ({@link OverlapGate}, without waiting), their extents are active already in the log,
     * the local store writes them, and the link takes every piece at once; the peer's answer ends
     * the write on the link's loop. Whatever would wait (an overlapping change in flight, an
     * extent to activate, a full window, a peer not following) declines, and the core writes on
     * the LU's I/O thread instead. A write the peer did not apply goes on as a blocking one would
     * (degraded, or refused), on the node's own threads.
     */
    @Override
    public boolean tryWriteAsync(long lba, ScatterList src, int length, boolean fua, Done done) {
        int bs = info.blockSize();
        long blocks = length / bs;
        if (!delegate().isNonBlocking() || !replication.serving()) {
            return false;
        }
        int ticket = gate.tryEnter(lba, blocks);
        if (ticket < 0) {
            return false;
        }
        if (!log.tryBeginWrite(lba * bs, blocks * bs)) {
            gate.leave(ticket);
            return false;
        }
        AsyncChange change = asyncChange();
        change.start(lba, blocks, ticket, done);
        try {
            delegate().write(lba, src, length, fua);
        } catch (IOException | RuntimeException e) {
            recycle(change);
            end(ticket, lba, blocks, false);
            return false; // the blocking path writes again and reports the failure
        }
        if (!replication.tryWrite(index, lba, bs, src, length, fua, change)) {
            recycle(change);
            end(ticket, lba, blocks, true); // written here only: the blocking path writes both again
            return false;
        }
        return true;
    }

    /** One asynchronous write waiting for the peer; pooled, so that writes allocate nothing. */
    private final class AsyncChange extends org.jtarget.ha.link.Ticket {
        private long lba;
        private long blocks;
        private int gateTicket;
        private Done done;

        void start(long lba, long blocks, int gateTicket, Done done) {
            reset();
            this.lba = lba;
            this.blocks = blocks;
            this.gateTicket = gateTicket;
            this.done = done;
        }

        @Override
        protected void allAnswered(boolean applied) {
            if (applied) {
                finish(true, null);
                return;
            }
            try {
                replication.blockingWork().execute(this::goOnWithoutPeer);
            } catch (java.util.concurrent.RejectedExecutionException stopping) {
                finish(false, new StoreException(StoreException.Kind.NOT_SERVED_HERE, name()
                        + ": the HA node is stopping", null)); // not acknowledged: the peer may lack it
            }
        }

        /** The peer missed the write: the node goes on degraded, or refuses it (blocking: the node's threads). */
        private void goOnWithoutPeer() {
            IOException failure = null;
            try {
                replication.notReplicated(name());
            } catch (IOException e) {
                failure = e;
            }
            finish(false, failure);
        }

        private void finish(boolean replicated, IOException failure) {
            Done d = done;
            end(gateTicket, lba, blocks, replicated);
            recycle(this);
            d.done(failure);
        }
    }

    private final java.util.ArrayDeque<AsyncChange> idleChanges = new java.util.ArrayDeque<>();

    private AsyncChange asyncChange() {
        synchronized (idleChanges) {
            AsyncChange c = idleChanges.poll();
            return c != null ? c : new AsyncChange();
        }
    }

    private void recycle(AsyncChange c) {
        c.done = null;
        synchronized (idleChanges) {
            idleChanges.push(c);
        }
    }

    /**
     * In pieces of at most {@link #UNMAP_PIECE_BYTES}: an UNMAP may name a whole LU, more than the
     * dirty-region log keeps active at once.
     */
    @Override
    public void unmap(long lba, long blocks) throws IOException {
        long piece = UNMAP_PIECE_BYTES / info.blockSize();
        for (long done = 0; done < blocks; done += piece) {
            unmapPiece(lba + done, Math.min(piece, blocks - done));
        }
    }

    /** 32 MiB: eight 4 MiB extents of the dirty-region log. */
    static final long UNMAP_PIECE_BYTES = 32L << 20;

    private void unmapPiece(long lba, long blocks) throws IOException {
        int ticket = begin(lba, blocks);
        boolean replicated = false;
        try {
            delegate().unmap(lba, blocks);
            replicated = sent(replication.unmap(index, lba, blocks));
        } finally {
            end(ticket, lba, blocks, replicated);
        }
    }

    /** Local first, then the peer's; a peer that cannot flush is left behind like one that cannot write. */
    @Override
    public void flush(long lba, long blocks) throws IOException {
        requireServing();
        delegate().flush(lba, blocks);
        sent(replication.flush(index, lba, blocks));
    }

    /**
     * Holds the blocks against overlapping changes and records them as changing (the log's active
     * extents are durable when it returns), after checking that this node takes writes.
     */
    private int begin(long lba, long blocks) throws IOException {
        requireServing();
        int ticket = enter(lba, blocks);
        try {
            log.beginWrite(lba * info.blockSize(), blocks * info.blockSize());
        } catch (IOException | RuntimeException e) {
            gate.leave(ticket);
            throw e;
        }
        return ticket;
    }

    /**
     * The peer's answer: true when it applied the change. When it did not, the node carries on
     * alone, its new generation durable before this returns, so the change may be acknowledged.
     */
    private boolean sent(boolean applied) throws IOException {
        if (!applied) {
            replication.notReplicated(name());
        }
        return applied;
    }

    /** Blocks not {@code replicated} (the peer missed them, or the local change failed) are dirty. */
    private void end(int ticket, long lba, long blocks, boolean replicated) {
        try {
            log.endWrite(lba * info.blockSize(), blocks * info.blockSize(), replicated);
        } finally {
            gate.leave(ticket);
        }
    }

    private int enter(long lba, long blocks) throws InterruptedIOException {
        try {
            return gate.enter(lba, blocks);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while an overlapping change was in flight");
        }
    }

    /**
     * Whether this node's copy deallocates on UNMAP and reads deallocated blocks as zeros (a thin
     * store): what HELLO tells the peer, and what lets a resync send holes as UNMAPs.
     */
    boolean unmapsToZeros() {
        return delegate().supportsUnmap() && delegate().info().thin();
    }

    private void requireServing() throws StoreException {
        if (!replication.serving()) {
            throw new StoreException(StoreException.Kind.NOT_SERVED_HERE,
                    name() + ": this node is not the primary of its HA pair", null);
        }
    }

    // ------------------------------------------------------------------ the core's unit state (ReplicatedState)

    @Override
    public ReplicatedState replicatedState() {
        return this;
    }

    @Override
    public boolean acceptsChanges() {
        return replication.serving();
    }

    /**
     * Sent like a write: the peer installs the record before this returns; a peer that did not
     * (link down, its core refused it) is left behind as for a write, degraded (its next resync
     * begins with every key's whole state), or this node may not go on alone and throws.
     */
    @Override
    public void publish(String key, byte[] record) throws IOException {
        requireServing();
        StateMessage m = new StateMessage(key, record);
        if (record.length > maxRecordBytes()) {
            throw new IOException(name() + ": the state of " + key + " is " + record.length + " bytes, more than the "
                    + maxRecordBytes() + " the HA link carries in one message");
        }
        io.netty.buffer.ByteBuf b = m.encode();
        try {
            sent(replication.state(index, b));
        } finally {
            b.release();
        }
    }

    /** A slot, less a key of up to {@link StateMessage#MAX_KEY} bytes and the framing. */
    @Override
    public int maxRecordBytes() {
        return replication.maxStateBytes() - StateMessage.OVERHEAD;
    }

    @Override
    public void attach(String key, Holder holder) {
        holders.put(key, holder);
        byte[] early = unattached.remove(key);
        if (early != null) {
            try {
                holder.install(early);
            } catch (IOException e) {
                LOG.error("HA: {}: the state of {} that {} sent cannot be installed: {}", name(), key,
                        "the peer", e.getMessage());
            }
        }
    }

    @Override
    public void detach(String key, Holder holder) {
        holders.remove(key, holder);
    }

    /** The secondary: installs the state the primary published (a STATE message's bytes). Store thread. */
    void install(io.netty.buffer.ByteBuf message) throws IOException {
        StateMessage m = StateMessage.decode(message);
        Holder h = holders.get(m.key());
        if (h == null) {
            if (unattached.put(m.key(), m.record()) == null) {
                LOG.info("HA: {}: state of {} kept until that unit exists here", name(), m.key());
            }
            return;
        }
        h.install(m.record());
    }

    /**
     * The primary, at the start of a resync: every key's whole state to the peer, each in order
     * with its changes. False when the link failed (the resync stops; the next link sends it again).
     */
    boolean sendAllState() throws IOException {
        for (java.util.Map.Entry<String, Holder> e : holders.entrySet()) {
            boolean[] ok = {true};
            e.getValue().snapshot(record -> {
                StateMessage m = new StateMessage(e.getKey(), record);
                if (m.length() > replication.maxStateBytes()) {
                    // publish() refuses such a change; only a state loaded at start can be this large
                    LOG.error("HA: {}: the state of {} is {} bytes, more than the HA link carries ({}): the peer "
                            + "does not get it", name(), e.getKey(), m.length(), replication.maxStateBytes());
                    return;
                }
                io.netty.buffer.ByteBuf b = m.encode();
                try {
                    ok[0] = replication.state(index, b);
                } finally {
                    b.release();
                }
            });
            if (!ok[0]) {
                return false;
            }
        }
        return true;
    }

    /** The store's number on the link. */
    int index() {
        return index;
    }

    /** The store beneath (the secondary applies the peer's changes to it directly). */
    Backstore local() {
        return delegate();
    }

    DirtyRegionLog log() {
        return log;
    }

    /** Holds blocks as a change does (the resync copies a region under it). */
    int hold(long lba, long blocks) throws InterruptedIOException {
        return enter(lba, blocks);
    }

    void release(int ticket) {
        gate.leave(ticket);
    }

    /** Changes of this store in flight now (metrics: how far the peer is behind, in changes). */
    public int changesInFlight() {
        return gate.heldCount();
    }

    /** Waits until no change is in flight (a switchover), at most {@code timeoutMillis}; true when none is. */
    boolean awaitIdle(long timeoutMillis) throws InterruptedException {
        return gate.awaitIdle(timeoutMillis);
    }
}
