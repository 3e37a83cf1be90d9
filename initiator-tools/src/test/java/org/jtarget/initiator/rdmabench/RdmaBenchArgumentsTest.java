package org.jtarget.initiator.rdmabench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.jtarget.initiator.cli.CliFailure;
import org.junit.jupiter.api.Test;

class RdmaBenchArgumentsTest {

    @Test
    void defaultsToBothProvidersForTwoSeconds() throws CliFailure {
        RdmaBenchArguments a = RdmaBenchArguments.parse(new String[] {"rdma-bench"});
        assertThat(a.seconds()).isEqualTo(2);
        assertThat(a.providers()).containsExactly("loopback", "iwarp");
        assertThat(a.ops()).containsExactly("write", "read");
        assertThat(a.sizes()).containsExactly(4096, 65536, 1048576);
        assertThat(a.bufferPerRequest()).isFalse();
    }

    @Test
    void readsSecondsAndProvider() throws CliFailure {
        RdmaBenchArguments a = RdmaBenchArguments.parse(new String[] {"rdma-bench", "--seconds=5", "--provider", "iwarp"});
        assertThat(a).isEqualTo(new RdmaBenchArguments(5, List.of("iwarp"), List.of("write", "read"),
                RdmaBenchArguments.DEFAULT_SIZES, false));
    }

    @Test
    void narrowsToOneOperationAndSize() throws CliFailure {
        RdmaBenchArguments a = RdmaBenchArguments.parse(new String[] {"rdma-bench", "--op", "read", "--size", "65536"});
        assertThat(a.ops()).containsExactly("read");
        assertThat(a.sizes()).containsExactly(65536);
        assertThat(RdmaBenchArguments.parse(new String[] {"rdma-bench", "--buffers=per-request"}).bufferPerRequest())
                .isTrue();
    }

    @Test
    void refusesUnknownOptionsAndValues() {
        assertThatThrownBy(() -> RdmaBenchArguments.parse(new String[] {"rdma-bench", "--qd", "4"}))
                .isInstanceOf(CliFailure.class).hasMessageContaining("--qd");
        assertThatThrownBy(() -> RdmaBenchArguments.parse(new String[] {"rdma-bench", "--provider", "ib"}))
                .isInstanceOf(CliFailure.class);
        assertThatThrownBy(() -> RdmaBenchArguments.parse(new String[] {"rdma-bench", "--seconds", "0"}))
                .isInstanceOf(CliFailure.class);
        assertThatThrownBy(() -> RdmaBenchArguments.parse(new String[] {"rdma-bench", "--op", "send"}))
                .isInstanceOf(CliFailure.class).hasMessageContaining("--op");
        assertThatThrownBy(() -> RdmaBenchArguments.parse(new String[] {"rdma-bench", "--size", "8388608"}))
                .isInstanceOf(CliFailure.class).hasMessageContaining("--size");
        assertThatThrownBy(() -> RdmaBenchArguments.parse(new String[] {"rdma-bench", "--buffers", "two"}))
                .isInstanceOf(CliFailure.class).hasMessageContaining("--buffers");
    }

    @Test
    void printsOneLinePerCaseInMegabits() {
        assertThat(RdmaBench.line("iwarp", true, 65536, 1.25e9, 2.5e9))
                .isEqualTo("rdma-bench provider=iwarp op=write size=65536 mbps=10000 baseline-mbps=20000");
    }

    @Test
    void medianOfRounds() {
        assertThat(RdmaBench.median(new double[] {3, 1, 2})).isEqualTo(2);
        assertThat(RdmaBench.median(new double[] {4, 1, 2, 3})).isEqualTo(2.5);
    }
}
