package org.jtarget.rdma.transfer;

import org.jtarget.rdma.WorkCompletionStatus;
import org.jtarget.rdma.WorkRequestOpcode;

/**
 * One transfer between many local buffers and one remote region: an RDMA WRITE of the buffers, in
 * order, to {@code remoteAddress} onward, or an RDMA READ from there into them (how iSER and SRP
 * move a command's data: the initiator advertises one region, the target's data sits in several
 * pool buffers). The {@link TransferEngine} divides it into work requests and keeps its progress
 * here: the current element and offset, and the work requests posted and completed. Reusable:
 * {@link #reset} it for the next transfer (no allocation once its element capacity is enough).
 */
public final class RdmaTransfer {

    private long[] addresses;
    private int[] lengths;
    private int[] lkeys;
    private int count;
    private long totalLength;
    private WorkRequestOpcode opcode;
    private long remoteAddress;
    private int rkey;
    private TransferListener listener;
    // progress
    int element;
    int elementOffset;
    long remoteOffset;
    int posted;
    int completed;
    boolean allPosted;
    boolean signalled;
    WorkCompletionStatus status;

    /** @param capacity initial number of local elements (grows if needed) */
    public RdmaTransfer(int capacity) {
        addresses = new long[Math.max(1, capacity)];
        lengths = new int[addresses.length];
        lkeys = new int[addresses.length];
    }

    /**
     * Starts describing a new transfer.
     *
     * @param opcode RDMA_WRITE (local to remote) or RDMA_READ (remote to local)
     */
    public RdmaTransfer reset(WorkRequestOpcode opcode, long remoteAddress, int rkey, TransferListener listener) {
        if (opcode != WorkRequestOpcode.RDMA_WRITE && opcode != WorkRequestOpcode.RDMA_READ) {
            throw new IllegalArgumentException("a transfer is an RDMA_WRITE or an RDMA_READ: " + opcode);
        }
        this.opcode = opcode;
        this.remoteAddress = remoteAddress;
        this.rkey = rkey;
        this.listener = listener;
        count = 0;
        totalLength = 0;
        element = 0;
        elementOffset = 0;
        remoteOffset = 0;
        posted = 0;
        completed = 0;
        allPosted = false;
        signalled = false;
        status = WorkCompletionStatus.SUCCESS;
        return this;
    }

    /** Appends a local buffer (address inside the region of {@code lkey}); returns this. */
    public RdmaTransfer addLocal(long address, int length, int lkey) {
        if (length < 0) {
            throw new IllegalArgumentException("negative length");
        }
        if (count == addresses.length) {
            int n = count * 2;
            addresses = java.util.Arrays.copyOf(addresses, n);
            lengths = java.util.Arrays.copyOf(lengths, n);
            lkeys = java.util.Arrays.copyOf(lkeys, n);
        }
        addresses[count] = address;
        lengths[count] = length;
        lkeys[count] = lkey;
        count++;
        totalLength += length;
        return this;
    }

    public WorkRequestOpcode opcode() {
        return opcode;
    }

    public long remoteAddress() {
        return remoteAddress;
    }

    public int rkey() {
        return rkey;
    }

    public long totalLength() {
        return totalLength;
    }

    public int elementCount() {
        return count;
    }

    long address(int i) {
        return addresses[i];
    }

    int length(int i) {
        return lengths[i];
    }

    int lkey(int i) {
        return lkeys[i];
    }

    TransferListener listener() {
        return listener;
    }

    /** Work requests posted so far. */
    public int posted() {
        return posted;
    }

    /** Work requests completed so far. */
    public int completed() {
        return completed;
    }

    /** Whether the listener has been told. */
    public boolean isComplete() {
        return signalled;
    }

    /** SUCCESS, or the first failure. */
    public WorkCompletionStatus status() {
        return status;
    }
}
