package org.jtarget.ha;

import io.netty.buffer.ByteBuf;
import org.jtarget.backstore.spi.Backstore;
import org.jtarget.backstore.spi.BackstoreInfo;
import org.jtarget.backstore.spi.ForwardingBackstore;
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
public final class ReplicatedBackstore extends ForwardingBackstore {

    private final int index;
    private final Replication replication;
    private final DirtyRegionLog log;
    private final OverlapGate gate;
    private final BackstoreInfo info;

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

    private void requireServing() throws StoreException {
        if (!replication.serving()) {
            throw new StoreException(StoreException.Kind.NOT_SERVED_HERE,
                    name() + ": this node is not the primary of its HA pair", null);
        }
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

    /** Waits until no change is in flight (a switchover), at most {@code timeoutMillis}; true when none is. */
    boolean awaitIdle(long timeoutMillis) throws InterruptedException {
        return gate.awaitIdle(timeoutMillis);
    }
}
