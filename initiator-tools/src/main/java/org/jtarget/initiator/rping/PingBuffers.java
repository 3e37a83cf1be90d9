package org.jtarget.initiator.rping;

import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import org.jtarget.rdma.AccessFlag;
import org.jtarget.rdma.MemoryRegion;
import org.jtarget.rdma.ProtectionDomain;
import org.jtarget.rdma.RdmaDevice;
import org.jtarget.rdma.RdmaException;

/**
 * The registered memory of one rping side, laid out as rping registers it, one region each: the
 * receive buffer and the send buffer of {@link RdmaInfo} messages (local access only), the "sink"
 * the server RDMA READs into and the client's sink the server RDMA WRITEs into, and on the client
 * the "source" the server RDMA READs from. Only sink and source are open to the peer, each under
 * its own rkey, so a peer can reach nothing it was not told about.
 */
final class PingBuffers {

    private static final long PAGE = 4096;

    final ProtectionDomain pd;
    final MemoryRegion receive;
    final MemoryRegion send;
    final MemoryRegion sink;
    /** Null on the server. */
    final MemoryRegion source;
    final int size;

    private PingBuffers(ProtectionDomain pd, MemoryRegion receive, MemoryRegion send, MemoryRegion sink,
                        MemoryRegion source, int size) {
        this.pd = pd;
        this.receive = receive;
        this.send = send;
        this.sink = sink;
        this.source = source;
        this.size = size;
    }

    /** The memory {@link #register} needs for buffers of {@code size} bytes. */
    static long memoryBytes(int size) {
        return PAGE + 2 * pageAligned(size);
    }

    /**
     * Registers the buffers in {@code memory} ({@link #memoryBytes} long, accepted by the device's
     * memory policy).
     */
    static PingBuffers register(RdmaDevice device, MemorySegment memory, int size, boolean client)
            throws RdmaException {
        ProtectionDomain pd = device.allocateProtectionDomain();
        EnumSet<AccessFlag> remote = EnumSet.allOf(AccessFlag.class);
        MemoryRegion receive = pd.registerMemoryRegion(memory.asSlice(0, RdmaInfo.BYTES),
                EnumSet.of(AccessFlag.LOCAL_WRITE));
        MemoryRegion send = pd.registerMemoryRegion(memory.asSlice(PAGE / 2, RdmaInfo.BYTES),
                EnumSet.noneOf(AccessFlag.class));
        MemoryRegion sink = pd.registerMemoryRegion(memory.asSlice(PAGE, size), remote);
        MemoryRegion source = client
                ? pd.registerMemoryRegion(memory.asSlice(PAGE + pageAligned(size), size), remote) : null;
        return new PingBuffers(pd, receive, send, sink, source, size);
    }

    /** Where {@code region}'s bytes can be read and written. */
    static RdmaInfo describe(MemoryRegion region, int size) {
        return new RdmaInfo(region.address(), region.rkey(), size);
    }

    private static long pageAligned(long n) {
        return (n + PAGE - 1) / PAGE * PAGE;
    }
}
