package org.jtarget.rdma;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An RDMA device, after libibverbs {@code ibv_context}: it owns the key space of its memory regions
 * and the numbers of its queue pairs, and creates protection domains, completion queues and queue
 * pairs. A provider (loopback, tcp, later a real verbs binding) subclasses it and creates its own
 * {@link QueuePair} kind.
 */
public abstract class RdmaDevice implements AutoCloseable {

    private final String name;
    private final DeviceAttributes attributes;
    private final PinnedMemoryPolicy memoryPolicy;
    private final MemoryRegionTable regions = new MemoryRegionTable();
    private final ConcurrentHashMap<Integer, QueuePair> queuePairs = new ConcurrentHashMap<>();
    private final AtomicInteger nextQpNum = new AtomicInteger(1);

    protected RdmaDevice(String name, DeviceAttributes attributes, PinnedMemoryPolicy memoryPolicy) {
        this.name = name;
        this.attributes = attributes;
        this.memoryPolicy = memoryPolicy;
    }

    public String name() {
        return name;
    }

    /** The limits (ibv_query_device(3)). */
    public DeviceAttributes attributes() {
        return attributes;
    }

    PinnedMemoryPolicy memoryPolicy() {
        return memoryPolicy;
    }

    MemoryRegionTable regions() {
        return regions;
    }

    /** ibv_alloc_pd(3). */
    public ProtectionDomain allocateProtectionDomain() {
        return new ProtectionDomain(this);
    }

    /** ibv_create_cq(3). */
    public CompletionQueue createCompletionQueue(int cqe, CompletionChannel channel) throws RdmaException {
        if (cqe > attributes.maxCqe()) {
            throw new RdmaException(Errno.EINVAL, "cqe " + cqe + " above max_cqe " + attributes.maxCqe());
        }
        return new CompletionQueue(cqe, channel);
    }

    /** ibv_create_qp(3): an RC queue pair in RESET. */
    public QueuePair createQueuePair(ProtectionDomain pd, QueuePairInitAttributes init) throws RdmaException {
        if (pd.device() != this) {
            throw new RdmaException(Errno.EINVAL, "protection domain of another device");
        }
        if (init.maxSendWr() < 1 || init.maxRecvWr() < 1 || init.maxSendWr() > attributes.maxQpWr()
                || init.maxRecvWr() > attributes.maxQpWr()) {
            throw new RdmaException(Errno.EINVAL, "queue depth outside 1.." + attributes.maxQpWr());
        }
        if (init.maxSendSge() < 1 || init.maxRecvSge() < 1 || init.maxSendSge() > attributes.maxSge()
                || init.maxRecvSge() > attributes.maxSge()) {
            throw new RdmaException(Errno.EINVAL, "max_sge outside 1.." + attributes.maxSge());
        }
        int qpNum = nextQpNum.getAndIncrement();
        QueuePair qp = newQueuePair(pd, init, qpNum);
        queuePairs.put(qpNum, qp);
        return qp;
    }

    /** The provider's queue pair kind. */
    protected abstract QueuePair newQueuePair(ProtectionDomain pd, QueuePairInitAttributes init, int qpNum);

    /** The live queue pair numbered {@code qpNum}, or null. */
    public QueuePair queuePair(int qpNum) {
        return queuePairs.get(qpNum);
    }

    void forget(QueuePair qp) {
        queuePairs.remove(qp.qpNum());
    }

    /** The region with lkey ({@code remote} false) or rkey {@code key}, or null. */
    public MemoryRegion lookupRegion(int key, boolean remote) {
        return regions.lookup(key, remote);
    }

    @Override
    public void close() {
        for (QueuePair qp : queuePairs.values()) {
            qp.destroy();
        }
    }
}
