package org.jtarget.fabric.rdma;

import io.netty.buffer.ByteBuf;
import org.jtarget.buffer.BufferPool;
import org.jtarget.buffer.PinnedArena;
import org.jtarget.rdma.PinnedMemoryPolicy;
import org.jtarget.rdma.loopback.LoopbackDevice;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The transport's data allocator hands out registered memory, so that a memory store reads Data-In
 * straight into a buffer the RDMA WRITE can go from (no copy into the arena); the pool's ordinary
 * allocator does not.
 */
class RegisteredMemoryTest {

    @Test
    void dataBuffersLieInTheRegisteredArena() throws Exception {
        LoopbackDevice device = new LoopbackDevice("loopback0", LoopbackDevice.DEFAULT_ATTRIBUTES,
                PinnedMemoryPolicy.ANY_NATIVE, null);
        try (BufferPool pool = new BufferPool(1, PinnedArena.map(8 << 20, false));
             RegisteredMemory memory = RegisteredMemory.register(device.allocateProtectionDomain(), pool)) {
            ByteBuf data = memory.allocator().directBuffer(4096);
            ByteBuf control = pool.allocator().directBuffer(4096);
            assertThat(memory.contains(data, 0, 4096)).as("data buffer registered").isTrue();
            assertThat(memory.contains(control, 0, 4096)).as("pooled buffer registered").isFalse();
            data.release();
            control.release();
        }
    }
}
