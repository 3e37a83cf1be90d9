package org.jtarget.backstore.memory;

import io.netty.buffer.ByteBuf;
import org.jtarget.buffer.ByteBufCopy;
import org.jtarget.buffer.ScatterList;
import org.jtarget.backstore.spi.Backstore;
import org.jtarget.backstore.spi.BackstoreInfo;
import org.jtarget.backstore.spi.StoreException;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * A RAM disk: one anonymous mapping ({@link AnonymousMemory}) used in fixed chunks (1 MiB by
 * default). A thin store commits a chunk on the first write that touches it, taking it from the
 * daemon's {@link MemoryBudget} ({@code daemon.memory-limit}) first, and gives its pages back to
 * the kernel and the budget on UNMAP and close; a fully provisioned store takes and commits
 * everything when it opens. Chunks never written (or unmapped) read as zeros, which is what a
 * thin LU must return for deallocated blocks (SBC-4 4.7.4.5, LBPRZ=1). A write that finds the
 * budget spent fails with SPACE_EXHAUSTED: DATA PROTECT / SPACE ALLOCATION FAILED WRITE PROTECT
 * on a thin LU (SBC-4 4.7.3.6), and the daemon keeps serving.
 *
 * <p>Concurrency: each chunk has a state word: ALLOCATED, FREEING, and the number of writers
 * inside it. A writer pins the chunk (never while it is being freed), allocates it if needed and
 * copies; an unmap frees a chunk only when no writer is inside it, so a write never lands in a
 * chunk whose pages are being discarded and the budget counts exactly the committed chunks.
 * Readers do not pin: the mapping stays valid, so a read racing an unmap sees old data or zeros.
 *
 * <p>Hot path: no locks; per chunk touched one CAS pair (writes only) and one small
 * {@link ByteBuffer#slice(int, int)} view.
 */
public final class MemoryBackstore implements Backstore {

    /** Default chunk: big enough that the table stays small (1024 entries per GiB), small enough to stay sparse. */
    public static final int DEFAULT_CHUNK_SIZE = 1 << 20;

    private static final VarHandle STATE = MethodHandles.arrayElementVarHandle(int[].class);
    private static final int ALLOCATED = 1 << 30;
    private static final int FREEING = 1 << 29;
    private static final int PINS = FREEING - 1;

    private final String name;
    private final BackstoreInfo info;
    private final int chunkSize;
    private final int chunkShift;
    private final long sizeBytes;
    private final MemoryBudget budget;
    private final AnonymousMemory memory;
    private final int[] states;
    private final AtomicReferenceArray<ByteBuffer> views;
    private final AtomicInteger allocated = new AtomicInteger();
    private volatile boolean closed;

    /** A store outside any daemon budget (tests, tools). */
    public MemoryBackstore(String name, int blockSize, long blockCount, boolean thin, boolean writeCache,
                           int chunkSize) throws StoreException {
        this(name, blockSize, blockCount, thin, writeCache, chunkSize, MemoryBudget.unlimited());
    }

    /**
     * @param name       config name (identity seed {@code memory:<name>})
     * @param blockSize  512 or 4096
     * @param blockCount number of blocks
     * @param thin       true: allocate on write and deallocate on unmap; false: allocate everything now
     * @param writeCache WCE reported to initiators (the memory itself never needs a flush)
     * @param chunkSize  a power of two, a multiple of blockSize
     * @param budget     the memory all memory stores share; a fully provisioned store takes its whole
     *                   size now
     * @throws StoreException SPACE_EXHAUSTED if a fully provisioned store does not fit the budget
     */
    public MemoryBackstore(String name, int blockSize, long blockCount, boolean thin, boolean writeCache,
                           int chunkSize, MemoryBudget budget) throws StoreException {
        if (Integer.bitCount(chunkSize) != 1 || chunkSize % blockSize != 0) {
            throw new IllegalArgumentException("chunk size " + chunkSize + " must be a power of two multiple of " + blockSize);
        }
        this.name = name;
        this.chunkSize = chunkSize;
        this.chunkShift = Integer.numberOfTrailingZeros(chunkSize);
        this.sizeBytes = blockCount * blockSize;
        this.budget = budget;
        long chunkCount = (sizeBytes + chunkSize - 1) >>> chunkShift;
        if (chunkCount > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("memory store too large for chunk size " + chunkSize);
        }
        this.states = new int[(int) chunkCount];
        this.views = new AtomicReferenceArray<>((int) chunkCount);
        this.info = new BackstoreInfo(blockSize, blockCount, writeCache, thin, false, 0, 0, "memory:" + name);
        if (!thin && !budget.tryReserve(sizeBytes)) {
            throw new StoreException(StoreException.Kind.SPACE_EXHAUSTED, "memory store " + name + " needs "
                    + sizeBytes + " bytes; daemon.memory-limit is " + budget.limit() + " with " + budget.used()
                    + " in use", null);
        }
        this.memory = map(sizeBytes, thin);
        if (!thin) {
            memory.segment().fill((byte) 0); // commit every page now: a fully provisioned store never runs out
            java.util.Arrays.fill(states, ALLOCATED);
            allocated.set((int) chunkCount);
        }
    }

    private AnonymousMemory map(long size, boolean thin) throws StoreException {
        try {
            return AnonymousMemory.map(size);
        } catch (OutOfMemoryError e) {
            if (!thin) {
                budget.release(size);
            }
            throw new StoreException(StoreException.Kind.SPACE_EXHAUSTED,
                    "memory store " + name + ": cannot map " + size + " bytes", e);
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
            if ((state(index) & ALLOCATED) == 0) {
                ByteBufCopy.appendZeros(dst, n);
            } else {
                copyOut(view(index), offset, dst, n);
            }
            pos += n;
        }
    }

    @Override
    public void write(long lba, ByteBuf src, boolean fua) throws IOException {
        write(lba, src.readableBytes(), src, null);
    }

    /**
     * The WRITE path: each segment is copied from the fabric's receive buffer straight into the
     * chunk ({@link ScatterList#copyTo}: no view objects on the receiving event loop).
     */
    @Override
    public void write(long lba, ScatterList src, int length, boolean fua) throws IOException {
        write(lba, length, null, src);
    }

    /** Copies {@code length} bytes from exactly one of {@code buf} (its readable bytes) or {@code list}. */
    private void write(long lba, int length, ByteBuf buf, ScatterList list) throws IOException {
        if (length % info.blockSize() != 0) {
            throw new IllegalArgumentException("write of " + length + " bytes is not a whole number of blocks");
        }
        long pos = checkRange(lba, length);
        int done = 0;
        while (done < length) {
            int index = (int) (pos >>> chunkShift);
            int offset = (int) (pos & (chunkSize - 1));
            int n = Math.min(chunkSize - offset, length - done);
            pin(index);
            try {
                ensureAllocated(index);
                if (list != null) {
                    list.copyTo(done, view(index), offset, n);
                } else {
                    copyIn(buf, buf.readerIndex() + done, view(index), offset, n);
                }
            } finally {
                unpin(index);
            }
            done += n;
            pos += n;
        }
        if (closed) {
            freeAll(); // a write that raced close must not keep memory from the budget
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
        boolean mapped = mapped((int) (pos >>> chunkShift));
        long next = ((pos >>> chunkShift) + 1) << chunkShift;
        while (next < end && mapped((int) (next >>> chunkShift)) == mapped) {
            next += chunkSize;
        }
        return new ProvisioningRun(mapped, (Math.min(next, end) - pos) / info.blockSize());
    }

    /**
     * Frees the chunks the range covers whole (their pages go back to the kernel and their bytes
     * to the budget) and zeroes the partial ones at its edges.
     */
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
                free(index);
            } else {
                zero(index, offset, n);
            }
            pos += n;
        }
    }

    /** Gives every chunk back to the kernel and the budget. Idempotent. */
    @Override
    public void close() {
        closed = true;
        freeAll();
    }

    private void freeAll() {
        for (int i = 0; i < states.length; i++) {
            free(i);
        }
    }

    // ---- chunk states ----

    private int state(int index) {
        return (int) STATE.getVolatile(states, index);
    }

    private boolean mapped(int index) {
        return (state(index) & ALLOCATED) != 0;
    }

    /** Enters chunk {@code index} as a writer; waits (briefly) while an unmap frees it. */
    private void pin(int index) {
        for (;;) {
            int s = state(index);
            if ((s & FREEING) != 0) {
                Thread.onSpinWait();
            } else if (STATE.compareAndSet(states, index, s, s + 1)) {
                return;
            }
        }
    }

    private void unpin(int index) {
        int before = (int) STATE.getAndAdd(states, index, -1);
        assert (before & PINS) != 0;
    }

    /** Commits a pinned chunk if it is not yet: takes its bytes from the budget first. */
    private void ensureAllocated(int index) throws StoreException {
        if ((state(index) & ALLOCATED) != 0) {
            return;
        }
        long bytes = chunkBytes(index);
        if (!budget.tryReserve(bytes)) {
            budget.refused(name, bytes);
            throw new StoreException(StoreException.Kind.SPACE_EXHAUSTED, "memory store " + name
                    + ": daemon.memory-limit reached", null);
        }
        int before = (int) STATE.getAndBitwiseOr(states, index, ALLOCATED);
        if ((before & ALLOCATED) != 0) {
            budget.release(bytes); // another writer allocated it first
        } else {
            allocated.incrementAndGet();
        }
    }

    /** Frees an allocated chunk once no writer is inside it; nothing if it is not allocated. */
    private void free(int index) {
        for (;;) {
            int s = state(index);
            if ((s & ALLOCATED) == 0) {
                return; // not allocated, or another unmap is freeing it
            }
            if ((s & PINS) != 0) {
                Thread.onSpinWait(); // a writer is copying into it: a bounded wait
            } else if (STATE.compareAndSet(states, index, s, FREEING)) {
                break;
            }
        }
        long bytes = chunkBytes(index);
        memory.discard((long) index << chunkShift, bytes);
        STATE.setVolatile(states, index, 0);
        allocated.decrementAndGet();
        budget.release(bytes);
    }

    /** Zeroes part of a chunk that stays allocated (an unmap that does not cover it whole). */
    private void zero(int index, int offset, int n) {
        pin(index);
        try {
            if ((state(index) & ALLOCATED) != 0) {
                memory.segment().asSlice(((long) index << chunkShift) + offset, n).fill((byte) 0);
            }
        } finally {
            unpin(index);
        }
    }

    /** The chunk's size: the last one may be shorter so the store is exactly its size. */
    private long chunkBytes(int index) {
        return Math.min(chunkSize, sizeBytes - ((long) index << chunkShift));
    }

    /**
     * Appends {@code n} bytes of the chunk view at {@code offset} to {@code dst} without a
     * per-call view: an absolute bulk put (Java 16+) into the buffer's internal NIO buffer, which
     * Netty caches per pooled buffer. {@code chunk.slice(...)} cost a 64-byte DirectByteBuffer per
     * I/O. Absolute operations leave the shared view's position alone, so threads may share it.
     */
    private static void copyOut(ByteBuffer chunk, int offset, ByteBuf dst, int n) {
        dst.ensureWritable(n);
        int at = dst.writerIndex();
        if (dst.nioBufferCount() == 1) {
            ByteBuffer d = dst.internalNioBuffer(at, n);
            d.put(d.position(), chunk, offset, n);
            dst.writerIndex(at + n);
        } else {
            dst.writeBytes(chunk.slice(offset, n));
        }
    }

    /** Copies {@code n} bytes of {@code src} at {@code index} into the chunk view (see {@link #copyOut}). */
    private static void copyIn(ByteBuf src, int index, ByteBuffer chunk, int offset, int n) {
        if (src.nioBufferCount() == 1) {
            ByteBuffer s = src.internalNioBuffer(index, n);
            chunk.put(offset, s, s.position(), n);
        } else {
            src.getBytes(index, chunk.slice(offset, n));
        }
    }

    /** A ByteBuffer over the chunk, made once on first use (the mapping outlives it). */
    private ByteBuffer view(int index) {
        ByteBuffer v = views.get(index);
        if (v == null) {
            v = memory.segment().asSlice((long) index << chunkShift, chunkBytes(index)).asByteBuffer();
            views.set(index, v);
        }
        return v;
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
