package org.jtarget.scsi.sbc;

import org.jtarget.scsi.lun.LogicalUnit;

/**
 * What a logical unit reports about logical block provisioning (SBC-4 4.7) and the limits of the
 * commands that deallocate or repeat blocks, in one place so that READ CAPACITY (16), the Block
 * Limits and Logical Block Provisioning VPD pages and the UNMAP / WRITE SAME handlers agree.
 *
 * <p>A logical unit is thin provisioned with logical block provisioning management (LBPME = 1)
 * exactly when its store {@link org.jtarget.backstore.spi.Backstore#supportsUnmap() deallocates};
 * every other LU is fully provisioned and reports zeros in all these fields (SBC-4 4.7.2).
 */
public final class SbcProvisioning {

    /**
     * MAXIMUM UNMAP LBA COUNT (SBC-4 6.6.4): blocks one UNMAP may name in total. Deallocating
     * memory is cheap, but the count bounds the time one command holds the event loop.
     */
    public static final int MAX_UNMAP_LBA_COUNT = 1 << 20;
    /** MAXIMUM UNMAP BLOCK DESCRIPTOR COUNT (SBC-4 6.6.4). */
    public static final int MAX_UNMAP_DESCRIPTORS = 256;
    /**
     * Bytes one WRITE SAME may cover (MAXIMUM WRITE SAME LENGTH = this / block size): the pattern
     * is written buffer by buffer, on the event loop for a memory store, so one command costs no
     * more than the largest single WRITE ({@link SbcLimits#MAX_TRANSFER_BYTES}).
     */
    public static final int MAX_WRITE_SAME_BYTES = SbcLimits.MAX_TRANSFER_BYTES;
    /** SBC-4 6.6.5 PROVISIONING TYPE 010b: thin provisioned. */
    public static final int PROVISIONING_TYPE_THIN = 2;

    private SbcProvisioning() {
    }

    /** LBPME (SBC-4 5.20.2): the LU supports logical block provisioning management (UNMAP). */
    public static boolean lbpme(LogicalUnit lu) {
        return lu.store().supportsUnmap();
    }

    /**
     * LBPRZ (SBC-4 5.20.2, 6.6.5): deallocated blocks read as zeros. True for every thin store
     * here ({@link org.jtarget.backstore.spi.BackstoreInfo#thin()} promises zeros).
     */
    public static boolean lbprz(LogicalUnit lu) {
        return lbpme(lu) && lu.info().thin();
    }

    /** MAXIMUM UNMAP LBA COUNT: 0 on a fully provisioned LU (libiscsi checks it against LBPU). */
    public static long maxUnmapLbaCount(LogicalUnit lu) {
        return lbpme(lu) ? MAX_UNMAP_LBA_COUNT : 0;
    }

    /** MAXIMUM UNMAP BLOCK DESCRIPTOR COUNT: 0 on a fully provisioned LU. */
    public static int maxUnmapDescriptors(LogicalUnit lu) {
        return lbpme(lu) ? MAX_UNMAP_DESCRIPTORS : 0;
    }

    /** OPTIMAL UNMAP GRANULARITY in blocks (0 on a fully provisioned LU); alignment is LBA 0. */
    public static int unmapGranularity(LogicalUnit lu) {
        return lbpme(lu) ? Math.max(1, lu.store().unmapGranularityBlocks()) : 0;
    }

    /** MAXIMUM WRITE SAME LENGTH in blocks (SBC-4 6.6.4); never 0, which would mean no limit. */
    public static long maxWriteSameBlocks(LogicalUnit lu) {
        return Math.max(1, MAX_WRITE_SAME_BYTES / lu.blockSize());
    }
}
