package org.jtarget.fabric.endpoint;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import org.jtarget.backstore.spi.Backstore;
import org.jtarget.rdma.AccessFlag;
import org.jtarget.rdma.MemoryRegion;
import org.jtarget.rdma.ProtectionDomain;
import org.jtarget.rdma.QueuePair;
import org.jtarget.rdma.RdmaException;
import org.jtarget.rdma.RemoteAccessCompletion;
import org.jtarget.rdma.RemoteAccessHandler;
import org.jtarget.rdma.WorkCompletionStatus;
import org.jtarget.rdma.cm.CmId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * A LUN, or a block range of it, exposed as an RDMA memory region (issue 6): a peer RDMA READs and
 * WRITEs store blocks one-sided, with the {@link #rkey()} it got at connection time. Remote address
 * {@code a} (zero-based) is byte {@code a} of block {@code firstBlock}; every access runs as store
 * I/O on {@code io} (store I/O may block: never on an event loop) and completes when the store call
 * returns, so accesses of different requests may complete out of order; the requester's FENCE and
 * {@link QueuePair#postBarrier} order them.
 *
 * <p>Access rules, each refused as a protection violation (REM_ACCESS_ERR, both queue pairs to
 * ERROR, the store untouched): the responder queue pair must have been {@link #admit admitted}
 * (its peer is in {@code allowedPeers}); the range must lie inside the exposed blocks; offset and
 * length must be whole blocks (no read-modify-write: two partial writes of one block could race,
 * and initiators move whole blocks anyway); read-only endpoints refuse WRITEs. A store I/O error
 * completes the access REM_OP_ERR.
 */
public final class StoreEndpoint implements RemoteAccessHandler, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(StoreEndpoint.class);

    private final ProtectionDomain pd;
    private final Backstore store;
    private final StoreEndpointSettings settings;
    private final Executor io;
    private final ByteBufAllocator allocator;
    private final int blockSize;
    private final long firstBlock;
    private final long length;
    private final Set<QueuePair> admitted = ConcurrentHashMap.newKeySet();
    private final MemoryRegion region;

    private StoreEndpoint(ProtectionDomain pd, Backstore store, StoreEndpointSettings settings, Executor io,
                          ByteBufAllocator allocator) throws RdmaException {
        this.pd = pd;
        this.store = store;
        this.settings = settings;
        this.io = io;
        this.allocator = allocator;
        this.blockSize = store.info().blockSize();
        this.firstBlock = settings.firstBlock();
        long storeBlocks = store.info().blockCount();
        long blocks = settings.blockCount() == 0 ? storeBlocks - firstBlock : settings.blockCount();
        if (firstBlock >= storeBlocks || blocks < 1 || blocks > storeBlocks - firstBlock) {
            throw new IllegalArgumentException("blocks " + firstBlock + "+" + blocks + " outside store "
                    + store.name() + " of " + storeBlocks + " blocks");
        }
        this.length = blocks * blockSize;
        Set<AccessFlag> access = settings.readOnly() ? EnumSet.of(AccessFlag.REMOTE_READ)
                : EnumSet.of(AccessFlag.REMOTE_READ, AccessFlag.REMOTE_WRITE);
        this.region = pd.registerRemoteAccessRegion(length, access, this);
    }

    /**
     * Exposes {@code store} (or the partition {@code settings} names) in {@code pd}.
     *
     * @param io        where store I/O runs (a per-LU executor; it may reorder)
     * @param allocator buffers for the data moved (the daemon's pooled direct allocator)
     * @throws IllegalArgumentException when the block range lies outside the store
     */
    public static StoreEndpoint register(ProtectionDomain pd, Backstore store, StoreEndpointSettings settings,
                                         Executor io, ByteBufAllocator allocator) throws RdmaException {
        return new StoreEndpoint(pd, store, settings, io, allocator);
    }

    /** The region's rkey: what a peer names in its RDMA READ/WRITE. */
    public int rkey() {
        return region.rkey();
    }

    public MemoryRegion region() {
        return region;
    }

    /** Bytes exposed (remote addresses 0..length-1). */
    public long length() {
        return length;
    }

    public int blockSize() {
        return blockSize;
    }

    public StoreEndpointSettings settings() {
        return settings;
    }

    /**
     * The identity a peer address is matched by in {@code allowedPeers}: the IP address literal of an
     * {@link InetSocketAddress} (any port), otherwise the address's {@code toString()}.
     */
    public static String peerIdentity(SocketAddress address) {
        if (address instanceof InetSocketAddress inet && inet.getAddress() != null) {
            return inet.getAddress().getHostAddress();
        }
        return String.valueOf(address);
    }

    /**
     * Lets {@code qp} (a queue pair of this endpoint's protection domain, connected to {@code peer})
     * access the region, if {@code peer} is allowed.
     *
     * @return whether it was admitted
     */
    public boolean admit(QueuePair qp, String peer) {
        if (qp.protectionDomain() != pd || !settings.allowedPeers().contains(peer)) {
            admitted.remove(qp); // a queue pair reused for another peer loses what it had
            LOG.info("store endpoint {}: peer {} not admitted", store.name(), peer);
            return false;
        }
        admitted.add(qp);
        return true;
    }

    /**
     * Takes access away from {@code qp}: call it when its connection ends (DISCONNECTED), before the
     * queue pair is reset and reused, or the next peer of that queue pair inherits the access.
     */
    public void revoke(QueuePair qp) {
        admitted.remove(qp);
    }

    /**
     * Answers a CONNECT_REQUEST for this endpoint: an allowed peer is admitted and accepted with the
     * rkey, block size and length in the private data ({@link EndpointHandshake#accept}); any other
     * peer is rejected ({@link EndpointHandshake.Rejection#PEER_NOT_ALLOWED}) and never learns the rkey.
     *
     * @return whether the connection was accepted
     */
    public boolean accept(CmId request, QueuePair qp) throws RdmaException {
        String peer = peerIdentity(request.remoteAddress());
        if (!admit(qp, peer)) {
            request.reject(EndpointHandshake.reject(EndpointHandshake.Rejection.PEER_NOT_ALLOWED, peer));
            return false;
        }
        try {
            request.accept(qp, EndpointHandshake.accept(rkey(), blockSize, length));
        } catch (RdmaException e) {
            revoke(qp);
            throw e;
        }
        return true;
    }

    @Override
    public boolean permits(QueuePair responder, long offset, long len, boolean write) {
        // The queue pair already checked bounds and REMOTE_WRITE (read-only); here: peer and block granularity.
        return admitted.contains(responder) && offset % blockSize == 0 && len % blockSize == 0;
    }

    @Override
    public ByteBuf allocate(int len) {
        return allocator.directBuffer(len, len);
    }

    @Override
    public void read(QueuePair responder, long offset, int len, RemoteAccessCompletion done) {
        try {
            io.execute(() -> executeRead(offset, len, done));
        } catch (RejectedExecutionException e) {
            done.complete(WorkCompletionStatus.REM_OP_ERR, null); // the LU is shutting down
        }
    }

    @Override
    public void write(QueuePair responder, long offset, ByteBuf data, RemoteAccessCompletion done) {
        try {
            io.execute(() -> executeWrite(offset, data, done));
        } catch (RejectedExecutionException e) {
            data.release();
            done.complete(WorkCompletionStatus.REM_OP_ERR, null); // the LU is shutting down
        }
    }

    private void executeRead(long offset, int len, RemoteAccessCompletion done) {
        ByteBuf buf = allocator.directBuffer(len, len);
        try {
            store.read(firstBlock + offset / blockSize, len / blockSize, buf);
        } catch (IOException | RuntimeException e) {
            buf.release();
            LOG.debug("store endpoint {}: read at offset {} failed", store.name(), offset, e);
            done.complete(WorkCompletionStatus.REM_OP_ERR, null);
            return;
        }
        done.complete(WorkCompletionStatus.SUCCESS, buf);
    }

    private void executeWrite(long offset, ByteBuf data, RemoteAccessCompletion done) {
        WorkCompletionStatus status = WorkCompletionStatus.SUCCESS;
        try {
            store.write(firstBlock + offset / blockSize, data, settings.writeThrough());
        } catch (IOException | RuntimeException e) {
            LOG.debug("store endpoint {}: write at offset {} failed", store.name(), offset, e);
            status = WorkCompletionStatus.REM_OP_ERR;
        } finally {
            data.release();
        }
        done.complete(status, null);
    }

    /**
     * Stops the endpoint: the rkey stops working.
     *
     * @throws RdmaException EBUSY while accesses are in progress
     */
    @Override
    public void close() throws RdmaException {
        admitted.clear();
        pd.deregister(region);
    }
}
