package org.jtarget.rdma;

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
     * @return {@code null} if the segment may be registered, else why not (for the exception)
     */
    String refusal(MemorySegment segment);
}
