package org.jtarget.rdma.iwarp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.ChannelConfig;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.util.UncheckedBooleanSupplier;

/**
 * Direct placement from the socket (the point of DDP): while the decoder receives large tagged DDP
 * segments, a socket read goes straight into the destination region instead of a pool buffer, so
 * the payload is copied once, by the kernel, and the reads between payloads take only the trailer
 * and the next header ({@link FrameDecoder#placementBuffer}). Otherwise reads use adaptive pool
 * buffers of up to 1 MiB (a burst of small FPDUs then arrives with one system call).
 */
final class PlacementRecvAllocator implements RecvByteBufAllocator {

    private final FrameDecoder decoder;
    private final AdaptiveRecvByteBufAllocator pooled = TcpConnectionManager.receiveBuffers();

    PlacementRecvAllocator(FrameDecoder decoder) {
        this.decoder = decoder;
    }

    @Override
    public Handle newHandle() {
        return new PlacementHandle((ExtendedHandle) pooled.newHandle());
    }

    private final class PlacementHandle implements ExtendedHandle {
        private final ExtendedHandle delegate;

        PlacementHandle(ExtendedHandle delegate) {
            this.delegate = delegate;
        }

        @Override
        public ByteBuf allocate(ByteBufAllocator alloc) {
            ByteBuf direct = decoder.placementBuffer(alloc);
            if (direct != null) {
                return direct;
            }
            return delegate.allocate(alloc);
        }

        @Override
        public int guess() {
            return delegate.guess();
        }

        @Override
        public void reset(ChannelConfig config) {
            delegate.reset(config);
        }

        @Override
        public void incMessagesRead(int numMessages) {
            delegate.incMessagesRead(numMessages);
        }

        @Override
        public void lastBytesRead(int bytes) {
            delegate.lastBytesRead(bytes);
        }

        @Override
        public int lastBytesRead() {
            return delegate.lastBytesRead();
        }

        @Override
        public void attemptedBytesRead(int bytes) {
            delegate.attemptedBytesRead(bytes);
        }

        @Override
        public int attemptedBytesRead() {
            return delegate.attemptedBytesRead();
        }

        @Override
        public boolean continueReading() {
            return delegate.continueReading();
        }

        @Override
        public boolean continueReading(UncheckedBooleanSupplier maybeMoreDataSupplier) {
            return delegate.continueReading(maybeMoreDataSupplier);
        }

        @Override
        public void readComplete() {
            delegate.readComplete();
        }
    }
}
