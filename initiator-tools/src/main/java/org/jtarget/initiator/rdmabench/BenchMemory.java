package org.jtarget.initiator.rdmabench;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import org.jtarget.initiator.rdma.PinnableMemory;
import org.jtarget.rdma.PinnedMemoryPolicy;

/**
 * The benchmark's registered memory: regions of {@link BenchTarget#REGION_BYTES} carved from one
 * {@link PinnableMemory} (pinned as the daemon pins it, DESIGN 3). When the kernel refuses the lock,
 * the benchmark says so once on stderr and measures with the same memory unpinned rather than not
 * at all.
 */
final class BenchMemory implements AutoCloseable {

    private final PinnableMemory memory;

    private BenchMemory(PinnableMemory memory) {
        this.memory = memory;
    }

    /** Maps and pins {@code regions} regions. */
    static BenchMemory map(int regions) throws IOException {
        PinnableMemory memory = PinnableMemory.map((long) regions * BenchTarget.REGION_BYTES);
        sayIfUnpinned(memory);
        return new BenchMemory(memory);
    }

    /** One line on stderr when {@code memory} could not be pinned (the bench measures anyway). */
    static void sayIfUnpinned(PinnableMemory memory) {
        if (memory.unpinnedNote() != null) {
            System.err.println("rdma-bench: " + memory.unpinnedNote()
                    + ": measuring with unpinned memory; run as root or raise ulimit -l to pin it");
        }
    }

    /** What the device may register: inside the pinned arena (or any native memory if unpinned). */
    PinnedMemoryPolicy policy() {
        return memory.policy();
    }

    /** Region {@code i}, {@link BenchTarget#REGION_BYTES} long, page aligned. */
    MemorySegment region(int i) {
        return memory.segment().asSlice((long) i * BenchTarget.REGION_BYTES, BenchTarget.REGION_BYTES);
    }

    /** Unmaps the memory; every region registered in it must have been deregistered or abandoned. */
    @Override
    public void close() {
        memory.close();
    }
}
