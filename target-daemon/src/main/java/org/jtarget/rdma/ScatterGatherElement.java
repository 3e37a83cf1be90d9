package org.jtarget.rdma;

/**
 * One piece of local memory in a work request, after libibverbs {@code struct ibv_sge}: an address
 * inside a registered region, a length and the region's lkey. Mutable so work requests can be
 * reused without allocation.
 */
public final class ScatterGatherElement {
    private long address;
    private int length;
    private int lkey;

    /** Sets all three fields; returns this. */
    public ScatterGatherElement set(long address, int length, int lkey) {
        this.address = address;
        this.length = length;
        this.lkey = lkey;
        return this;
    }

    public long address() {
        return address;
    }

    public int length() {
        return length;
    }

    public int lkey() {
        return lkey;
    }
}
