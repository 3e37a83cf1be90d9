package org.jtarget.scsi.spi;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class LunAddressTest {

    @Test
    void peripheralAndFlatAddressingDecode() {
        assertThat(LunAddress.decode(0x0005_0000_0000_0000L)).isEqualTo(5);
        assertThat(LunAddress.decode(0x4101_0000_0000_0000L)).isEqualTo(257);
        assertThat(LunAddress.decode(LunAddress.encode(300))).isEqualTo(300);
        assertThat(LunAddress.decode(LunAddress.encode(7))).isEqualTo(7);
    }

    @Test
    void otherMethodsAndLevelsAreUnsupported() {
        assertThat(LunAddress.decode(0x8001_0000_0000_0000L)).isEqualTo(LunAddress.UNSUPPORTED);
        assertThat(LunAddress.decode(0x0001_0002_0000_0000L)).isEqualTo(LunAddress.UNSUPPORTED);
        assertThat(LunAddress.decode(0x0101_0000_0000_0000L)).isEqualTo(LunAddress.UNSUPPORTED);
    }
}
