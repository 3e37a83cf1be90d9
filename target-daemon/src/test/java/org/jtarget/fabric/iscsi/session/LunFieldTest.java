package org.jtarget.fabric.iscsi.session;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class LunFieldTest {

    @Test
    void peripheralAndFlatAddressingDecode() {
        assertThat(LunField.decode(0x0005_0000_0000_0000L)).isEqualTo(5);
        assertThat(LunField.decode(0x4101_0000_0000_0000L)).isEqualTo(257);
        assertThat(LunField.decode(LunField.encode(300))).isEqualTo(300);
        assertThat(LunField.decode(LunField.encode(7))).isEqualTo(7);
    }

    @Test
    void otherMethodsAndLevelsAreUnsupported() {
        assertThat(LunField.decode(0x8001_0000_0000_0000L)).isEqualTo(LunField.UNSUPPORTED);
        assertThat(LunField.decode(0x0001_0002_0000_0000L)).isEqualTo(LunField.UNSUPPORTED);
        assertThat(LunField.decode(0x0101_0000_0000_0000L)).isEqualTo(LunField.UNSUPPORTED);
    }
}
