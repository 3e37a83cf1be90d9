package org.jtarget.rdma;

import org.jtarget.buffer.PinnedArena;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static org.assertj.core.api.Assertions.assertThat;

class PinnedMemoryPolicyTest {

    @Test
    void withinPinnedAcceptsOnlyThePinnedArenasOwnMemory() throws Exception {
        try (PinnedArena pinned = PinnedArena.map(64 * 1024, true); Arena other = Arena.ofConfined()) {
            PinnedMemoryPolicy policy = PinnedMemoryPolicy.withinPinned(pinned);
            MemorySegment inside = pinned.segment().asSlice(4096, 8192);
            if (pinned.isPinned()) {
                assertThat(policy.refusal(inside)).isNull();
            } else {
                assertThat(policy.refusal(inside)).contains("not pinned");
            }
            assertThat(policy.refusal(other.allocate(4096, 4096))).contains("outside");
            assertThat(policy.refusal(MemorySegment.ofArray(new byte[16]))).contains("heap");
            MemorySegment straddling = MemorySegment.ofAddress(pinned.address() + 60 * 1024).reinterpret(8192);
            assertThat(policy.refusal(straddling)).contains("outside");
        }
    }

    @Test
    void anUnpinnedArenaIsRefused() throws Exception {
        try (PinnedArena unpinned = PinnedArena.map(64 * 1024, false)) {
            assertThat(unpinned.isPinned()).isFalse();
            assertThat(PinnedMemoryPolicy.withinPinned(unpinned).refusal(unpinned.segment())).contains("not pinned");
        }
    }
}
