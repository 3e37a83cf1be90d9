package org.jtarget.backstore.spi;

/**
 * What a store is and can do, fixed while it is open (a resize is a reload).
 *
 * @param blockSize          logical block size in bytes (512 or 4096)
 * @param blockCount         number of logical blocks
 * @param writeCacheEnabled  default WCE: true if writes may sit in a volatile cache until flush
 * @param thin               thin provisioned: unmap deallocates and reads of deallocated blocks return zeros
 * @param readOnly           the store itself refuses writes (opened read-only)
 * @param maxTransferBlocks  largest single transfer the store handles well (VPD 0xB0), 0 = no limit
 * @param optimalTransferBlocks preferred transfer size (VPD 0xB0), 0 = none
 * @param identitySeed       stable bytes that make the LU's NAA/serial unique and persistent (e.g. the store name)
 */
public record BackstoreInfo(int blockSize, long blockCount, boolean writeCacheEnabled, boolean thin,
                            boolean readOnly, int maxTransferBlocks, int optimalTransferBlocks,
                            String identitySeed) {

    /** Capacity in bytes. */
    public long sizeBytes() {
        return blockCount * blockSize;
    }
}
