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
import java.util.concurrent.atomic.AtomicLong;
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
 * <p>Growing ({@link #grow}, a live resize): the store is a list of extents, the first of the size it
 * opened with and one more per grow, each its own mapping with its own chunk table (chunks count
 * from the extent's start). Extents are only ever appended, so a chunk never moves and every chunk
 * state word stays where writers and unmaps meet; the new extent is published before the new size,
 * so a range check that admits a block always finds its extent.
 *
 * <p>Hot path: no locks; per chunk touched one CAS pair (writes only), a look-up among the
 * extents (one, unless the store grew) and one small {@link ByteBuffer#slice(int, int)} view.
 */
public final class MemoryBackstore implements Backstore {

    /** Default chunk: big enough that the table stays small (1024 entries per GiB), small enough to stay sparse. */
    public static final int DEFAULT_CHUNK_SIZE = 1 << 20;

    private static final VarHandle STATE = MethodHandles.arrayElementVarHandle(int[].class);
    private static final int ALLOCATED = 1 << 30;
    private static final int FREEING = 1 << 29;
    private static final int PINS = FREEING - 1;

    private final String name;
    private final int chunkSize;
    private final int chunkShift;
    private final MemoryBudget budget;
    /** Replaced (by a grow) only after the extent holding the new blocks is in {@link #extents}. */
    private volatile BackstoreInfo info;
    /** In ascending order of their start, covering the store without gaps; only ever appended to. */
    private volatile Extent[] extents;
    private final AtomicInteger allocated = new AtomicInteger();
    private final AtomicLong allocatedBytes = new AtomicLong();
    private volatile boolean closed;

    /**
     * One mapping and its chunk table: the bytes {@code [start, start + size)} of the store.
     *
     * @param states one state word per chunk (ALLOCATED, FREEING, writers inside)
     * @param views  a ByteBuffer per chunk, made on first use
     */
    private record Extent(long start, long size, AnonymousMemory memory, int[] states,
                          AtomicReferenceArray<ByteBuffer> views) {

        long end() {
            return start + size;
        }
    }

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
        this.budget = budget;
        this.info = new BackstoreInfo(blockSize, blockCount, writeCache, thin, false, 0, 0, "memory:" + name);
        this.extents = new Extent[] {newExtent(0, blockCount * blockSize, thin)};
    }

    /**
     * Maps {@code size} more bytes at {@code start}; a fully provisioned store takes them from the
     * budget and commits them now, so it never runs out later.
     */
    private Extent newExtent(long start, long size, boolean thin) throws StoreException {
        long chunkCount = (size + chunkSize - 1) >>> chunkShift;
        if (chunkCount > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("memory store too large for chunk size " + chunkSize);
        }
        if (!thin && !budget.tryReserve(size)) {
            throw new StoreException(StoreException.Kind.SPACE_EXHAUSTED, "memory store " + name + " needs "
                    + size + " more bytes; daemon.memory-limit is " + budget.limit() + " with " + budget.used()
                    + " in use", null);
        }
        Extent e = new Extent(start, size, map(size, thin), new int[(int) chunkCount],
                new AtomicReferenceArray<>((int) chunkCount));
        if (!thin) {
            e.memory().segment().fill((byte) 0); // commit every page now: a fully provisioned store never runs out
            java.util.Arrays.fill(e.states(), ALLOCATED);
            allocated.addAndGet((int) chunkCount);
            allocatedBytes.addAndGet(size);
        }
        return e;
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

    /** Bytes of the chunks currently allocated: the RAM the store holds (thin usage); no blocking. */
    @Override
    public long allocatedBytes() {
        return allocatedBytes.get();
    }

    /** The chunk size in bytes. */
    public int chunkSize() {
        return chunkSize;
    }

    /**
     * Appends an extent for the new blocks (zeros; a fully provisioned store takes their memory
     * from the budget now, and refuses with SPACE_EXHAUSTED if it does not fit), then reports the
     * new size. Serialised against other grows; I/O runs on meanwhile.
     */
    @Override
    public synchronized void grow(long blockCount) throws IOException {
        ensureOpen();
        BackstoreInfo now = info;
        now.requireMoreBlocks("memory store " + name, blockCount);
        Extent[] before = extents;
        Extent added = newExtent(now.sizeBytes(), (blockCount - now.blockCount()) * now.blockSize(), now.thin());
        Extent[] after = java.util.Arrays.copyOf(before, before.length + 1);
        after[before.length] = added;
        extents = after;
        info = now.withBlockCount(blockCount);
    }

    @Override
    public void read(long lba, int blocks, ByteBuf dst) throws IOException {
        long pos = checkRange(lba, (long) blocks * info.blockSize());
        long end = pos + (long) blocks * info.blockSize();
        Extent[] all = extents;
        while (pos < end) {
            Extent e = extentAt(all, pos);
            int index = chunkIndex(e, pos);
            int offset = chunkOffset(e, pos);
            int n = (int) Math.min(chunkBytes(e, index) - offset, end - pos);
            if ((state(e, index) & ALLOCATED) == 0) {
                ByteBufCopy.appendZeros(dst, n);
            } else {
                copyOut(view(e, index), offset, dst, n);
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
        Extent[] all = extents;
        int done = 0;
        while (done < length) {
            Extent e = extentAt(all, pos);
            int index = chunkIndex(e, pos);
            int offset = chunkOffset(e, pos);
            int n = (int) Math.min(chunkBytes(e, index) - offset, length - done);
            pin(e, index);
            try {
                ensureAllocated(e, index);
                if (list != null) {
                    list.copyTo(done, view(e, index), offset, n);
                } else {
                    copyIn(buf, buf.readerIndex() + done, view(e, index), offset, n);
                }
            } finally {
                unpin(e, index);
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
        Extent[] all = extents;
        boolean mapped = mapped(all, pos);
        long next = chunkEnd(all, pos);
        while (next < end && mapped(all, next) == mapped) {
            next = chunkEnd(all, next);
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
        Extent[] all = extents;
        while (pos < end) {
            Extent e = extentAt(all, pos);
            int index = chunkIndex(e, pos);
            int offset = chunkOffset(e, pos);
            long whole = chunkBytes(e, index);
            int n = (int) Math.min(whole - offset, end - pos);
            if (offset == 0 && n == whole) {
                free(e, index);
            } else {
                zero(e, index, offset, n);
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
        for (Extent e : extents) {
            for (int i = 0; i < e.states().length; i++) {
                free(e, i);
            }
        }
    }

    // ---- extents and chunks ----

    /** The extent holding byte {@code pos} (inside the store): the last one starting at or before it. */
    private static Extent extentAt(Extent[] all, long pos) {
        int i = all.length - 1;
        while (all[i].start() > pos) {
            i--;
        }
        return all[i];
    }

    private int chunkIndex(Extent e, long pos) {
        return (int) ((pos - e.start()) >>> chunkShift);
    }

    private int chunkOffset(Extent e, long pos) {
        return (int) ((pos - e.start()) & (chunkSize - 1));
    }

    /** Where the chunk holding byte {@code pos} ends (in store bytes). */
    private long chunkEnd(Extent[] all, long pos) {
        Extent e = extentAt(all, pos);
        int index = chunkIndex(e, pos);
        return e.start() + ((long) index << chunkShift) + chunkBytes(e, index);
    }

    private boolean mapped(Extent[] all, long pos) {
        Extent e = extentAt(all, pos);
        return (state(e, chunkIndex(e, pos)) & ALLOCATED) != 0;
    }

    // ---- chunk states ----

    private static int state(Extent e, int index) {
        return (int) STATE.getVolatile(e.states(), index);
    }

    /** Enters chunk {@code index} as a writer; waits (briefly) while an unmap frees it. */
    private static void pin(Extent e, int index) {
        for (;;) {
            int s = state(e, index);
            if ((s & FREEING) != 0) {
                Thread.onSpinWait();
            } else if (STATE.compareAndSet(e.states(), index, s, s + 1)) {
                return;
            }
        }
    }

    private static void unpin(Extent e, int index) {
        int before = (int) STATE.getAndAdd(e.states(), index, -1);
        assert (before & PINS) != 0;
    }

    /** Commits a pinned chunk if it is not yet: takes its bytes from the budget first. */
    private void ensureAllocated(Extent e, int index) throws StoreException {
        if ((state(e, index) & ALLOCATED) != 0) {
            return;
        }
        long bytes = chunkBytes(e, index);
        if (!budget.tryReserve(bytes)) {
            budget.refused(name, bytes);
            throw new StoreException(StoreException.Kind.SPACE_EXHAUSTED, "memory store " + name
                    + ": daemon.memory-limit reached", null);
        }
        int before = (int) STATE.getAndBitwiseOr(e.states(), index, ALLOCATED);
        if ((before & ALLOCATED) != 0) {
            budget.release(bytes); // another writer allocated it first
        } else {
            allocated.incrementAndGet();
            allocatedBytes.addAndGet(bytes);
        }
    }

    /** Frees an allocated chunk once no writer is inside it; nothing if it is not allocated. */
    private void free(Extent e, int index) {
        for (;;) {
            int s = state(e, index);
            if ((s & ALLOCATED) == 0) {
                return; // not allocated, or another unmap is freeing it
            }
            if ((s & PINS) != 0) {
                Thread.onSpinWait(); // a writer is copying into it: a bounded wait
            } else if (STATE.compareAndSet(e.states(), index, s, FREEING)) {
                break;
            }
        }
        long bytes = chunkBytes(e, index);
        e.memory().discard((long) index << chunkShift, bytes);
        STATE.setVolatile(e.states(), index, 0);
        allocated.decrementAndGet();
        allocatedBytes.addAndGet(-bytes);
        budget.release(bytes);
    }

    /** Zeroes part of a chunk that stays allocated (an unmap that does not cover it whole). */
    private void zero(Extent e, int index, int offset, int n) {
        pin(e, index);
        try {
            if ((state(e, index) & ALLOCATED) != 0) {
                e.memory().segment().asSlice(((long) index << chunkShift) + offset, n).fill((byte) 0);
            }
        } finally {
            unpin(e, index);
        }
    }

    /** The chunk's size: the last one of an extent may be shorter so the extent is exactly its size. */
    private long chunkBytes(Extent e, int index) {
        return Math.min(chunkSize, e.size() - ((long) index << chunkShift));
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
    private ByteBuffer view(Extent e, int index) {
        ByteBuffer v = e.views().get(index);
        if (v == null) {
            v = e.memory().segment().asSlice((long) index << chunkShift, chunkBytes(e, index)).asByteBuffer();
            e.views().set(index, v);
        }
        return v;
    }

    /** Byte position of {@code lba}, after checking the range is inside the store and the store is open. */
    private long checkRange(long lba, long bytes) throws StoreException {
        ensureOpen();
        BackstoreInfo now = info; // one size for the whole check, also while the store grows
        long pos = lba * now.blockSize();
        if (lba < 0 || bytes < 0 || lba > now.blockCount() || pos + bytes > now.sizeBytes()) {
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
