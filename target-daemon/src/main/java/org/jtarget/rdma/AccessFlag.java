package org.jtarget.rdma;

import java.util.Set;

/**
 * Memory region and queue pair access rights, after libibverbs {@code enum ibv_access_flags}
 * ({@code IBV_ACCESS_LOCAL_WRITE}, {@code IBV_ACCESS_REMOTE_WRITE}, {@code IBV_ACCESS_REMOTE_READ}).
 * Local read access is always granted (ibv_reg_mr(3)). ibv_reg_mr(3) also requires LOCAL_WRITE
 * whenever REMOTE_WRITE is asked; {@link ProtectionDomain#registerMemoryRegion} enforces it.
 */
public enum AccessFlag {
    /** The region may be written by local operations (RECV, RDMA READ destination). */
    LOCAL_WRITE(1),
    /** The peer may RDMA WRITE into the region. */
    REMOTE_WRITE(2),
    /** The peer may RDMA READ from the region. */
    REMOTE_READ(4);

    private final int bit;

    AccessFlag(int bit) {
        this.bit = bit;
    }

    /** The bit of this flag in a mask (same values as libibverbs). */
    public int bit() {
        return bit;
    }

    /** The mask of a set of flags. */
    public static int mask(Set<AccessFlag> flags) {
        int m = 0;
        for (AccessFlag f : flags) {
            m |= f.bit;
        }
        return m;
    }
}
