package org.jtarget.rdma.iwarp;

import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.EventLoopGroup;
import org.jtarget.rdma.DeviceAttributes;
import org.jtarget.rdma.PinnedMemoryPolicy;
import org.jtarget.rdma.ProtectionDomain;
import org.jtarget.rdma.QueuePair;
import org.jtarget.rdma.QueuePairInitAttributes;
import org.jtarget.rdma.RdmaDevice;

/**
 * The iwarp provider, between processes or hosts: each queue pair is one TCP connection speaking
 * iWARP (MPA, DDP, RDMAP; see {@link TcpConnection}), made by {@link TcpConnectionManager}.
 * Connections run on the given Netty event loops with the given (pooled) allocator, as the
 * daemon's other fabrics do.
 *
 * <p>What it reorders, and why: requests leave in post order and the responder executes them in
 * arrival order, so SENDs and WRITEs are placed in order (and complete once TCP has them). An
 * RDMA READ completes only when its response has come back, a round trip later, so SENDs and WRITEs posted after it are placed at the
 * peer before the READ's data is placed here (IBA allows it; FENCE and barriers restore the order).
 * Completions are reported in post order.
 */
public final class TcpDevice extends RdmaDevice {

    /** 16 MiB messages, 32 elements, 16 K entries per queue, 1 M completions. */
    public static final DeviceAttributes DEFAULT_ATTRIBUTES = new DeviceAttributes(16384, 32, 1 << 20, 16 << 20);

    private final EventLoopGroup group;
    private final ByteBufAllocator allocator;

    public TcpDevice(String name, DeviceAttributes attributes, PinnedMemoryPolicy policy, EventLoopGroup group,
                     ByteBufAllocator allocator) {
        super(name, attributes, policy);
        this.group = group;
        this.allocator = allocator;
    }

    EventLoopGroup group() {
        return group;
    }

    ByteBufAllocator allocator() {
        return allocator;
    }

    @Override
    protected QueuePair newQueuePair(ProtectionDomain pd, QueuePairInitAttributes init, int qpNum) {
        return new TcpQueuePair(this, pd, init, qpNum);
    }
}
