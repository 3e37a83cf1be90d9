package org.jtarget.buffer;

import io.netty.buffer.ByteBuf;

import java.nio.ByteBuffer;

/**
 * Copies between two Netty buffers without allocating. Without {@code sun.misc.Unsafe} (Netty
 * 4.2's default on Java 25) {@code ByteBuf.writeBytes(ByteBuf)} and {@code setBytes} between
 * direct buffers go through {@code nioBuffers()}: an array and a view per call, ~100 B. Here the
 * bytes move with one absolute bulk put between the two buffers' cached internal NIO views, which
 * Netty keeps per buffer (pooled buffers keep theirs across reuse). Internal views are not
 * thread-safe: both buffers must be the calling thread's for the duration of the call, which is
 * the rule for writing into or reading from a buffer anyway.
 */
public final class ByteBufCopy {

    /**
     * Zeros to copy from: direct, read-only and never written, so any thread may read it at once
     * (absolute bulk puts leave its position alone).
     */
    private static final ByteBuffer ZEROS = ByteBuffer.allocateDirect(64 * 1024).asReadOnlyBuffer();

    private ByteBufCopy() {
    }

    /** Copies {@code n} bytes of {@code src} at {@code srcIndex} into {@code dst} at {@code dstIndex}; no index moves. */
    public static void copy(ByteBuf src, int srcIndex, ByteBuf dst, int dstIndex, int n) {
        if (n == 0) {
            return;
        }
        if (src == dst || src.nioBufferCount() != 1 || dst.nioBufferCount() != 1) {
            dst.setBytes(dstIndex, src, srcIndex, n); // composites and overlaps: Netty's way
            return;
        }
        ByteBuffer from = src.internalNioBuffer(srcIndex, n);
        ByteBuffer to = dst.internalNioBuffer(dstIndex, n);
        to.put(to.position(), from, from.position(), n);
    }

    /** Appends {@code n} bytes of {@code src} at {@code srcIndex} to {@code dst} (its writer index moves). */
    public static void append(ByteBuf src, int srcIndex, ByteBuf dst, int n) {
        dst.ensureWritable(n);
        int at = dst.writerIndex();
        copy(src, srcIndex, dst, at, n);
        dst.writerIndex(at + n);
    }

    /** Moves {@code n} readable bytes of {@code src} to the end of {@code dst} (both indexes move). */
    public static void transfer(ByteBuf src, ByteBuf dst, int n) {
        append(src, src.readerIndex(), dst, n);
        src.skipBytes(n);
    }

    /**
     * Appends {@code n} zero bytes to {@code dst} (its writer index moves) with bulk copies from a
     * shared buffer of zeros. Without {@code sun.misc.Unsafe}, {@code ByteBuf.writeZero} stores a
     * long at a time through a VarHandle: a 4 KiB read of a never-written memory-store chunk spent
     * more time zeroing than a read of written data spends copying.
     */
    public static void appendZeros(ByteBuf dst, int n) {
        if (n == 0) {
            return;
        }
        dst.ensureWritable(n);
        if (dst.nioBufferCount() != 1) {
            dst.writeZero(n); // composites: Netty's way
            return;
        }
        int at = dst.writerIndex();
        ByteBuffer to = dst.internalNioBuffer(at, n);
        int base = to.position();
        for (int done = 0; done < n; ) {
            int k = Math.min(ZEROS.capacity(), n - done);
            to.put(base + done, ZEROS, 0, k);
            done += k;
        }
        dst.writerIndex(at + n);
    }
}
