package org.jtarget.daemon;

import org.jtarget.rdma.CompletionQueue;
import org.jtarget.rdma.MemoryRegion;
import org.jtarget.rdma.ProtectionDomain;
import org.jtarget.rdma.QueuePair;
import org.jtarget.rdma.QueuePairInitAttributes;
import org.jtarget.rdma.SendFlags;
import org.jtarget.rdma.TcpProviderFixture;
import org.jtarget.rdma.WorkCompletion;
import org.jtarget.rdma.WorkCompletionStatus;
import org.jtarget.rdma.WorkRequest;
import org.jtarget.rdma.WorkRequestOpcode;
import org.jtarget.rdma.cm.CmEvent;
import org.jtarget.rdma.cm.CmEventType;
import org.jtarget.fabric.endpoint.EndpointHandshake;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** A client queue pair connected to one of the daemon's RDMA store endpoints over the tcp provider. */
record RdmaPeer(QueuePair qp, CompletionQueue cq, int rkey) {

    static RdmaPeer connect(TcpProviderFixture tcp, ProtectionDomain pd, InetSocketAddress address, String endpoint)
            throws Exception {
        CompletionQueue cq = tcp.device.createCompletionQueue(32, null);
        QueuePair qp = tcp.device.createQueuePair(pd, new QueuePairInitAttributes(cq, cq, 8, 8, 1, 1));
        BlockingQueue<CmEvent> events = new LinkedBlockingQueue<>();
        tcp.cm.connect(address, qp, EndpointHandshake.request(endpoint), events::add);
        CmEvent e = events.poll(20, TimeUnit.SECONDS);
        if (e == null || e.type() != CmEventType.ESTABLISHED) {
            throw new IOException("endpoint " + endpoint + ": " + (e == null ? "no answer" : e.type()));
        }
        return new RdmaPeer(qp, cq, EndpointHandshake.accepted(e.privateData()).rkey());
    }

    /** One signalled RDMA WRITE or READ of {@code length} bytes of {@code local} at {@code remote}; its status. */
    WorkCompletionStatus transfer(WorkRequestOpcode op, MemoryRegion local, long remote, int length)
            throws InterruptedException {
        WorkRequest wr = new WorkRequest(1);
        wr.opcode = op;
        wr.sendFlags = SendFlags.SIGNALED;
        wr.addSge(local.address(), length, local.lkey());
        wr.remoteAddress = remote;
        wr.rkey = rkey;
        if (qp.postSend(wr) != 0) {
            throw new IllegalStateException("send queue refused the request");
        }
        WorkCompletion[] wcs = {new WorkCompletion()};
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (cq.poll(wcs, 1) == 0) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(op + " did not complete in 20 s");
            }
            Thread.sleep(1);
        }
        return wcs[0].status;
    }
}
