package org.jtarget.rdma.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.ChannelConfig;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.util.UncheckedBooleanSupplier;

/**
 * Direct placement from the socket (the point of DDP): while the decoder is in the middle of a large
 * tagged payload, the next socket read goes straight into the destination region instead of a pool
 * buffer, so the payload is copied once, by the kernel. After a large tagged payload the read that
 * starts the next frame asks only for its header ({@link FrameDecoder#headerReadSize}), so that a
 * large payload behind it is not pulled into a pool buffer. Otherwise reads use adaptive pool
 * buffers of up to 1 MiB.
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
            ByteBuf direct = decoder.placementBuffer();
            if (direct != null) {
                return direct;
            }
            int header = decoder.headerReadSize();
            return header > 0 ? alloc.directBuffer(header, header) : delegate.allocate(alloc);
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
