package org.jtarget.initiator.rping;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

class PingPatternTest {

    @Test
    void isRpingsTextThenCyclingLettersThenANul() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment m = arena.allocate(64);
            PingPattern.fill(m, 0, 64);
            assertThat(PingPattern.text(m, 64))
                    .isEqualTo("rdma-ping-0: ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqr");
            assertThat(m.get(ValueLayout.JAVA_BYTE, 63)).isZero();
            PingPattern.fill(m, 1, 64);
            assertThat(PingPattern.text(m, 64)).startsWith("rdma-ping-1: BCD");
        }
    }

    @Test
    void theCycleWrapsAfterLowerCaseZ() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment m = arena.allocate(100);
            PingPattern.fill(m, 57, 100); // starts at 'A' + 57 = 'z'
            assertThat(PingPattern.text(m, 100)).startsWith("rdma-ping-57: zABC");
            PingPattern.fill(m, 58, 100); // 58 pings later the cycle starts over
            assertThat(PingPattern.text(m, 100)).startsWith("rdma-ping-58: ABC");
            assertThat(PingPattern.text(m, 100)).hasSize(99);
        }
    }

    @Test
    void findsTheFirstWrongByte() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment m = arena.allocate(64);
            PingPattern.fill(m, 7, 64);
            assertThat(PingPattern.firstMismatch(m, 7, 64)).isEqualTo(-1);
            assertThat(PingPattern.firstMismatch(m, 8, 64)).isEqualTo(10); // the ping number differs
            m.set(ValueLayout.JAVA_BYTE, 40, (byte) 0);
            assertThat(PingPattern.firstMismatch(m, 7, 64)).isEqualTo(40);
            assertThat(PingPattern.cStringLength(m, 64)).isEqualTo(40);
        }
    }
}
