package org.jtarget.backstore.file;

import io.netty.buffer.ByteBuf;
import org.jtarget.backstore.block.PositionalIo;
import org.jtarget.backstore.spi.Backstore;
import org.jtarget.backstore.spi.BackstoreInfo;
import org.jtarget.backstore.spi.StoreException;
import org.jtarget.backstore.spi.StoreException.Kind;

import java.io.EOFException;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A LU backed by a regular file, through {@link FileChannel} positional I/O straight between the
 * file and the command's buffers ({@link ByteBuf#nioBuffers}: no copy through heap arrays).
 * Positional reads and writes are safe from several threads at once.
 *
 * <p>Write cache: with WCE=1 (default) writes land in the page cache and SYNCHRONIZE CACHE
 * ({@link #flush}) is an fdatasync ({@code force(false)}); FUA writes (SBC-4 5.40, FUA bit) and every
 * write with WCE=0 are followed by {@code force(false)} before they complete.
 *
 * <p>Errors: ENOSPC on a sparse file is SPACE_EXHAUSTED; a file that was deleted or replaced under
 * us is MEDIUM_GONE (checked on I/O errors and on flush, since Linux keeps serving an unlinked file
 * through the open descriptor and its data would be lost on restart); anything else is a
 * READ_ERROR or WRITE_ERROR. A file truncated under us (same inode) reads normally below its new
 * end and gives READ_ERROR past it; a write past it extends the file again (pwrite semantics; the
 * gap reads as zeros), which is what a rewrite of the lost blocks wants. Blocking: the core runs this store on the LU's I/O executor.
 *
 * <p>Thin (SBC-4 4.7.3): with {@code thin: true} the store unmaps by punching holes in the file
 * ({@link LinuxFileHoles}), which frees the disk space and reads back as zeros (LBPRZ), and
 * reports mapped and deallocated runs from SEEK_DATA/SEEK_HOLE for GET LBA STATUS.
 *
 * <p>Direct ({@code direct: true}): data goes through a second descriptor opened with O_DIRECT
 * ({@link PositionalIo}: pread/pwrite, page-aligned buffers in place, others through an aligned
 * bounce segment), bypassing the page cache; the channel stays for fdatasync, which O_DIRECT
 * still needs for file metadata and the disk's cache. Not {@code ExtendedOpenOption.DIRECT}: a
 * FileChannel opened with it demands the file system block size (4 KiB) for offsets and lengths,
 * so a 512-byte LU could not write a single block.
 */
public final class FileBackstore implements Backstore {

    private final String name;
    private final Path path;
    private final FileChannel channel;
    /** Non-blocking reads of cached blocks, or null (O_DIRECT stores, or the file could not be opened twice). */
    private final PageCacheReader pageCache;
    /** Replaced (never changed in place) when the store grows; read once per call. */
    private volatile BackstoreInfo info;
    private final Object fileKey;
    private final LinuxFileHoles holes;
    private final PositionalIo direct;
    private final AtomicBoolean closed = new AtomicBoolean();

    /** The file system's allocation unit that hole punching frees whole (ext4/xfs: 4 KiB pages). */
    static final int FS_BLOCK = 4096;

    /**
     * Wraps an open channel; {@link FileBackstores#open} is the way to create one from config.
     *
     * @param path     the real path (for identity and the vanished-file check)
     * @param channel  opened for read and write
     * @param info     geometry; identity seed {@code file:<real path>}
     * @param fileKey  the file's identity when opened (inode), or null if the file system has none
     * @param holes    hole operations on the same file for a thin store, or null (fully provisioned)
     * @param direct   an O_DIRECT descriptor of the same file for data I/O, or null (page cache, channel)
     */
    FileBackstore(String name, Path path, FileChannel channel, BackstoreInfo info, Object fileKey,
                  LinuxFileHoles holes, PositionalIo direct) {
        this.direct = direct;
        this.pageCache = direct == null ? PageCacheReader.open(path) : null;
        this.name = name;
        this.path = path;
        this.channel = channel;
        this.info = info;
        this.fileKey = fileKey;
        this.holes = holes;
    }

    @Override
    public BackstoreInfo info() {
        return info;
    }

    @Override
    public String name() {
        return name;
    }

    /** File I/O may block on the disk. */
    @Override
    public boolean isNonBlocking() {
        return false;
    }

    /** True if data I/O bypasses the page cache (O_DIRECT). */
    @Override
    public boolean directIo() {
        return direct != null;
    }

    /** The image file. */
    @Override
    public Path backingFile() {
        return path;
    }

    /** Cached blocks straight from the page cache on the caller's thread ({@link PageCacheReader}). */
    @Override
    public boolean tryReadNonBlocking(long lba, int blocks, ByteBuf dst) {
        int length = blocks * info.blockSize();
        long pos = lba * info.blockSize();
        if (pageCache == null || closed.get() || lba < 0 || pos + length > info.sizeBytes()
                || dst.writableBytes() < length || dst.nioBufferCount() != 1 || !dst.isDirect()) {
            return false;
        }
        int writerIndex = dst.writerIndex();
        // the command's own new buffer on this thread: its cached NIO view is ours to use
        if (!pageCache.tryRead(pos, dst.internalNioBuffer(writerIndex, length))) {
            return false;
        }
        dst.writerIndex(writerIndex + length);
        return true;
    }

    @Override
    public void read(long lba, int blocks, ByteBuf dst) throws IOException {
        int length = blocks * info.blockSize();
        long pos = checkRange(lba, length);
        int writerIndex = dst.writerIndex();
        dst.ensureWritable(length);
        try {
            if (direct != null) {
                direct.read(pos, length, dst, writerIndex);
                dst.writerIndex(writerIndex + length);
                return;
            }
            for (ByteBuffer bb : dst.nioBuffers(writerIndex, length)) {
                pos = readFully(bb, pos);
            }
        } catch (IOException e) {
            throw classify(e, false);
        }
        dst.writerIndex(writerIndex + length);
    }

    /**
     * Reads until {@code bb} is full. The end of the file inside the store's range means someone
     * truncated the file under us (same inode, so not MEDIUM_GONE): an {@link EOFException}, which
     * {@link #classify} makes a READ_ERROR (MEDIUM ERROR / UNRECOVERED READ ERROR), never zeros or
     * the buffer's old bytes passed off as data. Blocks before the new end still read.
     */
    private long readFully(ByteBuffer bb, long pos) throws IOException {
        while (bb.hasRemaining()) {
            int n = channel.read(bb, pos);
            if (n < 0) {
                throw new EOFException("end of " + path + " at byte " + pos
                        + " (the file is shorter than the store: truncated?)");
            }
            pos += n;
        }
        return pos;
    }

    @Override
    public void write(long lba, ByteBuf src, boolean fua) throws IOException {
        int length = src.readableBytes();
        if (length % info.blockSize() != 0) {
            throw new IllegalArgumentException("write of " + length + " bytes is not a whole number of blocks");
        }
        long pos = checkRange(lba, length);
        try {
            if (direct != null) {
                direct.write(pos, src, src.readerIndex(), length);
            } else {
                for (ByteBuffer bb : src.nioBuffers(src.readerIndex(), length)) {
                    while (bb.hasRemaining()) {
                        pos += channel.write(bb, pos);
                    }
                }
            }
            if (fua || !info.writeCacheEnabled()) {
                channel.force(false);
            }
        } catch (IOException e) {
            throw classify(e, true);
        }
    }

    /** fdatasync of the whole file (Linux has no cheaper ranged variant through FileChannel). */
    @Override
    public void flush(long lba, long blocks) throws IOException {
        ensureOpen();
        try {
            channel.force(false);
        } catch (IOException e) {
            throw classify(e, true);
        }
        if (!stillThere()) {
            throw gone(null);
        }
    }

    @Override
    public boolean supportsUnmap() {
        return holes != null;
    }

    /** Punches a hole: the file system frees whole blocks and zeroes partial ones (reads give zeros). */
    @Override
    public void unmap(long lba, long blocks) throws IOException {
        long pos = checkRange(lba, blocks * info.blockSize());
        try {
            holes.punchHole(pos, blocks * info.blockSize());
            if (!info.writeCacheEnabled()) {
                channel.force(false);
            }
        } catch (IOException e) {
            throw classify(e, true);
        }
    }

    @Override
    public int unmapGranularityBlocks() {
        return Math.max(1, FS_BLOCK / info.blockSize());
    }

    /** SEEK_DATA/SEEK_HOLE from the block's offset (lseek(2)); a fully provisioned store is all mapped. */
    @Override
    public ProvisioningRun provisioningRun(long lba, long maxBlocks) throws IOException {
        if (holes == null) {
            return new ProvisioningRun(true, maxBlocks);
        }
        long bs = info.blockSize();
        long pos = checkRange(lba, bs);
        long end = pos + maxBlocks * bs;
        try {
            long data = holes.nextData(pos);
            if (data == pos) {
                long hole = holes.nextHole(pos);
                return run(true, pos, hole < 0 ? end : Math.min(hole, end), bs);
            }
            return run(false, pos, data < 0 ? end : Math.min(data, end), bs);
        } catch (IOException e) {
            throw classify(e, false);
        }
    }

    /**
     * A thin store's data extents added up (SEEK_DATA/SEEK_HOLE from the start: two lseeks per
     * extent, so a file in many pieces takes a while; the management API's thread calls it, never
     * an event loop). -1 for a fully provisioned store.
     */
    @Override
    public long allocatedBytes() throws IOException {
        if (holes == null) {
            return -1;
        }
        ensureOpen();
        long end = info.sizeBytes();
        long total = 0;
        try {
            for (long data = holes.nextData(0); data >= 0 && data < end; ) {
                long hole = holes.nextHole(data);
                long until = hole < 0 ? end : Math.min(hole, end);
                total += until - data;
                data = until >= end ? -1 : holes.nextData(until);
            }
        } catch (IOException e) {
            throw classify(e, false);
        }
        return total;
    }

    /** A run from {@code pos} to {@code until}, in whole blocks (at least one). */
    private static ProvisioningRun run(boolean mapped, long pos, long until, long blockSize) {
        return new ProvisioningRun(mapped, Math.max(1, (until - pos) / blockSize));
    }

    /**
     * Extends the file (ftruncate: the new blocks are a hole, they read as zeros and take no disk
     * space until written), makes the new length durable, and only then reports the new size, so
     * no range check admits a block the file does not have yet. Growing never moves data, so
     * reads and writes in flight are untouched. Serialised: two grows at once would race on the
     * length.
     */
    @Override
    public synchronized void grow(long blockCount) throws IOException {
        ensureOpen();
        BackstoreInfo now = info;
        now.requireMoreBlocks("file store " + name, blockCount);
        if (!stillThere()) {
            throw gone(null);
        }
        long bytes = blockCount * now.blockSize();
        try (RandomAccessFile file = new RandomAccessFile(path.toFile(), "rw")) {
            file.setLength(bytes);
            file.getChannel().force(true); // the length is metadata: fsync, not fdatasync
        } catch (IOException e) {
            throw classify(e, true);
        }
        info = now.withBlockCount(blockCount);
    }

    /** Flushes and closes; idempotent. */
    @Override
    public void close() throws IOException {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try (channel; LinuxFileHoles h = holes; PositionalIo d = direct; PageCacheReader p = pageCache) {
            if (channel.isOpen()) {
                channel.force(false);
            }
        }
    }

    /** The SCSI meaning of an I/O failure (StoreException kinds map to one sense reason each). */
    StoreException classify(IOException e, boolean writing) {
        if (e instanceof StoreException se) {
            return se;
        }
        if (e instanceof ClosedChannelException || !stillThere()) {
            return gone(e);
        }
        String message = Objects.requireNonNullElse(e.getMessage(), "");
        if (message.contains("No space left on device") || message.contains("Disk quota exceeded")) {
            return new StoreException(Kind.SPACE_EXHAUSTED, "file store " + name + ": " + message, e);
        }
        return new StoreException(writing ? Kind.WRITE_ERROR : Kind.READ_ERROR,
                "file store " + name + ": " + (writing ? "write" : "read") + " failed: " + message, e);
    }

    /** True while the path still names the file we opened (not deleted, not replaced). */
    private boolean stillThere() {
        try {
            BasicFileAttributes attrs = Files.readAttributes(path, BasicFileAttributes.class);
            return fileKey == null || fileKey.equals(attrs.fileKey());
        } catch (IOException e) {
            return false;
        }
    }

    private StoreException gone(Throwable cause) {
        return new StoreException(Kind.MEDIUM_GONE, "file store " + name + ": " + path + " is gone", cause);
    }

    private long checkRange(long lba, long bytes) throws StoreException {
        ensureOpen();
        BackstoreInfo now = info; // one size for the whole check, also while the store grows
        long pos = lba * now.blockSize();
        if (lba < 0 || lba > now.blockCount() || pos + bytes > now.sizeBytes()) {
            throw new IllegalArgumentException("range lba " + lba + " + " + bytes + " bytes is outside " + name);
        }
        return pos;
    }

    private void ensureOpen() throws StoreException {
        if (closed.get()) {
            throw gone(null);
        }
    }
}
