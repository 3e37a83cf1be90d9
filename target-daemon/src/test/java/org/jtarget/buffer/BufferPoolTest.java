package org.jtarget.buffer;

import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.Test;

import java.io.IOException;

import static org.assertj.core.api.Assertions.assertThat;

/** The buffer pool with and without a pinned arena. */
class BufferPoolTest {

    @Test
    void withoutAnArenaIoBuffersComeFromThePooledAllocator() throws IOException {
        try (BufferPool pool = BufferPool.create(1, 0, true)) {
            assertThat(pool.pinnedArena()).isNull();
            assertThat(pool.arenaStats()).isNull();
            assertThat(pool.ioAllocator()).isSameAs(pool.allocator());
            assertThat(pool.describe()).contains("no pinned arena");
            ByteBuf b = pool.ioBuffer(4096);
            assertThat(b.isDirect()).isTrue();
            b.release();
        }
    }

    @Test
    void withAnArenaIoBuffersArePageAlignedArenaSlots() throws IOException {
        try (BufferPool pool = BufferPool.create(1, 1 << 20, true)) {
            PinnedArena arena = pool.pinnedArena();
            assertThat(arena).isNotNull();
            assertThat(arena.isPinned()).isTrue();
            ByteBuf b = pool.ioBuffer(65536);
            try {
                assertThat(b.memoryAddress() % PinnedArena.ALIGNMENT).isZero();
                assertThat(arena.contains(b.memoryAddress(), b.capacity())).isTrue();
                assertThat(pool.describe()).contains("pinned arena 1MiB (pinned)").contains("in use 64KiB");
            } finally {
                b.release();
            }
            assertThat(pool.arenaStats().inUseBytes()).isZero();
            assertThat(pool.allocator().directBuffer(16).release()).as("the channel allocator is unchanged").isTrue();
        }
    }

    @Test
    void closingWithBuffersOutLeavesTheArenaMappedSoALateReleaseIsSafe() throws IOException {
        BufferPool pool = BufferPool.create(1, 1 << 20, false);
        ByteBuf b = pool.ioBuffer(4096);
        pool.close();
        b.writeLong(1); // still mapped
        assertThat(b.release()).isTrue();
        pool.close(); // now it unmaps
    }
}
