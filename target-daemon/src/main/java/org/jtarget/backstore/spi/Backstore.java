package org.jtarget.backstore.spi;

import io.netty.buffer.ByteBuf;
import org.jtarget.buffer.ScatterList;

import java.io.IOException;
import java.nio.file.Path;

/**
 * The data plane of a logical unit: blocks in, blocks out, flush, optional unmap. Everything else
 * (INQUIRY, mode pages, COMPARE AND WRITE...) the SCSI core emulates on top.
 *
 * <p>Methods are synchronous and may block; the core calls them on the logical unit's I/O executor
 * unless {@link #isNonBlocking()} says they are cheap enough to run on the event loop. Calls for
 * one LU may come from several threads at once for disjoint or overlapping ranges; a store keeps
 * itself consistent (the core orders overlapping commands where SAM requires it). Failures are
 * {@link IOException}s; the core maps them to sense data ({@link StoreException} carries a
 * specific reason).
 */
public interface Backstore extends AutoCloseable {

    /** Geometry and capabilities. */
    BackstoreInfo info();

    /** The configured name (for logs and identity). */
    String name();

    /**
     * True if read/write/flush never block on I/O (memory stores), so the core may run them on
     * the event loop without a thread hop.
     */
    boolean isNonBlocking();

    /**
     * Reads {@code blocks} blocks at {@code lba} into {@code dst} at its writer index, advancing it
     * by blocks * blockSize. Borrows dst (it has that much writable space).
     */
    void read(long lba, int blocks, ByteBuf dst) throws IOException;

    /**
     * Writes the readable bytes of {@code src} (a whole number of blocks) at {@code lba}.
     * Borrows src: reads its readable bytes without changing its indexes or releasing it.
     *
     * @param fua force unit access: the data is on stable storage before this returns
     */
    void write(long lba, ByteBuf src, boolean fua) throws IOException;

    /**
     * Writes the first {@code length} bytes (a whole number of blocks) of a command's data-out
     * segments at {@code lba}: the WRITE path, with the segments as the fabric received them.
     * Borrows src. The default views them as one {@link ByteBuf}; a store that can copy each
     * segment straight from its receive buffer (the memory store) overrides it.
     *
     * @param fua force unit access: the data is on stable storage before this returns
     */
    default void write(long lba, ScatterList src, int length, boolean fua) throws IOException {
        write(lba, firstBytes(src, length), fua);
    }

    /** The first {@code length} bytes of {@code src} as one borrowed {@link ByteBuf} view (no copy). */
    static ByteBuf firstBytes(ScatterList src, int length) {
        ByteBuf all = src.asByteBuf();
        return length == all.readableBytes() ? all : all.slice(all.readerIndex(), length);
    }

    /**
     * Reads like {@link #read} but only if that cannot block (the blocks are in memory already);
     * called on an event loop before a READ is handed to the LU's I/O executor. Returns false,
     * with {@code dst}'s indexes unchanged, when it did not read: the caller then reads the
     * normal way, which also reports any error. The default never reads.
     */
    default boolean tryReadNonBlocking(long lba, int blocks, ByteBuf dst) {
        return false;
    }

    /** Makes every earlier completed write in the range stable (SYNCHRONIZE CACHE); blocks 0 = to the end. */
    void flush(long lba, long blocks) throws IOException;

    /** True if {@link #unmap} deallocates (thin stores). */
    default boolean supportsUnmap() {
        return false;
    }

    /**
     * Deallocates the range; later reads return zeros. Blocks the store cannot deallocate on their
     * own (parts of a larger allocation unit, see {@link #unmapGranularityBlocks}) are zeroed and
     * stay mapped. Only called when {@link #supportsUnmap} is true, with a range inside the store.
     */
    default void unmap(long lba, long blocks) throws IOException {
        throw new UnsupportedOperationException("unmap");
    }

    /**
     * True if the store encrypts every block with a key it can replace, so that
     * {@link #cryptoErase} makes all its data unreadable (SBC-4 4.11, SANITIZE CRYPTOGRAPHIC ERASE).
     */
    default boolean supportsCryptoErase() {
        return false;
    }

    /**
     * Replaces the media encryption key with a new random one, durably, and forgets the old one:
     * every block written before reads as unspecified data (or zeros where the store reads
     * deallocated blocks as zeros). Only called when {@link #supportsCryptoErase} is true, with no
     * other I/O in flight on the store's LU.
     */
    default void cryptoErase() throws IOException {
        throw new UnsupportedOperationException("cryptoErase");
    }

    /**
     * The store's allocation unit in blocks (SBC-4 6.6.4 OPTIMAL UNMAP GRANULARITY): an unmap
     * deallocates only whole units aligned to multiples of it (from LBA 0). 1 = any block.
     */
    default int unmapGranularityBlocks() {
        return 1;
    }

    /**
     * The provisioning state of the blocks from {@code lba} (SBC-4 5.7 GET LBA STATUS): whether
     * block {@code lba} is mapped, and how many blocks from it (at least 1, at most
     * {@code maxBlocks}) share that state. A fully provisioned store is mapped everywhere, which
     * the default says. Called on the LU's I/O executor unless {@link #isNonBlocking()}.
     *
     * @param lba       a block inside the store
     * @param maxBlocks the most blocks to look at (&gt;= 1; the caller keeps lba + maxBlocks within the store)
     */
    default ProvisioningRun provisioningRun(long lba, long maxBlocks) throws IOException {
        return new ProvisioningRun(true, maxBlocks);
    }

    /**
     * True if the data moves with O_DIRECT, bypassing the page cache: a READ buffer that is
     * page-aligned in memory is read into in place, any other through an aligned bounce copy, so
     * the caller should hand it aligned buffers. A decorator answers for the store beneath it.
     */
    default boolean directIo() {
        return false;
    }

    /**
     * The regular file holding the data (a file store, also beneath a partition or encryption), or
     * null (memory, a block device). The daemon watches that path: a deleted or replaced file takes
     * the store's logical units offline.
     */
    default Path backingFile() {
        return null;
    }

    /**
     * The bytes a thin store holds on its medium now (RAM chunks in use, the file's data extents),
     * or -1 when the store does not know or is fully provisioned. May block (a file is walked
     * extent by extent): call it off the event loops, not per I/O. A decorator that changes
     * addresses must not forward it (a partition would report its parent's).
     */
    default long allocatedBytes() throws IOException {
        return -1;
    }

    /**
     * Grows the store to {@code blockCount} blocks while it serves (a live resize): the new blocks
     * read as zeros. {@link #info()} reports the new count only once they exist, so a caller that
     * checks ranges against it never reaches past the medium; I/O in flight keeps working. A store
     * that cannot grow while open refuses with {@link UnsupportedOperationException} saying why,
     * which the default does.
     *
     * @param blockCount more blocks than now
     */
    default void grow(long blockCount) throws IOException {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " " + name()
                + " keeps its size while open");
    }

    /**
     * The SCSI state of this store's logical units that must live where its blocks live (an HA
     * pair's store: persistent reservations and mode parameters replicate with the data), or null:
     * the core keeps that state to itself. A decorator answers for the store beneath it.
     */
    default ReplicatedState replicatedState() {
        return null;
    }

    /**
     * A run of blocks with one provisioning state (SBC-4 4.7.4: mapped, or deallocated and
     * reading as zeros).
     *
     * @param mapped true if the blocks are mapped, false if deallocated
     * @param blocks the run's length in blocks (&gt;= 1)
     */
    record ProvisioningRun(boolean mapped, long blocks) {
    }

    /** Flushes and closes; idempotent. */
    @Override
    void close() throws IOException;
}
