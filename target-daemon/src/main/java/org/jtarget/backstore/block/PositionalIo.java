package org.jtarget.backstore.block;

import io.netty.buffer.ByteBuf;
import org.jtarget.os.Libc;

import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * Positional reads and writes on one open descriptor (pread(2)/pwrite(2) through {@link NativeIo}),
 * straight between the descriptor and a command's Netty buffer when the kernel can take it, else
 * through an aligned bounce buffer. Safe from several threads at once.
 *
 * <p>O_DIRECT (open(2), "O_DIRECT"): the buffer address, the length and the file offset must be
 * aligned to the device's logical block size. Offsets and lengths here are whole logical blocks,
 * so only the address can be off; with {@code direct} every buffer whose address is a multiple of
 * {@link #ALIGNMENT} (4096, enough for every logical block size) and that is one contiguous direct
 * buffer is used in place (zero copy). Anything else (a Data-Out composite, an unaligned pooled
 * buffer, heap memory) goes through a bounce segment of {@link #BOUNCE_BYTES}, copied a chunk at a
 * time ({@link #bouncedTransfers()} counts them). Without O_DIRECT only the contiguity matters.
 * Buffers from the pinned arena ({@code BufferPool.ioBuffer}) are page-aligned and contiguous, so
 * they always go in place.
 *
 * <p>Bounce segments, and the errno capture area every downcall needs, live in {@link Slot}s that
 * belong to this object: created on demand up to {@link #MAX_SLOTS} (one per concurrent caller:
 * the LU's I/O threads), then reused through a queue that allocates nothing, and freed with the
 * store's shared arena on {@link #close}. Per-store rather than per-thread, so closing a store frees
 * its memory and no thread keeps a dead store's segment. A caller finding every slot busy waits
 * (callers are I/O threads, never event loops).
 *
 * <p>Short transfers are continued and EINTR is retried; errors are {@link ErrnoException}s. A read
 * that meets the end of the file before its last byte (a file truncated under the store, a device
 * that shrank) is an {@link EOFException}: the bytes it did not get are never passed off as data.
 */
public final class PositionalIo implements AutoCloseable {

    /** Buffer address alignment for O_DIRECT: a page, which covers 512 and 4096 byte blocks. */
    public static final int ALIGNMENT = 4096;
    /** Bytes one bounce segment holds: larger transfers bounce a chunk at a time. */
    public static final int BOUNCE_BYTES = 1 << 20;
    /** At most this many slots (concurrent I/Os) per store; more callers wait for a free one. */
    public static final int MAX_SLOTS = 16;

    private final int fd;
    private final String what;
    private final boolean direct;
    private final Arena arena = Arena.ofShared();
    private final ArrayBlockingQueue<Slot> free = new ArrayBlockingQueue<>(MAX_SLOTS);
    private final AtomicInteger created = new AtomicInteger();
    private final LongAdder bounced = new LongAdder();

    /** One concurrent I/O's native memory: an aligned bounce segment and an errno capture area. */
    private static final class Slot {
        final MemorySegment bounce;
        final long bounceAddress;
        final ByteBuffer bounceView;
        final MemorySegment callState;

        Slot(Arena arena) {
            bounce = arena.allocate(BOUNCE_BYTES, ALIGNMENT);
            bounceAddress = bounce.address();
            bounceView = bounce.asByteBuffer();
            callState = Libc.newCallState(arena);
        }
    }

    /**
     * @param fd     an open descriptor; this object closes it
     * @param what   the file or device, for messages
     * @param direct true if {@code fd} was opened with O_DIRECT (buffers must be aligned)
     */
    public PositionalIo(int fd, String what, boolean direct) {
        this.fd = fd;
        this.what = what;
        this.direct = direct;
    }

    /** Opens {@code path} read-write (O_CLOEXEC), with O_DIRECT if asked; O_EXCL if {@code exclusive}. */
    public static PositionalIo open(Path path, boolean direct, boolean exclusive) throws ErrnoException {
        int flags = NativeIo.O_RDWR | NativeIo.O_CLOEXEC | (direct ? NativeIo.O_DIRECT : 0)
                | (exclusive ? NativeIo.O_EXCL : 0);
        return new PositionalIo(NativeIo.open(path, flags), path.toString(), direct);
    }

    /** The descriptor (for ioctls on it). */
    int fd() {
        return fd;
    }

    /** True if opened with O_DIRECT. */
    public boolean direct() {
        return direct;
    }

    /**
     * Reads {@code length} bytes at {@code offset} into {@code dst} at {@code index} (indexes
     * unchanged; borrows dst).
     *
     * @throws EOFException if the file ends before {@code offset + length} (truncated under us);
     *                      {@code dst} then holds a partial transfer that must not be used
     */
    public void read(long offset, int length, ByteBuf dst, int index) throws IOException {
        Slot slot = acquire();
        try {
            long address = usableAddress(dst, index, length);
            if (address != 0) {
                readFully(slot, address, length, offset);
                return;
            }
            bounced.increment();
            for (int done = 0; done < length; ) {
                int n = Math.min(BOUNCE_BYTES, length - done);
                readFully(slot, slot.bounceAddress, n, offset + done);
                dst.setBytes(index + done, slot.bounceView.clear().limit(n));
                done += n;
            }
        } finally {
            free.offer(slot);
        }
    }

    /** Writes {@code length} bytes of {@code src} from {@code index} at {@code offset} (borrows src). */
    public void write(long offset, ByteBuf src, int index, int length) throws IOException {
        Slot slot = acquire();
        try {
            long address = usableAddress(src, index, length);
            if (address != 0) {
                writeFully(slot, address, length, offset);
                return;
            }
            bounced.increment();
            for (int done = 0; done < length; ) {
                int n = Math.min(BOUNCE_BYTES, length - done);
                src.getBytes(index + done, slot.bounceView.clear().limit(n));
                writeFully(slot, slot.bounceAddress, n, offset + done);
                done += n;
            }
        } finally {
            free.offer(slot);
        }
    }

    /**
     * Reads and writes that went through a bounce segment rather than straight to the caller's
     * buffer (a steady rise with O_DIRECT means the buffers given are not page-aligned: see
     * {@code BufferPool.ioBuffer}).
     */
    public long bouncedTransfers() {
        return bounced.sum();
    }

    /** fdatasync(2): earlier writes, and the device's volatile write cache, are made stable. */
    public void fdatasync() throws IOException {
        Slot slot = acquire();
        try {
            while (Libc.fdatasync(slot.callState, fd) != 0) {
                throwUnlessEintr(slot, "fdatasync");
            }
        } finally {
            free.offer(slot);
        }
    }

    /** fallocate(2) with {@code mode} on the range (block devices: zero out / punch, see BlockBackstore). */
    void fallocate(int mode, long offset, long length) throws IOException {
        Slot slot = acquire();
        try {
            while (Libc.fallocate(slot.callState, fd, mode, offset, length) != 0) {
                throwUnlessEintr(slot, "fallocate");
            }
        } finally {
            free.offer(slot);
        }
    }

    /**
     * The native address of {@code length} bytes of {@code buf} at {@code index} if the kernel can
     * use it in place, else 0: one contiguous direct buffer, and with O_DIRECT page aligned.
     */
    private long usableAddress(ByteBuf buf, int index, int length) {
        long address;
        if (buf.hasMemoryAddress()) {
            address = buf.memoryAddress() + index;
        } else if (buf.isDirect() && buf.nioBufferCount() == 1) {
            // nioBuffer, not internalNioBuffer: this runs on an I/O thread, and the internal view
            // is one shared object per buffer whose position the event loop may move meanwhile
            // (a Data-Out slice's parent is the decoder's buffer, still being read into)
            address = MemorySegment.ofBuffer(buf.nioBuffer(index, length)).address();
        } else {
            return 0;
        }
        return direct && (address & (ALIGNMENT - 1)) != 0 ? 0 : address;
    }

    private void readFully(Slot slot, long address, int length, long offset) throws IOException {
        int done = 0;
        while (done < length) {
            long n = Libc.pread(slot.callState, fd, address + done, length - done, offset + done);
            if (n > 0) {
                done += (int) n;
            } else if (n == 0) {
                throw endOfFile(offset + done);
            } else {
                throwUnlessEintr(slot, "pread");
            }
        }
    }

    /** pread(2) returned 0 inside the range: the file ends at {@code at}, shorter than the store. */
    EOFException endOfFile(long at) {
        return new EOFException("pread on " + what + ": end of file at byte " + at
                + " (the file is shorter than the store: truncated?)");
    }

    private void writeFully(Slot slot, long address, int length, long offset) throws IOException {
        int done = 0;
        while (done < length) {
            long n = Libc.pwrite(slot.callState, fd, address + done, length - done, offset + done);
            if (n >= 0) {
                done += (int) n;
            } else {
                throwUnlessEintr(slot, "pwrite");
            }
        }
    }

    private void throwUnlessEintr(Slot slot, String call) throws ErrnoException {
        int errno = Libc.errno(slot.callState);
        if (errno != NativeIo.EINTR) {
            throw new ErrnoException(call, what, errno);
        }
    }

    /** A free slot; creates one while fewer than MAX_SLOTS exist, else waits for one. */
    private Slot acquire() throws IOException {
        Slot slot = free.poll();
        if (slot != null) {
            return slot;
        }
        for (int n = created.get(); n < MAX_SLOTS; n = created.get()) {
            if (created.compareAndSet(n, n + 1)) {
                try {
                    return new Slot(arena);
                } catch (IllegalStateException closed) {
                    throw new ErrnoException("I/O", what + " (closed)", NativeIo.EBADF);
                }
            }
        }
        try {
            return free.take();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("waiting for an I/O slot on " + what);
        }
    }

    /** Closes the descriptor and frees the bounce memory; callers must have finished their I/O. */
    @Override
    public void close() throws IOException {
        try {
            NativeIo.close(fd, what);
        } finally {
            arena.close();
        }
    }
}
