package org.jtarget.fabric.rdma;

import org.jtarget.rdma.CompletionQueue;
import org.jtarget.rdma.ProtectionDomain;
import org.jtarget.rdma.QueuePair;
import org.jtarget.rdma.QueuePairInitAttributes;
import org.jtarget.rdma.RdmaDevice;
import org.jtarget.rdma.RdmaException;
import org.jtarget.rdma.cm.QueuePairBringUp;

/**
 * The queue pair of one accepted RDMA connection of a fabric (iSER, SRP) and the one completion
 * queue of both its queues, sized for everything they may hold, its events going to
 * {@code poller}; the queue pair is in INIT, so that receives can be posted before the accept.
 */
public record ConnectionQueues(CompletionQueue cq, QueuePair qp) {

    /**
     * @param sendDepth    SENDs plus RDMA READs and WRITEs in flight at once
     * @param receiveDepth receives posted at once
     */
    public static ConnectionQueues create(RdmaDevice device, ProtectionDomain pd, CompletionPoller poller,
                                          int sendDepth, int receiveDepth) throws RdmaException {
        CompletionQueue cq = device.createCompletionQueue(sendDepth + receiveDepth, poller);
        QueuePair qp = device.createQueuePair(pd, new QueuePairInitAttributes(cq, cq, sendDepth, receiveDepth, 1, 1));
        QueuePairBringUp.toInit(qp);
        return new ConnectionQueues(cq, qp);
    }
}
