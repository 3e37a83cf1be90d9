package org.jtarget.initiator.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.jtarget.fabric.endpoint.EndpointHandshake;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RdmaUrlTest {

    @Test
    void parsesHostPortAndEndpoint() throws Exception {
        assertThat(RdmaUrl.parse("rdma://10.0.0.1:5000/db-log")).isEqualTo(new RdmaUrl("10.0.0.1", 5000, "db-log"));
    }

    @Test
    void defaultsThePortToTheListenersAndPrintsItBack() throws Exception {
        RdmaUrl u = RdmaUrl.parse("rdma://host/disk");
        assertThat(u.port()).isEqualTo(EndpointHandshake.DEFAULT_PORT).isEqualTo(4791);
        assertThat(u).hasToString("rdma://host:4791/disk");
    }

    @Test
    void acceptsBracketedIpv6() throws Exception {
        RdmaUrl u = RdmaUrl.parse("rdma://[fe80::1]:4000/disk");
        assertThat(u.host()).isEqualTo("fe80::1");
        assertThat(u.port()).isEqualTo(4000);
        assertThat(u).hasToString("rdma://[fe80::1]:4000/disk");
    }

    @Test
    void theNameMayHaveUpTo64Utf8Bytes() throws Exception {
        String name = "é".repeat(32); // 64 bytes
        assertThat(RdmaUrl.parse("rdma://h/" + name).endpoint()).isEqualTo(name);
        assertThatThrownBy(() -> RdmaUrl.parse("rdma://h/" + name + "x")).isInstanceOf(CliFailure.class)
                .hasMessageContaining("longer than 64 UTF-8 bytes");
    }

    @ParameterizedTest
    @ValueSource(strings = {"iscsi://h/iqn.x/0", "rdma://h", "rdma://h/", "rdma:///disk", "rdma://h:0/disk",
        "rdma://h:65536/disk", "rdma://h:p/disk", "rdma://h/a/b", "rdma://u%s@h/disk", "rdma://[::1/disk",
        "rdma://[::1]x/disk"})
    void badUrlsAreUsageErrors(String url) {
        assertThatThrownBy(() -> RdmaUrl.parse(url)).isInstanceOfSatisfying(CliFailure.class,
                e -> assertThat(e.exitCode()).isEqualTo(CliFailure.USAGE));
    }

    @Test
    void theCommandLineCarriesTheRdmaUrlAndNoIscsiOnes() throws Exception {
        CliArguments a = CliArguments.parse(new String[] {"verify", "rdma://h/disk", "--lba", "1", "--blocks", "2",
            "--pattern", "7", "--timeout", "3"});
        assertThat(a.url()).isNull();
        assertThat(a.rdmaUrl()).isEqualTo(new RdmaUrl("h", 4791, "disk"));
        assertThat(a.initiatorName()).isNull();
        assertThat(a.timeout()).hasSeconds(3);
    }
}
