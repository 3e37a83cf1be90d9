package org.jtarget.initiator.rdma;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import org.jtarget.buffer.PinnedArena;
import org.jtarget.rdma.PinnedMemoryPolicy;

/**
 * Memory for a client of the emulated RDMA providers to register, taken the way the daemon takes
 * it (DESIGN 3): one mlocked {@link PinnedArena} and a device policy that accepts only memory
 * inside it. When the kernel refuses the lock (no CAP_IPC_LOCK and a small {@code ulimit -l}), the
 * same memory is used unpinned rather than not at all, and {@link #unpinnedNote()} says so for the
 * caller to print (in its own words about what that means for it).
 */
public final class PinnableMemory implements AutoCloseable {

    private final PinnedArena arena;

    private PinnableMemory(PinnedArena arena) {
        this.arena = arena;
    }

    /** Maps {@code bytes} (rounded up to whole pages) and pins them if the kernel allows. */
    public static PinnableMemory map(long bytes) throws IOException {
        return new PinnableMemory(PinnedArena.map(bytes, true));
    }

    /** What the device may register: inside the pinned arena (or any native memory if unpinned). */
    public PinnedMemoryPolicy policy() {
        return arena.isPinned() ? PinnedMemoryPolicy.withinPinned(arena) : PinnedMemoryPolicy.ANY_NATIVE;
    }

    /** The whole memory, page aligned. */
    public MemorySegment segment() {
        return arena.segment();
    }

    /** Null when the memory is locked in RAM, else e.g. {@code mlock of 1 MiB refused (errno 12)}. */
    public String unpinnedNote() {
        return arena.isPinned() ? null
                : "mlock of " + (arena.size() >> 20) + " MiB refused (errno " + arena.lockErrno() + ")";
    }

    /** Unmaps the memory; every region registered in it must have been deregistered or abandoned. */
    @Override
    public void close() {
        arena.close();
    }
}
