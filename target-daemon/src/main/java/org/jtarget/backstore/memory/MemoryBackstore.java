package org.jtarget.backstore.memory;

import io.netty.buffer.ByteBuf;
import org.jtarget.backstore.spi.Backstore;
import org.jtarget.backstore.spi.BackstoreInfo;
import org.jtarget.backstore.spi.StoreException;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * A RAM disk: off-heap memory in fixed chunks (1 MiB by default), each allocated on the first write
 * that touches it, so a 1 GiB LUN costs nothing until written. Chunks never written (or unmapped)
 * read as zeros, which is what a thin LU must return for deallocated blocks (SBC-4 4.7.4.5, LBPRZ=1).
 *
 * <p>Concurrency: chunks live in an {@link AtomicReferenceArray}; a first write installs a chunk with
 * compare-and-set, so two writers racing for the same chunk agree on one. Chunks come from
 * {@link Arena#ofAuto()}: an unmapped chunk is dropped from the table and freed by the GC once no
 * reader still holds it, so a read racing an unmap never touches freed memory. Direct memory counts
 * against {@code -XX:MaxDirectMemorySize}; running out is reported as SPACE_EXHAUSTED.
 *
 * <p>Hot path: one small {@link ByteBuffer#slice(int, int)} view per chunk touched, no locks.
 */
public final class MemoryBackstore implements Backstore {

    /** Default chunk: big enough that the table stays small (1024 entries per GiB), small enough to stay sparse. */
    public static final int DEFAULT_CHUNK_SIZE = 1 << 20;

    private final String name;
    private final BackstoreInfo info;
    private final int chunkSize;
    private final int chunkShift;
    private final long sizeBytes;
    private final AtomicReferenceArray<ByteBuffer> chunks;
    private final AtomicInteger allocated = new AtomicInteger();
    private volatile boolean closed;

    /**
     * @param name       config name (identity seed {@code memory:<name>})
     * @param blockSize  512 or 4096
     * @param blockCount number of blocks
     * @param thin       true: allocate on write and deallocate on unmap; false: allocate everything now
     * @param writeCache WCE reported to initiators (the memory itself never needs a flush)
     * @param chunkSize  a power of two, a multiple of blockSize
     */
    public MemoryBackstore(String name, int blockSize, long blockCount, boolean thin, boolean writeCache,
                           int chunkSize) throws StoreException {
        if (Integer.bitCount(chunkSize) != 1 || chunkSize % blockSize != 0) {
            throw new IllegalArgumentException("chunk size " + chunkSize + " must be a power of two multiple of " + blockSize);
        }
        this.name = name;
        this.chunkSize = chunkSize;
        this.chunkShift = Integer.numberOfTrailingZeros(chunkSize);
        this.sizeBytes = blockCount * blockSize;
        long chunkCount = (sizeBytes + chunkSize - 1) >>> chunkShift;
        if (chunkCount > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("memory store too large for chunk size " + chunkSize);
        }
        this.chunks = new AtomicReferenceArray<>((int) chunkCount);
        this.info = new BackstoreInfo(blockSize, blockCount, writeCache, thin, false, 0, 0, "memory:" + name);
        if (!thin) {
            for (int i = 0; i < chunkCount; i++) {
                chunkForWrite(i);
            }
        }
    }

    @Override
    public BackstoreInfo info() {
        return info;
    }

    @Override
    public String name() {
        return name;
    }

    /** Memory copies never block. */
    @Override
    public boolean isNonBlocking() {
        return true;
    }

    /** Number of chunks currently allocated (for tests and status output). */
    public int allocatedChunks() {
        return allocated.get();
    }

    /** The chunk size in bytes. */
    public int chunkSize() {
        return chunkSize;
    }

    @Override
    public void read(long lba, int blocks, ByteBuf dst) throws IOException {
        long pos = checkRange(lba, (long) blocks * info.blockSize());
        long end = pos + (long) blocks * info.blockSize();
        while (pos < end) {
            int index = (int) (pos >>> chunkShift);
            int offset = (int) (pos & (chunkSize - 1));
            int n = (int) Math.min(chunkSize - offset, end - pos);
            ByteBuffer chunk = chunks.get(index);
            if (chunk == null) {
                dst.writeZero(n);
            } else {
                dst.writeBytes(chunk.slice(offset, n));
            }
            pos += n;
        }
    }

    @Override
    public void write(long lba, ByteBuf src, boolean fua) throws IOException {
        int length = src.readableBytes();
        if (length % info.blockSize() != 0) {
            throw new IllegalArgumentException("write of " + length + " bytes is not a whole number of blocks");
        }
        long pos = checkRange(lba, length);
        int srcIndex = src.readerIndex();
        int done = 0;
        while (done < length) {
            int index = (int) (pos >>> chunkShift);
            int offset = (int) (pos & (chunkSize - 1));
            int n = Math.min(chunkSize - offset, length - done);
            src.getBytes(srcIndex + done, chunkForWrite(index).slice(offset, n));
            done += n;
            pos += n;
        }
    }

    /** Memory is the medium: nothing to make stable. */
    @Override
    public void flush(long lba, long blocks) throws IOException {
        ensureOpen();
    }

    @Override
    public boolean supportsUnmap() {
        return info.thin();
    }

    /** One chunk: the memory store allocates and frees whole chunks. */
    @Override
    public int unmapGranularityBlocks() {
        return chunkSize / info.blockSize();
    }

    /** Mapped where a chunk is allocated, deallocated where none is (chunk by chunk, no copying). */
    @Override
    public ProvisioningRun provisioningRun(long lba, long maxBlocks) throws IOException {
        long pos = checkRange(lba, maxBlocks * info.blockSize());
        long end = pos + maxBlocks * info.blockSize();
        boolean mapped = chunks.get((int) (pos >>> chunkShift)) != null;
        long next = ((pos >>> chunkShift) + 1) << chunkShift;
        while (next < end && (chunks.get((int) (next >>> chunkShift)) != null) == mapped) {
            next += chunkSize;
        }
        return new ProvisioningRun(mapped, (Math.min(next, end) - pos) / info.blockSize());
    }

    /** Frees the chunks the range covers whole and zeroes the partial ones at its edges. */
    @Override
    public void unmap(long lba, long blocks) throws IOException {
        if (!info.thin()) {
            throw new UnsupportedOperationException("unmap on a fully provisioned memory store");
        }
        long pos = checkRange(lba, blocks * info.blockSize());
        long end = pos + blocks * info.blockSize();
        while (pos < end) {
            int index = (int) (pos >>> chunkShift);
            int offset = (int) (pos & (chunkSize - 1));
            int n = (int) Math.min(chunkSize - offset, end - pos);
            if (offset == 0 && (n == chunkSize || pos + n == sizeBytes)) {
                if (chunks.getAndSet(index, null) != null) {
                    allocated.decrementAndGet();
                }
            } else {
                ByteBuffer chunk = chunks.get(index);
                if (chunk != null) {
                    MemorySegment.ofBuffer(chunk.slice(offset, n)).fill((byte) 0);
                }
            }
            pos += n;
        }
    }

    /** Drops every chunk; the memory returns when the GC collects it. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (int i = 0; i < chunks.length(); i++) {
            chunks.set(i, null);
        }
        allocated.set(0);
    }

    private ByteBuffer chunkForWrite(int index) throws StoreException {
        ByteBuffer chunk = chunks.get(index);
        if (chunk != null) {
            return chunk;
        }
        ByteBuffer fresh = allocateChunk(index);
        ByteBuffer winner = chunks.compareAndExchange(index, null, fresh);
        if (winner != null) {
            return winner;
        }
        allocated.incrementAndGet();
        return fresh;
    }

    /** A zeroed, page-aligned chunk; the last one may be shorter so the store is exactly its size. */
    private ByteBuffer allocateChunk(int index) throws StoreException {
        long start = (long) index << chunkShift;
        int size = (int) Math.min(chunkSize, sizeBytes - start);
        try {
            return Arena.ofAuto().allocate(size, 4096).asByteBuffer();
        } catch (OutOfMemoryError e) {
            throw new StoreException(StoreException.Kind.SPACE_EXHAUSTED,
                    "memory store " + name + ": no memory for another chunk", e);
        }
    }

    /** Byte position of {@code lba}, after checking the range is inside the store and the store is open. */
    private long checkRange(long lba, long bytes) throws StoreException {
        ensureOpen();
        long pos = lba * info.blockSize();
        if (lba < 0 || bytes < 0 || lba > info.blockCount() || pos + bytes > sizeBytes) {
            throw new IllegalArgumentException("range lba " + lba + " + " + bytes + " bytes is outside " + name);
        }
        return pos;
    }

    private void ensureOpen() throws StoreException {
        if (closed) {
            throw new StoreException(StoreException.Kind.MEDIUM_GONE, "memory store " + name + " is closed", null);
        }
    }
}
