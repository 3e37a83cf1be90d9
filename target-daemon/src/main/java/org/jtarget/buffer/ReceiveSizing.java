package org.jtarget.buffer;

import io.netty.channel.AdaptiveRecvByteBufAllocator;

/**
 * Netty's adaptive sizing of socket receive buffers, for the fabrics that install receive-buffer
 * allocators of their own. An {@link AdaptiveRecvByteBufAllocator} made by hand allows one read per
 * readiness event (Netty raises it to 16 only on the allocator a channel makes itself), so a
 * message spread over several reads cost an {@code epoll_wait} per read: these allow
 * {@link #READS_PER_EVENT}, as Netty's own channels do.
 */
public final class ReceiveSizing {

    /** Socket reads per readiness event: Netty's default for its channels. */
    public static final int READS_PER_EVENT = 16;

    private ReceiveSizing() {
    }

    /** Netty's default sizes (64 bytes to 64 KiB, starting at 2 KiB). */
    public static AdaptiveRecvByteBufAllocator adaptive() {
        return withReadsPerEvent(new AdaptiveRecvByteBufAllocator());
    }

    /** Buffers from {@code minimum} to {@code maximum} bytes, starting at {@code initial}. */
    public static AdaptiveRecvByteBufAllocator adaptive(int minimum, int initial, int maximum) {
        return withReadsPerEvent(new AdaptiveRecvByteBufAllocator(minimum, initial, maximum));
    }

    private static AdaptiveRecvByteBufAllocator withReadsPerEvent(AdaptiveRecvByteBufAllocator a) {
        a.maxMessagesPerRead(READS_PER_EVENT);
        return a;
    }
}
