package org.jtarget.backstore.partition;

import io.netty.buffer.ByteBuf;
import org.jtarget.buffer.ScatterList;
import org.jtarget.backstore.spi.Backstore;
import org.jtarget.backstore.spi.BackstoreInfo;
import org.jtarget.backstore.spi.ForwardingBackstore;
import org.jtarget.backstore.spi.StoreException;

import java.io.IOException;

/**
 * A contiguous range of blocks of another store, served as a store of its own so that one file or
 * device can back several logical units (each with its own identity, reservations, unit attentions,
 * read-only flag and target, hence ACL).
 *
 * <pre>
 *  parent:    | ......... | partition LBA 0 .. blockCount-1 | ......... |
 *             0           offsetBlocks                      offsetBlocks + blockCount
 * </pre>
 *
 * <p>Every call is checked against the partition's extent and shifted by {@code offsetBlocks}:
 * arithmetic and one delegation, nothing allocated per I/O. A range outside the partition is an
 * {@link IllegalArgumentException} (the core range-checks before calling, as for any store), so no
 * call can reach a sibling's blocks.
 *
 * <p>The partition borrows its parent: it never closes it. Whoever opened the parent (the daemon's
 * {@code BackstoreSet}) closes it once, after every partition over it.
 */
public final class PartitionBackstore extends ForwardingBackstore {

    private final String name;
    private final long offsetBlocks;
    private final long blockCount;
    private final int blockSize;
    private final BackstoreInfo info;
    private volatile boolean closed;

    /**
     * @param name         the partition's config name
     * @param parent       the store it is carved from (borrowed, not closed here)
     * @param offsetBlocks first parent block of the partition
     * @param blockCount   the partition's length in parent blocks
     * @throws IllegalArgumentException if the extent is empty or not inside the parent
     */
    public PartitionBackstore(String name, Backstore parent, long offsetBlocks, long blockCount) {
        super(parent);
        BackstoreInfo p = parent.info();
        if (offsetBlocks < 0 || blockCount <= 0 || offsetBlocks > p.blockCount() - blockCount) {
            throw new IllegalArgumentException("partition " + name + " at block " + offsetBlocks + " + "
                    + blockCount + " is outside " + parent.name() + " (" + p.blockCount() + " blocks)");
        }
        this.name = name;
        this.offsetBlocks = offsetBlocks;
        this.blockCount = blockCount;
        this.blockSize = p.blockSize();
        this.info = new BackstoreInfo(p.blockSize(), blockCount, p.writeCacheEnabled(), p.thin(), p.readOnly(),
                p.maxTransferBlocks(), p.optimalTransferBlocks(), identitySeed(p.identitySeed(), offsetBlocks, p),
                alignedExponent(p.logicalBlocksPerPhysicalBlockExponent(), offsetBlocks));
    }

    /**
     * The identity of the LU follows the data: the parent's seed plus where the partition starts
     * (siblings never share a start), so two partitions of one file get different NAA designators
     * and serial numbers, stable across restarts and renames.
     */
    static String identitySeed(String parentSeed, long offsetBlocks, BackstoreInfo parent) {
        return "partition:" + parentSeed + "@" + offsetBlocks * parent.blockSize();
    }

    /**
     * READ CAPACITY (16) reports LOWEST ALIGNED LOGICAL BLOCK ADDRESS 0 (SBC-4 5.20.2), so the
     * parent's physical block exponent only holds when the partition starts on a physical block.
     */
    private static int alignedExponent(int exponent, long offsetBlocks) {
        return offsetBlocks % (1L << exponent) == 0 ? exponent : 0;
    }

    @Override
    public BackstoreInfo info() {
        return info;
    }

    @Override
    public String name() {
        return name;
    }

    /** The store this partition is carved from. */
    public Backstore parent() {
        return delegate();
    }

    /** The partition's first block in the parent. */
    public long offsetBlocks() {
        return offsetBlocks;
    }

    @Override
    public void read(long lba, int blocks, ByteBuf dst) throws IOException {
        parent().read(translate(lba, blocks), blocks, dst);
    }

    @Override
    public void write(long lba, ByteBuf src, boolean fua) throws IOException {
        int bytes = src.readableBytes();
        if (bytes % blockSize != 0) {
            throw new IllegalArgumentException("write of " + bytes + " bytes is not a whole number of blocks");
        }
        parent().write(translate(lba, bytes / blockSize), src, fua);
    }

    @Override
    public boolean tryReadNonBlocking(long lba, int blocks, ByteBuf dst) {
        return !closed && lba >= 0 && lba + blocks <= blockCount
                && parent().tryReadNonBlocking(offsetBlocks + lba, blocks, dst);
    }

    /** The parent gets the segments as they are (a memory parent copies them without a view). */
    @Override
    public void write(long lba, ScatterList src, int length, boolean fua) throws IOException {
        if (length % blockSize != 0) {
            throw new IllegalArgumentException("write of " + length + " bytes is not a whole number of blocks");
        }
        parent().write(translate(lba, length / blockSize), src, length, fua);
    }

    /** SBC-4 5.28 SYNCHRONIZE CACHE: blocks 0 means to the end of this partition, not of the parent. */
    @Override
    public void flush(long lba, long blocks) throws IOException {
        long count = blocks == 0 ? blockCount - lba : blocks;
        parent().flush(translate(lba, count), count);
    }

    @Override
    public void unmap(long lba, long blocks) throws IOException {
        parent().unmap(translate(lba, blocks), blocks);
    }

    /**
     * The parent's allocation unit when the partition starts on one; otherwise 1, since units
     * aligned from the parent's LBA 0 are not aligned from ours (the parent still zeroes the
     * partial units of an unmap, so reads stay right either way).
     */
    @Override
    public int unmapGranularityBlocks() {
        int g = parent().unmapGranularityBlocks();
        return g > 1 && offsetBlocks % g != 0 ? 1 : g;
    }

    @Override
    public ProvisioningRun provisioningRun(long lba, long maxBlocks) throws IOException {
        return parent().provisioningRun(translate(lba, maxBlocks), maxBlocks);
    }

    /**
     * The parent LBA of {@code lba}, after checking that {@code [lba, lba + blocks)} lies in this
     * partition (and that it is open).
     */
    private long translate(long lba, long blocks) throws StoreException {
        if (closed) {
            throw new StoreException(StoreException.Kind.MEDIUM_GONE, "partition " + name + " is closed", null);
        }
        if (lba < 0 || blocks < 0 || lba > blockCount - blocks) {
            throw new IllegalArgumentException("range lba " + lba + " + " + blocks + " blocks is outside partition "
                    + name + " (" + blockCount + " blocks)");
        }
        return offsetBlocks + lba;
    }

    /** Never: a new key for the parent would erase the sibling partitions too. */
    @Override
    public boolean supportsCryptoErase() {
        return false;
    }

    @Override
    public void cryptoErase() {
        throw new UnsupportedOperationException("cryptoErase of partition " + name);
    }

    /**
     * Makes the partition's writes stable and refuses further I/O; idempotent. The parent stays
     * open (it is borrowed).
     */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        parent().flush(offsetBlocks, blockCount);
    }
}
