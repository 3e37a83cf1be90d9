package org.jtarget.rdma;

import org.jtarget.buffer.PinnedArena;

import java.lang.foreign.MemorySegment;

/**
 * Decides which memory may be registered. DESIGN 3 wants registered regions to come from the buffer
 * pool's pinned (mlocked) arenas; that rule is wired in by giving the device a policy that accepts
 * only such segments. The default accepts any native segment (a heap segment has no stable
 * address, so no provider could ever place data into it one-sidedly).
 */
@FunctionalInterface
public interface PinnedMemoryPolicy {

    /** Accepts any native segment. */
    PinnedMemoryPolicy ANY_NATIVE = segment -> null;

    /**
     * The DESIGN 3 rule: only memory inside the buffer pool's arena, and only while that arena is
     * really locked in RAM (an unpinned arena could be paged out under a remote access).
     */
    static PinnedMemoryPolicy withinPinned(PinnedArena arena) {
        return segment -> {
            if (!segment.isNative()) {
                return "a heap segment has no stable address";
            }
            if (!arena.contains(segment.address(), segment.byteSize())) {
                return "memory outside the buffer pool's pinned arena";
            }
            return arena.isPinned() ? null
                    : "the buffer pool's arena is not pinned (mlock refused: see daemon.buffer-pool.pin)";
        };
    }

    /**
     * @return {@code null} if the segment may be registered, else why not (for the exception)
     */
    String refusal(MemorySegment segment);
}
