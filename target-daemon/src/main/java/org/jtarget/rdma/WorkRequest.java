package org.jtarget.rdma;

/**
 * A send or receive work request, after libibverbs {@code struct ibv_send_wr} and {@code ibv_recv_wr}
 * (a receive only uses {@link #wrId} and the scatter list). The queue pair copies what it needs when
 * it is posted, so one instance can be filled and posted again and again (no per-request allocation).
 */
public final class WorkRequest {
    /** Returned in the completion. */
    public long wrId;
    public WorkRequestOpcode opcode = WorkRequestOpcode.SEND;
    /** {@link SendFlags} bits. */
    public int sendFlags;
    /** The scatter/gather list; only the first {@link #numSge} entries are used. */
    public final ScatterGatherElement[] sgList;
    public int numSge;
    /** RDMA READ/WRITE: the peer's address (inside the region of {@link #rkey}). */
    public long remoteAddress;
    public int rkey;
    /** Immediate data of *_WITH_IMM. */
    public int immData;
    /** SEND_WITH_INV: the peer's rkey to invalidate. */
    public int invalidateRkey;

    /** @param capacity the number of scatter/gather elements this request can hold */
    public WorkRequest(int capacity) {
        sgList = new ScatterGatherElement[capacity];
        for (int i = 0; i < capacity; i++) {
            sgList[i] = new ScatterGatherElement();
        }
    }

    /** Clears the request to a signaled SEND with no elements; returns this. */
    public WorkRequest reset() {
        wrId = 0;
        opcode = WorkRequestOpcode.SEND;
        sendFlags = SendFlags.SIGNALED;
        numSge = 0;
        remoteAddress = 0;
        rkey = 0;
        immData = 0;
        invalidateRkey = 0;
        return this;
    }

    /** Appends one element; returns this. */
    public WorkRequest addSge(long address, int length, int lkey) {
        sgList[numSge++].set(address, length, lkey);
        return this;
    }

    /** The total length of the scatter/gather list. */
    public long totalLength() {
        long n = 0;
        for (int i = 0; i < numSge; i++) {
            n += sgList[i].length();
        }
        return n;
    }
}
