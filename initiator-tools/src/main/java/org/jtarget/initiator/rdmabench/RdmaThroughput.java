package org.jtarget.initiator.rdmabench;

import org.jtarget.initiator.cli.CliFailure;
import org.jtarget.initiator.rdma.CompletionWaiter;
import org.jtarget.rdma.Errno;
import org.jtarget.rdma.MemoryRegion;
import org.jtarget.rdma.QueuePair;
import org.jtarget.rdma.SendFlags;
import org.jtarget.rdma.WorkCompletion;
import org.jtarget.rdma.WorkCompletionStatus;
import org.jtarget.rdma.WorkRequest;
import org.jtarget.rdma.WorkRequestOpcode;

/**
 * Keeps {@code depth} RDMA WRITEs or READs of one size in flight on a connected queue pair for a
 * while and counts the bytes completed. Work request and completion objects are reused.
 */
final class RdmaThroughput {

    private final QueuePair qp;
    private final CompletionWaiter waiter;
    private final MemoryRegion local;
    private final long remoteAddress;
    private final int rkey;
    private final WorkRequest wr = new WorkRequest(1);
    private final WorkCompletion[] wcs = new WorkCompletion[64];

    RdmaThroughput(QueuePair qp, CompletionWaiter waiter, MemoryRegion local, long remoteAddress, int rkey) {
        this.qp = qp;
        this.waiter = waiter;
        this.local = local;
        this.remoteAddress = remoteAddress;
        this.rkey = rkey;
        for (int i = 0; i < wcs.length; i++) {
            wcs[i] = new WorkCompletion();
        }
    }

    /**
     * Runs for {@code nanos} with {@code depth} requests in flight over {@code buffers} slots of the
     * regions; returns bytes per second.
     */
    double run(WorkRequestOpcode op, int size, int depth, int buffers, long nanos)
            throws CliFailure, InterruptedException {
        long start = System.nanoTime();
        long end = start + nanos;
        long bytes = 0;
        int inFlight = 0;
        long next = 0;
        while (true) {
            boolean more = System.nanoTime() < end;
            while (more && inFlight < depth) {
                post(op, size, (int) (next++ % buffers));
                inFlight++;
            }
            if (inFlight == 0) {
                break;
            }
            int n = waiter.pollBlocking(qp.initAttributes().sendCq(), wcs);
            for (int i = 0; i < n; i++) {
                if (wcs[i].status != WorkCompletionStatus.SUCCESS) {
                    throw new CliFailure(CliFailure.IO_ERROR, "rdma-bench: " + op + " failed: " + wcs[i].status);
                }
                bytes += size;
            }
            inFlight -= n;
        }
        return bytes / ((System.nanoTime() - start) / 1e9);
    }

    private void post(WorkRequestOpcode op, int size, int slot) throws CliFailure {
        prepare(wr, op, size, slot, local, remoteAddress, rkey);
        int rc = qp.postSend(wr);
        if (rc != Errno.OK) {
            throw new CliFailure(CliFailure.IO_ERROR, "rdma-bench: post failed with errno " + rc);
        }
    }

    /**
     * Fills {@code wr} as one signaled {@code op} of {@code size} bytes between slot {@code slot} of
     * the local region and the same slot of the remote one (wrId = slot): the request every bench
     * loop posts.
     */
    static void prepare(WorkRequest wr, WorkRequestOpcode op, int size, int slot, MemoryRegion local,
                        long remoteAddress, int rkey) {
        wr.reset();
        wr.opcode = op;
        wr.sendFlags = SendFlags.SIGNALED;
        wr.wrId = slot;
        long offset = (long) slot * size;
        wr.addSge(local.address() + offset, size, local.lkey());
        wr.remoteAddress = remoteAddress + offset;
        wr.rkey = rkey;
    }
}
