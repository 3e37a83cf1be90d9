package org.jtarget.buffer;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * An ordered list of retained buffer segments: a command's data-out as it arrived (DESIGN 3,
 * "ScatterList"), with no copy and no per-segment object. Reused from command to command.
 *
 * <p>Why not a {@link CompositeByteBuf}: Netty allocates a component object per added buffer, and
 * every NIO access through a derived buffer (a slice of the receive buffer) makes a new
 * {@code ByteBuffer} duplicate without {@code sun.misc.Unsafe}. A segment here also remembers the
 * <em>root</em> buffer that holds its bytes (the socket's receive buffer) and where, so a store
 * on the receiving thread copies straight from the root's cached NIO view: no allocation at all.
 *
 * <p>Ownership: {@link #add} consumes the segment's reference; {@link #clear()} releases every
 * segment. A root is borrowed: the segment's reference keeps it alive. Roots' internal NIO views
 * are single-thread objects, so they are used only on the thread that added the segments (the
 * connection's event loop); other threads get their own duplicates. Not thread-safe: one writer.
 */
public final class ScatterList {

    private static final int INITIAL_CAPACITY = 4;

    private ByteBuf[] segments = new ByteBuf[INITIAL_CAPACITY];
    private ByteBuf[] roots = new ByteBuf[INITIAL_CAPACITY];
    private int[] rootIndexes = new int[INITIAL_CAPACITY];
    private int[] lengths = new int[INITIAL_CAPACITY];
    private int count;
    private int readableBytes;
    private Thread owner;
    private ByteBuf composed;

    /** Appends a segment of {@code segment}'s readable bytes (consumes it). */
    public void add(ByteBuf segment) {
        add(segment, segment, segment.readerIndex());
    }

    /**
     * Appends {@code segment}'s readable bytes (consumes the segment), recording that the same
     * bytes sit in {@code root} at {@code rootIndex} (borrowed: the segment keeps it alive).
     */
    public void add(ByteBuf segment, ByteBuf root, int rootIndex) {
        int length = segment.readableBytes();
        if (length == 0) {
            segment.release();
            return;
        }
        if (count == segments.length) {
            grow();
        }
        segments[count] = segment;
        roots[count] = root;
        rootIndexes[count] = rootIndex;
        lengths[count] = length;
        count++;
        readableBytes += length;
        owner = Thread.currentThread();
        dropComposed();
    }

    /** Total bytes of all segments. */
    public int readableBytes() {
        return readableBytes;
    }

    /** Number of segments. */
    public int count() {
        return count;
    }

    /**
     * Copies {@code length} bytes starting {@code offset} bytes into the list to {@code dst} at
     * absolute index {@code dstIndex}; {@code dst}'s position and limit are not changed.
     */
    public void copyTo(int offset, ByteBuffer dst, int dstIndex, int length) {
        checkRange(offset, length);
        boolean onOwner = Thread.currentThread() == owner;
        int i = 0;
        int skip = offset;
        while (skip >= lengths[i]) {
            skip -= lengths[i++];
        }
        while (length > 0) {
            int n = Math.min(lengths[i] - skip, length);
            ByteBuf root = roots[i];
            if (onOwner && root.nioBufferCount() == 1) {
                ByteBuffer src = root.internalNioBuffer(rootIndexes[i] + skip, n);
                dst.put(dstIndex, src, src.position(), n);
            } else {
                // another thread, or bytes spread over several buffers (a long data segment that
                // arrived in many reads): Netty copies piece by piece into a view of dst; never
                // nioBuffer(), which would merge the pieces into a new heap buffer first
                ByteBuf segment = segments[i];
                segment.getBytes(segment.readerIndex() + skip, dst.slice(dstIndex, n));
            }
            dstIndex += n;
            length -= n;
            skip = 0;
            i++;
        }
    }

    /**
     * All segments as one buffer, for the paths that want a {@link ByteBuf} (parameter lists,
     * file stores): the single segment itself, or a composite of retained duplicates made on
     * first use. Borrowed: valid until the next {@link #add} or {@link #clear()}; callers may move
     * its indexes but must not release it.
     */
    public ByteBuf asByteBuf() {
        if (composed == null) {
            composed = compose();
        }
        return composed;
    }

    private ByteBuf compose() {
        if (count == 1) {
            return segments[0].retainedDuplicate();
        }
        // the composite only references segments: its allocator never allocates memory here
        CompositeByteBuf c = Unpooled.compositeBuffer(Math.max(2, count));
        for (int i = 0; i < count; i++) {
            c.addComponent(true, segments[i].retainedDuplicate());
        }
        return c;
    }

    /** Releases every segment; the list is empty and reusable afterwards. */
    public void clear() {
        dropComposed();
        for (int i = 0; i < count; i++) {
            segments[i].release();
            segments[i] = null;
            roots[i] = null;
        }
        count = 0;
        readableBytes = 0;
        owner = null;
    }

    private void dropComposed() {
        if (composed != null) {
            composed.release();
            composed = null;
        }
    }

    private void checkRange(int offset, int length) {
        if (offset < 0 || length < 0 || offset > readableBytes - length) {
            throw new IndexOutOfBoundsException("offset " + offset + " length " + length
                    + " outside " + readableBytes + " bytes");
        }
    }

    private void grow() {
        int n = segments.length * 2;
        segments = Arrays.copyOf(segments, n);
        roots = Arrays.copyOf(roots, n);
        rootIndexes = Arrays.copyOf(rootIndexes, n);
        lengths = Arrays.copyOf(lengths, n);
    }
}
