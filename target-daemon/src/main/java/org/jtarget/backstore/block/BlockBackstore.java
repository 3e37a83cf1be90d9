package org.jtarget.backstore.block;

import io.netty.buffer.ByteBuf;
import org.jtarget.backstore.spi.Backstore;
import org.jtarget.backstore.spi.BackstoreInfo;
import org.jtarget.backstore.spi.StoreException;
import org.jtarget.backstore.spi.StoreException.Kind;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A LU backed by a whole Linux block device or partition, opened exclusively (O_EXCL: nothing else
 * may mount or claim it while we serve it) and by default with O_DIRECT, so data bypasses the page
 * cache and the initiator's own cache is the only host cache. I/O is pread/pwrite through
 * {@link PositionalIo} (zero copy for page-aligned buffers, else an aligned bounce segment).
 *
 * <p>Write cache: O_DIRECT does not make the device's volatile cache durable, so SYNCHRONIZE CACHE
 * ({@link #flush}) is an fdatasync(2), which issues the device's cache flush; FUA writes (SBC-4
 * 5.40) and every write with WCE=0 are followed by one before they complete.
 *
 * <p>Thin (SBC-4 4.7.3, {@code thin: true}): UNMAP is fallocate(FALLOC_FL_PUNCH_HOLE |
 * FALLOC_FL_KEEP_SIZE) on the device, which the kernel turns into a write-zeroes request that may
 * deallocate (NVMe Write Zeroes with DEAC, SCSI WRITE SAME with UNMAP, a loop device punching a
 * hole in its file) and that guarantees the range reads as zeros afterwards. A plain discard
 * (BLKDISCARD) would not: Linux gives no such guarantee for discarded data, and the store promises
 * LBPRZ = 1 (SBC-4 5.20.2: deallocated blocks read as zeros). So thin needs a device that can
 * write zeroes ({@link BlockQueueLimits#writeZeroesMaxBytes}), checked at open; should the device
 * refuse it later (EOPNOTSUPP), the range is zeroed without deallocation (FALLOC_FL_ZERO_RANGE),
 * which keeps the LBPRZ promise. GET LBA STATUS reports every block mapped: a block device cannot
 * tell (SBC-4 allows "mapped or unknown").
 *
 * <p>Errors (errno → {@link Kind}): EIO → READ_ERROR / WRITE_ERROR; ENOSPC, EDQUOT (a thin device
 * underneath out of space) → SPACE_EXHAUSTED; ENODEV, ENXIO (device removed), EBADF (store closed)
 * → MEDIUM_GONE. Blocking: the core runs this store on the LU's I/O executor.
 */
public final class BlockBackstore implements Backstore {

    private final String name;
    private final PositionalIo io;
    private final BackstoreInfo info;
    private final int unmapGranularityBlocks;
    private final AtomicBoolean closed = new AtomicBoolean();

    /**
     * Wraps an open device; {@link BlockBackstores#open} is the way to create one from config.
     *
     * @param io                     the device, opened O_RDWR | O_EXCL (and O_DIRECT when direct)
     * @param info                   geometry from the device's ioctls
     * @param unmapGranularityBlocks the device's discard granularity in blocks (1 if unknown)
     */
    BlockBackstore(String name, PositionalIo io, BackstoreInfo info, int unmapGranularityBlocks) {
        this.name = name;
        this.io = io;
        this.info = info;
        this.unmapGranularityBlocks = Math.max(1, unmapGranularityBlocks);
    }

    @Override
    public BackstoreInfo info() {
        return info;
    }

    @Override
    public String name() {
        return name;
    }

    /** Device I/O blocks. */
    @Override
    public boolean isNonBlocking() {
        return false;
    }

    /** True if the device was opened with O_DIRECT. */
    @Override
    public boolean directIo() {
        return io.direct();
    }

    @Override
    public void read(long lba, int blocks, ByteBuf dst) throws IOException {
        int length = blocks * info.blockSize();
        long offset = checkRange(lba, length);
        int writerIndex = dst.writerIndex();
        dst.ensureWritable(length);
        try {
            io.read(offset, length, dst, writerIndex);
        } catch (IOException e) {
            throw classify(e, false);
        }
        dst.writerIndex(writerIndex + length);
    }

    @Override
    public void write(long lba, ByteBuf src, boolean fua) throws IOException {
        int length = src.readableBytes();
        if (length % info.blockSize() != 0) {
            throw new IllegalArgumentException("write of " + length + " bytes is not a whole number of blocks");
        }
        long offset = checkRange(lba, length);
        try {
            io.write(offset, src, src.readerIndex(), length);
            if (fua || !info.writeCacheEnabled()) {
                io.fdatasync();
            }
        } catch (IOException e) {
            throw classify(e, true);
        }
    }

    /** fdatasync(2) of the device: the kernel has no ranged flush for a block device. */
    @Override
    public void flush(long lba, long blocks) throws IOException {
        ensureOpen();
        try {
            io.fdatasync();
        } catch (IOException e) {
            throw classify(e, true);
        }
    }

    @Override
    public boolean supportsUnmap() {
        return info.thin();
    }

    /** Zeroes the range letting the device deallocate it (see the class comment for why not BLKDISCARD). */
    @Override
    public void unmap(long lba, long blocks) throws IOException {
        long length = blocks * info.blockSize();
        long offset = checkRange(lba, length);
        try {
            try {
                io.fallocate(NativeIo.FALLOC_FL_PUNCH_HOLE | NativeIo.FALLOC_FL_KEEP_SIZE, offset, length);
            } catch (ErrnoException e) {
                if (e.errno() != NativeIo.EOPNOTSUPP) {
                    throw e;
                }
                io.fallocate(NativeIo.FALLOC_FL_ZERO_RANGE | NativeIo.FALLOC_FL_KEEP_SIZE, offset, length);
            }
            if (!info.writeCacheEnabled()) {
                io.fdatasync();
            }
        } catch (IOException e) {
            throw classify(e, true);
        }
    }

    @Override
    public int unmapGranularityBlocks() {
        return unmapGranularityBlocks;
    }

    /** Flushes and closes; idempotent. */
    @Override
    public void close() throws IOException {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try (io) {
            io.fdatasync();
        }
    }

    /** The SCSI meaning of a failure on store {@code name} (one {@link Kind} per errno class). */
    static StoreException classify(String name, IOException e, boolean writing) {
        if (e instanceof StoreException se) {
            return se;
        }
        String message = "block store " + name + ": " + e.getMessage();
        int errno = e instanceof ErrnoException ee ? ee.errno() : NativeIo.EIO;
        return switch (errno) {
            case NativeIo.ENOSPC, NativeIo.EDQUOT -> new StoreException(Kind.SPACE_EXHAUSTED, message, e);
            case NativeIo.ENODEV, NativeIo.ENXIO, NativeIo.EBADF -> new StoreException(Kind.MEDIUM_GONE, message, e);
            default -> new StoreException(writing ? Kind.WRITE_ERROR : Kind.READ_ERROR, message, e);
        };
    }

    private StoreException classify(IOException e, boolean writing) {
        return classify(name, e, writing);
    }

    private long checkRange(long lba, long bytes) throws StoreException {
        ensureOpen();
        long offset = lba * info.blockSize();
        if (lba < 0 || lba > info.blockCount() || offset + bytes > info.sizeBytes()) {
            throw new IllegalArgumentException("range lba " + lba + " + " + bytes + " bytes is outside " + name);
        }
        return offset;
    }

    private void ensureOpen() throws StoreException {
        if (closed.get()) {
            throw new StoreException(Kind.MEDIUM_GONE, "block store " + name + " is closed", null);
        }
    }
}
