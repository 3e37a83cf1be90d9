package org.jtarget.daemon;

import org.jtarget.config.AluaSetting;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class AluaStatesTest {

    @Test
    void eachSettingStartsItsGroupInTheStateOfTheSameName() {
        for (AluaSetting setting : AluaSetting.values()) {
            assertThat(AluaStates.of(setting).name()).isEqualTo(setting.name());
        }
    }
}
