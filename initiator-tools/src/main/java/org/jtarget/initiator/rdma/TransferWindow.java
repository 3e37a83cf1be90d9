package org.jtarget.initiator.rdma;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jtarget.fabric.endpoint.EndpointHandshake;
import org.jtarget.initiator.rdma.StoreEndpointException.Kind;
import org.jtarget.rdma.Errno;
import org.jtarget.rdma.MemoryRegion;
import org.jtarget.rdma.QueuePair;
import org.jtarget.rdma.SendFlags;
import org.jtarget.rdma.WorkCompletion;
import org.jtarget.rdma.WorkCompletionStatus;
import org.jtarget.rdma.WorkRequest;
import org.jtarget.rdma.WorkRequestOpcode;
import org.jtarget.rdma.iwarp.TcpConnectionManager;

/**
 * Moves whole blocks between the client's registered staging memory and a store endpoint. The
 * staging memory is cut into slots of one request each, so that several RDMA READs or WRITEs are in
 * flight while the caller consumes or produces data. Completions of one send queue come back in
 * post order (RC), so the oldest request in flight is always the next to complete. A write ends
 * with an RDMA READ that confirms it: over iWARP a WRITE completes once sent, not once stored.
 *
 * <p>Nothing here checks a range against the endpoint's length: the endpoint is the authority, and
 * refuses what lies outside (REM_ACCESS_ERR).
 */
final class TransferWindow {

    /**
     * One posted request: which slot carries its data, and which blocks. A confirming READ stands
     * for the WRITEs before it (their outcome is only known through it).
     */
    private record Request(WorkRequestOpcode op, int slot, long lba, int blocks, boolean confirms) {
        String describe() {
            return (op == WorkRequestOpcode.RDMA_WRITE || confirms ? "RDMA WRITE" : "RDMA READ") + " at LBA " + lba;
        }
    }

    private final QueuePair qp;
    /** The DISCONNECTED event's data once the connection ended (the peer's TERMINATE, if any). */
    private final CompletableFuture<byte[]> termination;
    private final CompletionWaiter waiter;
    private final MemoryRegion staging;
    private final EndpointHandshake.Accepted endpoint;
    private final int blockSize;
    private final int slotBlocks;
    private final long timeoutNanos;
    private final String timeoutText;
    private final WorkRequest wr = new WorkRequest(1);
    private final WorkCompletion[] wc = {new WorkCompletion()};
    private final ArrayDeque<Request> inFlight = new ArrayDeque<>();
    private final ArrayDeque<Integer> freeSlots = new ArrayDeque<>();
    /** Set while a transfer runs and left set when it fails: completions still owed would confuse the next one. */
    private boolean unusable;
    /** The first block of the transfer in progress. */
    private long transferStart;

    private TransferWindow(QueuePair qp, CompletionWaiter waiter, MemoryRegion staging,
                           EndpointHandshake.Accepted endpoint, int slotBlocks, int slots, Duration timeout,
                           CompletableFuture<byte[]> termination) {
        this.qp = qp;
        this.termination = termination;
        this.waiter = waiter;
        this.staging = staging;
        this.endpoint = endpoint;
        this.blockSize = endpoint.blockSize();
        this.slotBlocks = slotBlocks;
        this.timeoutNanos = timeout.toNanos();
        this.timeoutText = StoreEndpointClient.describe(timeout);
        for (int i = 0; i < slots; i++) {
            freeSlots.add(i);
        }
    }

    /**
     * A window over {@code staging} for {@code endpoint}'s blocks: requests of at most
     * {@code requestBytes} (but at least one block), as many slots as fit.
     *
     * @param timeout how long to wait for each completion
     * @throws StoreEndpointException when not even one block fits in the staging memory
     */
    static TransferWindow create(QueuePair qp, CompletionWaiter waiter, MemoryRegion staging,
                                 EndpointHandshake.Accepted endpoint, int requestBytes, Duration timeout,
                                 CompletableFuture<byte[]> termination)
            throws StoreEndpointException {
        int blockSize = endpoint.blockSize();
        int slotBlocks = Math.max(1, requestBytes / blockSize);
        int slots = (int) Math.min(staging.length() / ((long) slotBlocks * blockSize), qp.initAttributes().maxSendWr());
        if (slots < 1) {
            throw new StoreEndpointException(Kind.FAILED, "block size " + blockSize + " is larger than the client's "
                    + staging.length() + " bytes of staging memory", null);
        }
        return new TransferWindow(qp, waiter, staging, endpoint, slotBlocks, slots, timeout, termination);
    }

    /** RDMA READs {@code blocks} blocks from {@code lba} and hands them to {@code sink} in order. */
    <X extends Exception> void read(long lba, long blocks, BlockSink<X> sink) throws IOException, X {
        begin(lba, blocks);
        long next = lba;
        long end = lba + blocks;
        while (next < end || !inFlight.isEmpty()) {
            while (next < end && !freeSlots.isEmpty()) {
                int n = blocksFrom(next, end);
                post(WorkRequestOpcode.RDMA_READ, freeSlots.pop(), next, n);
                next += n;
            }
            Request done = awaitOldest();
            sink.accept(done.lba(), done.blocks(), slot(done).toArray(ValueLayout.JAVA_BYTE));
            freeSlots.push(done.slot());
        }
        unusable = false;
    }

    /** RDMA WRITEs {@code blocks} blocks from {@code lba} with the bytes of {@code source}. */
    <X extends Exception> void write(long lba, long blocks, BlockSource<X> source) throws IOException, X {
        begin(lba, blocks);
        byte[] chunk = new byte[slotBlocks * blockSize];
        long next = lba;
        long end = lba + blocks;
        while (next < end) {
            if (freeSlots.isEmpty()) {
                freeSlots.push(awaitOldest().slot());
            }
            int slot = freeSlots.pop();
            int n = blocksFrom(next, end);
            source.fill(chunk, n * blockSize);
            MemorySegment.copy(chunk, 0, slotSegment(slot), ValueLayout.JAVA_BYTE, 0, n * blockSize);
            post(WorkRequestOpcode.RDMA_WRITE, slot, next, n);
            next += n;
        }
        if (blocks > 0) {
            // iWARP has no acknowledgements: a WRITE completes once sent. The endpoint executes its
            // WRITEs in order and answers a READ only after the WRITEs before it reached the store
            // (RFC 5040 orders a READ response after prior WRITEs), so this READ's success is the
            // WRITEs' success, and a refused or failed WRITE fails it.
            int slot = freeSlots.isEmpty() ? awaitOldest().slot() : freeSlots.pop();
            post(WorkRequestOpcode.RDMA_READ, slot, lba, 1, true);
        }
        while (!inFlight.isEmpty()) {
            freeSlots.push(awaitOldest().slot());
        }
        unusable = false;
    }

    private void begin(long lba, long blocks) {
        if (unusable) {
            throw new IllegalStateException("an earlier transfer failed; close this client and connect again");
        }
        long addressable = Long.MAX_VALUE / blockSize; // blocks beyond it have no remote address
        if (lba < 0 || blocks < 0 || blocks > addressable || lba > addressable - blocks) {
            throw new IllegalArgumentException("blocks " + lba + "+" + blocks + " have no remote address");
        }
        unusable = true;
        transferStart = lba;
    }

    /** How many blocks the request at {@code lba} carries: a slot's worth, or what is left before {@code end}. */
    private int blocksFrom(long lba, long end) {
        return (int) Math.min(slotBlocks, end - lba);
    }

    /** Posts one request for {@code blocks} blocks from {@code lba} through {@code slot}. */
    private void post(WorkRequestOpcode op, int slot, long lba, int blocks) throws StoreEndpointException {
        post(op, slot, lba, blocks, false);
    }

    private void post(WorkRequestOpcode op, int slot, long lba, int blocks, boolean confirms)
            throws StoreEndpointException {
        Request r = new Request(op, slot, lba, blocks, confirms);
        wr.reset();
        wr.opcode = op;
        wr.sendFlags = SendFlags.SIGNALED;
        wr.wrId = slot;
        wr.addSge(slotSegment(slot).address(), r.blocks() * blockSize, staging.lkey());
        wr.remoteAddress = lba * blockSize; // the endpoint is zero-based: remote address = byte offset
        wr.rkey = endpoint.rkey();
        int rc = qp.postSend(wr);
        if (rc != Errno.OK) {
            throw new StoreEndpointException(Kind.FAILED, r.describe() + ": cannot post it (errno " + rc + ")", null);
        }
        inFlight.addLast(r);
    }

    /** Waits for the oldest request in flight (the next completion, RC order) and checks its status. */
    private Request awaitOldest() throws StoreEndpointException, InterruptedIOException {
        Request oldest = inFlight.removeFirst();
        int n;
        try {
            n = waiter.pollWithin(qp.initAttributes().sendCq(), wc, timeoutNanos);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException(oldest.describe() + ": interrupted");
        }
        if (n == 0) {
            throw new StoreEndpointException(Kind.FAILED, oldest.describe() + ": no completion within " + timeoutText,
                    null);
        }
        if (n < 0) { // cannot happen while the queue holds every request in flight, but would lose completions
            throw new StoreEndpointException(Kind.FAILED, oldest.describe() + ": completion queue overflow", null);
        }
        if (wc[0].status != WorkCompletionStatus.SUCCESS) {
            throw failure(oldest, wc[0].status);
        }
        return oldest;
    }

    private StoreEndpointException failure(Request r, WorkCompletionStatus reported) {
        // over iWARP a WRITE completes once sent: a refusal surfaces at a later request, so a failed
        // write names the transfer, not the one request that saw it
        String what = r.op() == WorkRequestOpcode.RDMA_READ && !r.confirms() ? r.describe()
                : "RDMA WRITE at LBA " + transferStart;
        WorkCompletionStatus status = reported == WorkCompletionStatus.WR_FLUSH_ERR ? terminationReason(reported)
                : reported;
        return switch (status) {
            case REM_ACCESS_ERR -> new StoreEndpointException(Kind.ACCESS_REFUSED, what
                    + ": refused by the endpoint (REM_ACCESS_ERR: read-only, outside its " + endpoint.blockCount()
                    + " blocks, or not whole blocks)", status);
            case REM_OP_ERR -> new StoreEndpointException(Kind.FAILED, what
                    + ": store I/O error at the target (REM_OP_ERR)", status);
            case RETRY_EXC_ERR, WR_FLUSH_ERR -> new StoreEndpointException(Kind.FAILED, what
                    + ": connection lost (" + status + ")", status);
            default -> new StoreEndpointException(Kind.FAILED, what + ": failed (" + status + ")", status);
        };
    }

    /**
     * A request posted after the peer's TERMINATE had arrived is only flushed; the reason comes with
     * the connection's DISCONNECTED event, shortly after. {@code flushed} if there is none.
     */
    private WorkCompletionStatus terminationReason(WorkCompletionStatus flushed) {
        try {
            WorkCompletionStatus s = TcpConnectionManager.terminationStatus(termination.get(1, TimeUnit.SECONDS));
            return s == null ? flushed : s;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return flushed;
        } catch (ExecutionException | TimeoutException e) {
            return flushed;
        }
    }

    private MemorySegment slotSegment(int slot) {
        long bytes = (long) slotBlocks * blockSize;
        return staging.segment().asSlice(slot * bytes, bytes);
    }

    /** The data of a completed request. */
    private MemorySegment slot(Request r) {
        return slotSegment(r.slot()).asSlice(0, (long) r.blocks() * blockSize);
    }
}
