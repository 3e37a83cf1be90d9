package org.jtarget.fabric.endpoint;

import java.util.Set;

/**
 * Who may use a store endpoint and which blocks it exposes (issue 6, store endpoint).
 *
 * @param readOnly     remote WRITEs are refused (the region is registered without REMOTE_WRITE, so a
 *                     WRITE completes REM_ACCESS_ERR and the queue pairs go to ERROR)
 * @param allowedPeers peer identities admitted (see {@link StoreEndpoint#peerIdentity}); an empty set
 *                     admits nobody: access must be granted explicitly, there is no wildcard
 * @param firstBlock   the first block of the store exposed (a partition); remote address 0 is its first byte
 * @param blockCount   how many blocks are exposed; 0 = from {@code firstBlock} to the end of the store
 * @param writeThrough every store write is FUA (SBC-4 5.40: on stable storage before it completes), so
 *                     an RDMA WRITE completion means the blocks are durable even on a write-back store;
 *                     false leaves them in the store's cache (faster, lost on a crash)
 */
public record StoreEndpointSettings(boolean readOnly, Set<String> allowedPeers, long firstBlock, long blockCount,
                                    boolean writeThrough) {

    public StoreEndpointSettings {
        allowedPeers = Set.copyOf(allowedPeers);
        if (firstBlock < 0 || blockCount < 0) {
            throw new IllegalArgumentException("firstBlock and blockCount must not be negative");
        }
    }

    /** Write-through (the durable default). */
    public StoreEndpointSettings(boolean readOnly, Set<String> allowedPeers, long firstBlock, long blockCount) {
        this(readOnly, allowedPeers, firstBlock, blockCount, true);
    }

    /** The whole store for {@code allowedPeers}, read-write, write-through. */
    public static StoreEndpointSettings wholeStore(Set<String> allowedPeers) {
        return new StoreEndpointSettings(false, allowedPeers, 0, 0);
    }
}
