package org.jtarget.daemon;

import org.jtarget.config.ChapConfig;
import org.jtarget.fabric.iscsi.ChapAlgorithm;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The config (a leaf package) names CHAP algorithms itself; the daemon maps them to the fabric's. */
class ChapAlgorithmNamesTest {

    @Test
    void everyConfigNameMapsToAnAlgorithmInTheSameDefaultOrder() {
        assertThat(ChapConfig.ALGORITHMS.stream().map(ChapAlgorithm::ofConfigName).toList())
                .isEqualTo(ChapAlgorithm.DEFAULT_PREFERENCE);
        assertThat(ChapConfig.ALGORITHMS).containsExactlyInAnyOrderElementsOf(ChapAlgorithm.configNames());
    }

    @Test
    void codesAreTheIanaPppAuthenticationAlgorithmNumbers() {
        assertThat(ChapAlgorithm.ofCode("5")).isEqualTo(ChapAlgorithm.MD5);
        assertThat(ChapAlgorithm.ofCode("6")).isEqualTo(ChapAlgorithm.SHA1);
        assertThat(ChapAlgorithm.ofCode("7")).isEqualTo(ChapAlgorithm.SHA256);
        assertThat(ChapAlgorithm.ofCode("8")).isEqualTo(ChapAlgorithm.SHA3_256);
        assertThat(ChapAlgorithm.ofCode("55")).isNull();
    }
}
