package org.jtarget.backstore.spi;

import io.netty.buffer.ByteBuf;

import java.io.IOException;

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

    /** Makes every earlier completed write in the range stable (SYNCHRONIZE CACHE); blocks 0 = to the end. */
    void flush(long lba, long blocks) throws IOException;

    /** True if {@link #unmap} deallocates (thin stores). */
    default boolean supportsUnmap() {
        return false;
    }

    /** Deallocates the range; later reads return zeros. */
    default void unmap(long lba, long blocks) throws IOException {
        throw new UnsupportedOperationException("unmap");
    }

    /** Flushes and closes; idempotent. */
    @Override
    void close() throws IOException;
}
