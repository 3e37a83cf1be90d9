package org.jtarget.fabric.iscsi.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.ChannelConfig;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.util.UncheckedBooleanSupplier;
import org.jtarget.buffer.ReceiveSizing;

/**
 * Netty's adaptive receive-buffer sizing, with {@link #HEADROOM} free bytes in front of every
 * receive buffer: the socket reads into {@code [HEADROOM, capacity)}, and the PDU decoder moves
 * the unfinished tail of the previous read (a partial PDU, usually part of one 4 KiB write) into
 * that headroom instead of chaining the two reads in a composite buffer (see
 * {@code IscsiPduFramer}). So every PDU is framed from one pooled receive buffer, and its data
 * segment can be copied to a memory store through that buffer's cached NIO view: no composite,
 * no component objects, no derived-buffer duplicates per command (DESIGN 4.2).
 */
public final class HeadroomRecvByteBufAllocator implements RecvByteBufAllocator {

    /**
     * Bytes reserved in front of each read: enough for a 4 KiB or 8 KiB write's PDU (48-byte BHS,
     * data, digests) to be carried into the next read; longer tails fall back to a composite.
     */
    public static final int HEADROOM = 16 * 1024;

    /** Netty's sizing, with its usual reads per event: a large Data-Out spans many reads. */
    private final AdaptiveRecvByteBufAllocator sizing = ReceiveSizing.adaptive();

    @Override
    public Handle newHandle() {
        return new HeadroomHandle((ExtendedHandle) sizing.newHandle());
    }

    /** Delegates everything but the allocation (epoll needs an {@link ExtendedHandle}). */
    private static final class HeadroomHandle implements ExtendedHandle {
        private final ExtendedHandle delegate;

        HeadroomHandle(ExtendedHandle delegate) {
            this.delegate = delegate;
        }

        @Override
        public ByteBuf allocate(ByteBufAllocator alloc) {
            ByteBuf buf = alloc.ioBuffer(HEADROOM + delegate.guess());
            return buf.setIndex(HEADROOM, HEADROOM);
        }

        @Override public int guess() { return delegate.guess(); }
        @Override public void reset(ChannelConfig config) { delegate.reset(config); }
        @Override public void incMessagesRead(int numMessages) { delegate.incMessagesRead(numMessages); }
        @Override public void lastBytesRead(int bytes) { delegate.lastBytesRead(bytes); }
        @Override public int lastBytesRead() { return delegate.lastBytesRead(); }
        @Override public void attemptedBytesRead(int bytes) { delegate.attemptedBytesRead(bytes); }
        @Override public int attemptedBytesRead() { return delegate.attemptedBytesRead(); }
        @Override public boolean continueReading() { return delegate.continueReading(); }
        @Override public boolean continueReading(UncheckedBooleanSupplier maybeMoreDataSupplier) {
            return delegate.continueReading(maybeMoreDataSupplier);
        }
        @Override public void readComplete() { delegate.readComplete(); }
    }
}
