package org.jtarget.rdma;

import org.jtarget.rdma.loopback.LoopbackDevice;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.EnumSet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ProtectionDomainTest {

    @Test
    void heapMemoryCannotBeRegistered() {
        ProtectionDomain pd = new LoopbackDevice().allocateProtectionDomain();
        assertThatThrownBy(() -> pd.registerMemoryRegion(MemorySegment.ofArray(new byte[64]), RdmaFixture.ALL))
                .isInstanceOf(RdmaException.class);
    }

    @Test
    void remoteWriteNeedsLocalWrite() {
        ProtectionDomain pd = new LoopbackDevice().allocateProtectionDomain();
        try (Arena arena = Arena.ofShared()) {
            assertThatThrownBy(() -> pd.registerMemoryRegion(arena.allocate(64), EnumSet.of(AccessFlag.REMOTE_WRITE)))
                    .isInstanceOf(RdmaException.class).hasMessageContaining("LOCAL_WRITE");
        }
    }

    @Test
    void thePolicyDecidesWhichMemoryIsRegistered() {
        LoopbackDevice device = new LoopbackDevice("pinned-only", LoopbackDevice.DEFAULT_ATTRIBUTES,
                s -> "not from a pinned arena", null);
        ProtectionDomain pd = device.allocateProtectionDomain();
        try (Arena arena = Arena.ofShared()) {
            assertThatThrownBy(() -> pd.registerMemoryRegion(arena.allocate(64), RdmaFixture.ALL))
                    .hasMessageContaining("pinned");
        }
    }

    @Test
    void keysAreDistinctAndDieWithDeregistration() throws RdmaException {
        LoopbackDevice device = new LoopbackDevice();
        ProtectionDomain pd = device.allocateProtectionDomain();
        try (Arena arena = Arena.ofShared()) {
            MemoryRegion a = pd.registerMemoryRegion(arena.allocate(64), RdmaFixture.ALL);
            MemoryRegion b = pd.registerMemoryRegion(arena.allocate(64), RdmaFixture.ALL);
            assertThat(a.lkey()).isNotEqualTo(a.rkey()).isNotEqualTo(b.lkey());
            assertThat(device.lookupRegion(a.lkey(), false)).isSameAs(a);
            assertThat(device.lookupRegion(a.lkey(), true)).isNull();
            assertThat(device.lookupRegion(a.rkey(), true)).isSameAs(a);
            pd.deregister(a);
            assertThat(device.lookupRegion(a.rkey(), true)).isNull();
            MemoryRegion c = pd.registerMemoryRegion(arena.allocate(64), RdmaFixture.ALL);
            assertThat(c.rkey()).as("reused slot, new generation").isNotEqualTo(a.rkey());
            assertThat(device.lookupRegion(a.rkey(), true)).isNull();
        }
    }

    @Test
    void aRegionInUseCannotBeDeregistered() throws RdmaException {
        ProtectionDomain pd = new LoopbackDevice().allocateProtectionDomain();
        try (Arena arena = Arena.ofShared()) {
            MemoryRegion mr = pd.registerMemoryRegion(arena.allocate(64), RdmaFixture.ALL);
            assertThat(mr.acquire()).isTrue();
            assertThatThrownBy(() -> pd.deregister(mr)).isInstanceOf(RdmaException.class)
                    .extracting(e -> ((RdmaException) e).errno()).isEqualTo(Errno.EBUSY);
            mr.release();
            pd.deregister(mr);
            assertThat(mr.acquire()).isFalse();
        }
    }

    @Test
    void offsetsOutsideTheRegionAreRefused() throws RdmaException {
        ProtectionDomain pd = new LoopbackDevice().allocateProtectionDomain();
        try (Arena arena = Arena.ofShared()) {
            MemoryRegion mr = pd.registerMemoryRegion(arena.allocate(64), RdmaFixture.ALL);
            assertThat(mr.offsetOf(mr.address(), 64)).isZero();
            assertThat(mr.offsetOf(mr.address() + 60, 4)).isEqualTo(60);
            assertThat(mr.offsetOf(mr.address() + 60, 5)).isEqualTo(-1);
            assertThat(mr.offsetOf(mr.address() - 1, 1)).isEqualTo(-1);
            assertThat(mr.offsetOf(mr.address() + 1, Long.MAX_VALUE)).isEqualTo(-1);
        }
    }
}
