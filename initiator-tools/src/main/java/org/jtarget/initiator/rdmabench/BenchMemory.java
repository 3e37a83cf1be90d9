package org.jtarget.initiator.rdmabench;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import org.jtarget.buffer.PinnedArena;
import org.jtarget.rdma.PinnedMemoryPolicy;

/**
 * The benchmark's registered memory, taken the way the daemon takes it (DESIGN 3): regions of
 * {@link BenchTarget#REGION_BYTES} carved from one mlocked {@link PinnedArena}, and a device policy
 * that accepts only memory inside it. When the kernel refuses the lock (no CAP_IPC_LOCK and a small
 * {@code ulimit -l}), the benchmark says so once on stderr and measures with the same memory
 * unpinned rather than not at all.
 */
final class BenchMemory implements AutoCloseable {

    private final PinnedArena arena;
    private final PinnedMemoryPolicy policy;

    private BenchMemory(PinnedArena arena, PinnedMemoryPolicy policy) {
        this.arena = arena;
        this.policy = policy;
    }

    /** Maps and pins {@code regions} regions. */
    static BenchMemory map(int regions) throws IOException {
        PinnedArena arena = PinnedArena.map((long) regions * BenchTarget.REGION_BYTES, true);
        if (arena.isPinned()) {
            return new BenchMemory(arena, PinnedMemoryPolicy.withinPinned(arena));
        }
        System.err.println("rdma-bench: mlock of " + (arena.size() >> 20) + " MiB refused (errno "
                + arena.lockErrno() + "): measuring with unpinned memory; run as root or raise ulimit -l to pin it");
        return new BenchMemory(arena, PinnedMemoryPolicy.ANY_NATIVE);
    }

    /** What the device may register: inside the pinned arena (or any native memory if unpinned). */
    PinnedMemoryPolicy policy() {
        return policy;
    }

    /** Region {@code i}, {@link BenchTarget#REGION_BYTES} long, page aligned. */
    MemorySegment region(int i) {
        return arena.segment().asSlice((long) i * BenchTarget.REGION_BYTES, BenchTarget.REGION_BYTES);
    }

    /** Whether the memory is locked in RAM. */
    boolean pinned() {
        return arena.isPinned();
    }

    /** Unmaps the memory; every region registered in it must have been deregistered or abandoned. */
    @Override
    public void close() {
        arena.close();
    }
}
