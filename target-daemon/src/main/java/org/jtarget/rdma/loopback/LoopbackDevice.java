package org.jtarget.rdma.loopback;

import org.jtarget.rdma.DeviceAttributes;
import org.jtarget.rdma.PinnedMemoryPolicy;
import org.jtarget.rdma.ProtectionDomain;
import org.jtarget.rdma.QueuePair;
import org.jtarget.rdma.QueuePairInitAttributes;
import org.jtarget.rdma.RdmaDevice;

import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * The in-process provider: queue pairs of this device (or of another loopback device in the same
 * process) talk by direct memory copies: an RDMA WRITE or READ is one {@code MemorySegment.copy}
 * between the two registered regions, a SEND one copy per piece into the receive's elements.
 *
 * <p>What it reorders, and why: SENDs and WRITEs are placed synchronously, on the posting thread, in
 * post order. RDMA READ responses are placed by {@code readResponses} when one is given, so a READ can
 * land after later SENDs and WRITEs have been placed at the peer, as on a real fabric where the
 * response needs a round trip; FENCE and barriers restore the order. Completions are still reported
 * in post order (RC).
 */
public final class LoopbackDevice extends RdmaDevice {

    /** 1 GiB messages, 32 elements, 16 K entries per queue, 1 M completions. */
    public static final DeviceAttributes DEFAULT_ATTRIBUTES = new DeviceAttributes(16384, 32, 1 << 20, 1 << 30);

    private static final ScheduledExecutorService TIMERS = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "rdma-loopback-timer");
        t.setDaemon(true);
        return t;
    });

    private final Executor readResponses;

    /** A device with default limits whose READs are placed at once. */
    public LoopbackDevice() {
        this("loopback0", DEFAULT_ATTRIBUTES, PinnedMemoryPolicy.ANY_NATIVE, null);
    }

    /**
     * @param readResponses where RDMA READ responses are placed (tests use a manual executor to hold
     *                      them back); null places them at once, on the posting thread
     */
    public LoopbackDevice(String name, DeviceAttributes attributes, PinnedMemoryPolicy policy, Executor readResponses) {
        super(name, attributes, policy);
        this.readResponses = readResponses;
    }

    Executor readResponses() {
        return readResponses;
    }

    static ScheduledExecutorService timers() {
        return TIMERS;
    }

    @Override
    protected QueuePair newQueuePair(ProtectionDomain pd, QueuePairInitAttributes init, int qpNum) {
        return new LoopbackQueuePair(this, pd, init, qpNum);
    }
}
