package org.jtarget.initiator.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.jtarget.fabric.srp.iu.SrpPortId;
import org.jtarget.initiator.bench.BenchArguments;
import org.jtarget.initiator.crashcheck.CrashcheckArguments;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SrpUrlTest {

    private static final String PORT_ID = "0x0123456789ABCDEF00a0b1c2d3e4f501";
    private static final SrpPortId TARGET = SrpPortId.of(0x0123456789abcdefL, 0x00a0b1c2d3e4f501L);

    @Test
    void parsesHostPortTargetPortIdAndLunInEitherCase() throws Exception {
        assertThat(SrpUrl.parse("srp://10.0.0.1:7000/" + PORT_ID + "/3"))
                .isEqualTo(new SrpUrl("10.0.0.1", 7000, TARGET, 3));
        assertThat(SrpUrl.parse("srp://h/0X" + PORT_ID.substring(2).toLowerCase() + "/0").targetPort())
                .isEqualTo(TARGET);
    }

    @Test
    void defaultsThePortTo5555AndPrintsTheIdentifierAsTheDaemonNamesIt() throws Exception {
        SrpUrl u = SrpUrl.parse("srp://host/" + PORT_ID + "/0");
        assertThat(u.port()).isEqualTo(SrpUrl.DEFAULT_PORT).isEqualTo(5555);
        assertThat(u).hasToString("srp://host:5555/" + TARGET.name() + "/0");
        assertThat(SrpUrl.parse("srp://[fe80::1]:4000/" + PORT_ID + "/16383")).hasToString(
                "srp://[fe80::1]:4000/" + TARGET.name() + "/16383");
    }

    @ParameterizedTest
    @ValueSource(strings = {"srp://h", "srp://h/" + PORT_ID, "srp://h/" + PORT_ID + "/", "srp://h/" + PORT_ID + "/x",
        "srp://h/" + PORT_ID + "/16384", "srp://h/" + PORT_ID + "/0/1", "srp://h/0123456789abcdef00a0b1c2d3e4f501/0",
        "srp://h/0x0123456789abcdef00a0b1c2d3e4f5/0", "srp://h/0x0123456789abcdef00a0b1c2d3e4f5zz/0",
        "srp://u%s@h/" + PORT_ID + "/0", "srp:///" + PORT_ID + "/0", "srp://h:0/" + PORT_ID + "/0",
        "iscsi://h/iqn.x/0"})
    void badUrlsAreUsageErrors(String url) {
        assertThatThrownBy(() -> SrpUrl.parse(url)).isInstanceOfSatisfying(CliFailure.class,
                e -> assertThat(e.exitCode()).isEqualTo(CliFailure.USAGE));
    }

    @Test
    void everyCommandButDiscoverTakesIt() throws Exception {
        String url = "srp://h/" + PORT_ID + "/1";
        CliArguments a = CliArguments.parse(new String[] {"write", url, "--lba", "1", "--blocks", "2", "--pattern",
            "7", "--fua"});
        assertThat(a.srpUrl()).isEqualTo(new SrpUrl("h", 5555, TARGET, 1));
        assertThat(a.scsiUrl()).isSameAs(a.srpUrl());
        assertThat(a.url()).isNull();
        assertThat(a.fua()).isTrue();
        assertThat(a.initiatorName()).isEqualTo(CliArguments.defaultSrpInitiatorPort());
        assertThat(CliArguments.parse(new String[] {"inquiry", url, "--vpd", "0x83"}).srpUrl()).isNotNull();
        assertThat(BenchArguments.parse(new String[] {"bench", "--url", url}).url()).isInstanceOf(SrpUrl.class);
        assertThat(CrashcheckArguments.parse(new String[] {"crashcheck", "verify", "--url", url, "--journal", "j"})
                .paths().get(0).url()).isInstanceOf(SrpUrl.class);
        assertThatThrownBy(() -> CliArguments.parse(new String[] {"discover", "srp://h"}))
                .hasMessageContaining("SRP has no discovery");
    }

    @Test
    void theInitiatorPortIsAnSrpPortName() throws Exception {
        String given = "0x" + "A".repeat(32);
        assertThat(CliArguments.parse(new String[] {"readcap", "srp://h/" + PORT_ID + "/0", "--initiator-name",
            given}).initiatorName()).isEqualTo(given);
        assertThat(CliArguments.defaultSrpInitiatorPort()).matches("0x0{16}[0-9a-f]{16}")
                .isEqualTo(CliArguments.defaultSrpInitiatorPort());
        for (String bad : new String[] {"iqn.2026-11.org.example:x", "A".repeat(32), "0x" + "a".repeat(31)}) {
            assertThatThrownBy(() -> CliArguments.parse(new String[] {"readcap", "srp://h/" + PORT_ID + "/0",
                "--initiator-name", bad})).hasMessageContaining("SRP port name");
            assertThatThrownBy(() -> BenchArguments.parse(new String[] {"bench", "--url", "srp://h/" + PORT_ID + "/0",
                "--initiator-name", bad})).hasMessageContaining("SRP port name");
        }
    }
}
