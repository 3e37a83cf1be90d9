package org.jtarget.backstore.spi;

/**
 * What a store is and can do. Fixed while it is open, except that a store that grows live
 * ({@link Backstore#grow}) reports a new one with more blocks.
 *
 * @param blockSize          logical block size in bytes (512 or 4096)
 * @param blockCount         number of logical blocks
 * @param writeCacheEnabled  default WCE: true if writes may sit in a volatile cache until flush
 * @param thin               thin provisioned: unmap deallocates and reads of deallocated blocks return zeros
 * @param readOnly           the store itself refuses writes (opened read-only)
 * @param maxTransferBlocks  largest single transfer the store handles well (VPD 0xB0), 0 = no limit
 * @param optimalTransferBlocks preferred transfer size (VPD 0xB0), 0 = none
 * @param identitySeed       stable bytes that make the LU's NAA/serial unique and persistent (e.g. the store name)
 * @param logicalBlocksPerPhysicalBlockExponent log2(physical / logical block size), e.g. 3 for 512-byte
 *                           blocks on 4 KiB sectors (SBC-4 5.20.2 READ CAPACITY (16) byte 13); 0 = one
 */
public record BackstoreInfo(int blockSize, long blockCount, boolean writeCacheEnabled, boolean thin,
                            boolean readOnly, int maxTransferBlocks, int optimalTransferBlocks,
                            String identitySeed, int logicalBlocksPerPhysicalBlockExponent) {

    /** A store whose physical block is its logical block (exponent 0). */
    public BackstoreInfo(int blockSize, long blockCount, boolean writeCacheEnabled, boolean thin,
                         boolean readOnly, int maxTransferBlocks, int optimalTransferBlocks, String identitySeed) {
        this(blockSize, blockCount, writeCacheEnabled, thin, readOnly, maxTransferBlocks, optimalTransferBlocks,
                identitySeed, 0);
    }

    /** Capacity in bytes. */
    public long sizeBytes() {
        return blockCount * blockSize;
    }

    /** Refuses a grow to {@code count} blocks that is none: a store only grows. */
    public void requireMoreBlocks(String store, long count) {
        if (count <= blockCount) {
            throw new IllegalArgumentException(store + ": " + count + " blocks is not more than " + blockCount);
        }
    }

    /** The same store with {@code count} blocks (it grew). */
    public BackstoreInfo withBlockCount(long count) {
        return new BackstoreInfo(blockSize, count, writeCacheEnabled, thin, readOnly, maxTransferBlocks,
                optimalTransferBlocks, identitySeed, logicalBlocksPerPhysicalBlockExponent);
    }
}
