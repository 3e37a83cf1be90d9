package org.jtarget.initiator.rdmabench;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import org.jtarget.rdma.AccessFlag;
import org.jtarget.rdma.CompletionQueue;
import org.jtarget.rdma.MemoryRegion;
import org.jtarget.rdma.ProtectionDomain;
import org.jtarget.rdma.QueuePair;
import org.jtarget.rdma.QueuePairInitAttributes;
import org.jtarget.rdma.RdmaDevice;
import org.jtarget.rdma.RdmaException;
import org.jtarget.rdma.cm.CmEvent;
import org.jtarget.rdma.cm.CmEventType;

/**
 * The passive side of the benchmark: accepts connections and offers one region for one-sided
 * READs and WRITEs, advertised in the accept's private data (address u64, rkey u32), the way an
 * iSER or SRP initiator advertises its buffers.
 */
final class BenchTarget {

    static final int REGION_BYTES = 32 << 20;
    static final int DEPTH = 1024;

    private final RdmaDevice device;
    private final ProtectionDomain pd;
    private final MemoryRegion region;

    /** @param memory {@link #REGION_BYTES} of memory the device's policy accepts (pinned) */
    BenchTarget(RdmaDevice device, MemorySegment memory) throws RdmaException {
        this.device = device;
        this.pd = device.allocateProtectionDomain();
        this.region = pd.registerMemoryRegion(memory, EnumSet.allOf(AccessFlag.class));
    }

    /** The connection manager's listener callback. */
    void onEvent(CmEvent e) {
        if (e.type() != CmEventType.CONNECT_REQUEST) {
            return;
        }
        try {
            CompletionQueue cq = device.createCompletionQueue(DEPTH * 2, null);
            QueuePair qp = device.createQueuePair(pd, new QueuePairInitAttributes(cq, cq, DEPTH, DEPTH, 1, 1));
            byte[] data = ByteBuffer.allocate(12).putLong(region.address()).putInt(region.rkey()).array();
            e.id().accept(qp, data);
        } catch (RdmaException ex) {
            e.id().reject(null);
        }
    }
}
