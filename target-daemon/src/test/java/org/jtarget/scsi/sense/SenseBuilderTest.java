package org.jtarget.scsi.sense;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class SenseBuilderTest {

    private final byte[] dst = new byte[252];

    @Test
    void fixedFormatCarriesKeyAscAscqAndFieldPointer() {
        int n = SenseBuilder.build(dst, SenseReason.INVALID_FIELD_IN_CDB, false, SenseBuilder.NONE, 7, 3, true);
        assertThat(n).isEqualTo(18);
        assertThat(dst[0]).isEqualTo((byte) 0x70);
        assertThat(dst[2]).isEqualTo((byte) 5);
        assertThat(dst[7]).isEqualTo((byte) 10);
        assertThat(dst[12]).isEqualTo((byte) 0x24);
        assertThat(dst[15] & 0xFF).isEqualTo(0x80 | 0x40 | 0x08 | 3);
        assertThat(dst[17]).isEqualTo((byte) 7);
    }

    @Test
    void fixedFormatInformationSetsValid() {
        SenseBuilder.build(dst, SenseReason.MISCOMPARE_DURING_VERIFY, false, 0x01020304L,
                SenseBuilder.NONE, SenseBuilder.NONE, true);
        assertThat(dst[0] & 0xFF).isEqualTo(0xF0);
        assertThat(dst).startsWith(0xF0 - 256, 0, 0x0E, 1, 2, 3, 4);
    }

    @Test
    void descriptorFormatHasInformationAndSenseKeySpecificDescriptors() {
        int n = SenseBuilder.build(dst, SenseReason.INVALID_FIELD_IN_PARAMETER_LIST, true, 9, 4,
                SenseBuilder.NONE, false);
        assertThat(n).isEqualTo(8 + 12 + 8);
        assertThat(dst).startsWith(0x72, 5, 0x26, 0, 0, 0, 0, 20);
        assertThat(dst[8]).isZero();
        assertThat(dst[19]).isEqualTo((byte) 9);
        assertThat(dst[20]).isEqualTo((byte) 2);
        assertThat(dst[24] & 0xFF).isEqualTo(0x80);
        assertThat(dst[26]).isEqualTo((byte) 4);
    }

    @Test
    void plainDescriptorSenseIsEightBytes() {
        assertThat(SenseBuilder.build(dst, SenseReason.POWER_ON_RESET, true)).isEqualTo(8);
        assertThat(dst).startsWith(0x72, 6, 0x29, 0, 0, 0, 0, 0);
    }
}
