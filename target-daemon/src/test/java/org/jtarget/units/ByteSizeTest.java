package org.jtarget.units;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ByteSizeTest {

    @Test
    void parsesPlainBytesAndBinaryUnits() {
        assertThat(ByteSize.parse("4096")).isEqualTo(4096);
        assertThat(ByteSize.parse("4K")).isEqualTo(4096);
        assertThat(ByteSize.parse("4KiB")).isEqualTo(4096);
        assertThat(ByteSize.parse("3 MiB")).isEqualTo(3L << 20);
        assertThat(ByteSize.parse("1g")).isEqualTo(1L << 30);
        assertThat(ByteSize.parse("2TiB")).isEqualTo(2L << 40);
    }

    @Test
    void refusesDecimalUnitsAndGarbage() {
        assertThatThrownBy(() -> ByteSize.parse("1GB")).hasMessageStartingWith("bad size '1GB'");
        assertThatThrownBy(() -> ByteSize.parse("-1")).hasMessageStartingWith("bad size");
        assertThatThrownBy(() -> ByteSize.parse("1.5G")).hasMessageStartingWith("bad size");
    }

    @Test
    void refusesOverflow() {
        assertThatThrownBy(() -> ByteSize.parse("9999999999T")).hasMessageContaining("too large");
    }

    @Test
    void formatsWithTheLargestExactUnit() {
        assertThat(ByteSize.format(1L << 30)).isEqualTo("1GiB");
        assertThat(ByteSize.format(1536L << 10)).isEqualTo("1536KiB");
        assertThat(ByteSize.format(100)).isEqualTo("100 bytes");
    }
}
