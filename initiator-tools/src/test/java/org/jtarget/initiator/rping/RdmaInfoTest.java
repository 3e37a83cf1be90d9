package org.jtarget.initiator.rping;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class RdmaInfoTest {

    @Test
    void isSixteenBytesInNetworkByteOrder() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment m = arena.allocate(RdmaInfo.BYTES);
            new RdmaInfo(0x0102030405060708L, 0x0a0b0c0d, 64).writeTo(m);
            assertThat(HexFormat.of().formatHex(m.toArray(ValueLayout.JAVA_BYTE)))
                    .isEqualTo("0102030405060708" + "0a0b0c0d" + "00000040");
        }
    }

    @Test
    void readsWhatRpingSends() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment m = arena.allocate(RdmaInfo.BYTES);
            MemorySegment.copy(HexFormat.of().parseHex("00007f1234560000" + "deadbeef" + "0000ffff"), 0, m,
                    ValueLayout.JAVA_BYTE, 0, RdmaInfo.BYTES);
            RdmaInfo info = RdmaInfo.readFrom(m);
            assertThat(info).isEqualTo(new RdmaInfo(0x7f1234560000L, 0xdeadbeef, 65535));
            assertThat(info.toString()).isEqualTo("addr 0x7f1234560000 rkey 0xdeadbeef len 65535");
        }
    }

    @Test
    void roundTripsAndKeepsTheSizeUnsigned() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment m = arena.allocate(RdmaInfo.BYTES);
            RdmaInfo big = new RdmaInfo(-1L, -2, 0xfffffff0);
            big.writeTo(m);
            assertThat(RdmaInfo.readFrom(m)).isEqualTo(big);
            assertThat(big.unsignedSize()).isEqualTo(0xfffffff0L);
        }
    }
}
