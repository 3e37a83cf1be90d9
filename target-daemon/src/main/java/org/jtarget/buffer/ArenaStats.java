package org.jtarget.buffer;

import org.jtarget.units.ByteSize;

/**
 * A snapshot of a pinned arena's counters, for the startup log and status output. A growing
 * {@code fallbacks} means the arena is too small for the load (raise
 * {@code daemon.buffer-pool.pinned-size}); {@code highWaterBytes} shows how much it needed. Fallbacks
 * with {@code splits} above zero and a high water mark well below the size mean a fragmented arena:
 * split slots never merge back (see {@link ArenaAllocator}), so large requests found no large slot.
 *
 * @param sizeBytes      the region's size
 * @param pinned         whether it is locked in RAM
 * @param carvedBytes    bytes cut into slots so far (slots are reused, never uncut)
 * @param inUseBytes     bytes of slots handed out now
 * @param highWaterBytes the most bytes of slots ever handed out at once
 * @param allocations    buffers served from the arena
 * @param fallbacks      buffers the arena could not serve (they came from the pooled allocator)
 * @param splits         free slots split into smaller ones for smaller requests (never merged back)
 */
public record ArenaStats(long sizeBytes, boolean pinned, long carvedBytes, long inUseBytes, long highWaterBytes,
                         long allocations, long fallbacks, long splits) {

    /** One line for logs: {@code pinned arena 64MiB (pinned), in use 1MiB, high water 8MiB, ..., splits 0}. */
    public String describe() {
        return "pinned arena " + ByteSize.format(sizeBytes) + (pinned ? " (pinned)" : " (NOT pinned)")
                + ", in use " + ByteSize.format(inUseBytes) + ", high water " + ByteSize.format(highWaterBytes)
                + ", carved " + ByteSize.format(carvedBytes) + ", allocations " + allocations
                + ", fallbacks " + fallbacks + ", splits " + splits;
    }
}
