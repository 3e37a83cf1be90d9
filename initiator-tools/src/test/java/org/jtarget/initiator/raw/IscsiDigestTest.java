package org.jtarget.initiator.raw;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class IscsiDigestTest {

    /** The digest of {@code data} as the bytes that go on the wire, in hex. */
    private static String wire(byte[] data) {
        byte[] out = new byte[IscsiDigest.LENGTH];
        IscsiDigest.put(out, 0, IscsiDigest.crc32c(data, 0, data.length));
        return HexFormat.of().formatHex(out);
    }

    @Test
    void rfc3720AppendixB4VectorsGiveTheListedBytesInTransmissionOrder() {
        byte[] zeros = new byte[32];
        byte[] ones = new byte[32];
        Arrays.fill(ones, (byte) 0xff);
        byte[] incrementing = new byte[32];
        byte[] decrementing = new byte[32];
        for (int i = 0; i < 32; i++) {
            incrementing[i] = (byte) i;
            decrementing[i] = (byte) (31 - i);
        }

        assertThat(wire(zeros)).isEqualTo("aa36918a");
        assertThat(wire(ones)).isEqualTo("43aba862");
        assertThat(wire(incrementing)).isEqualTo("4e79dd46");
        assertThat(wire(decrementing)).isEqualTo("5cdb3f11");
    }

    @Test
    void rfc3720AppendixB4ReadCommandPdu() {
        byte[] pdu = HexFormat.of().parseHex(String.join("",
                "01c00000", "00000000", "00000000", "00000000", "14000000", "00000400",
                "00000014", "00000018", "28000000", "00000000", "02000000", "00000000"));
        assertThat(pdu).hasSize(48);

        assertThat(wire(pdu)).isEqualTo("563a96d9");
    }

    @Test
    void valueAndWireFormRoundTripLeastSignificantByteFirst() {
        byte[] b = new byte[6];
        IscsiDigest.put(b, 1, 0x8a9136aa);

        assertThat(b).containsExactly(0, 0xaa, 0x36, 0x91, 0x8a, 0);
        assertThat(IscsiDigest.get(b, 1)).isEqualTo(0x8a9136aa);
        assertThat(IscsiDigest.crc32c(new byte[32], 0, 32)).isEqualTo(0x8a9136aa);
    }
}
