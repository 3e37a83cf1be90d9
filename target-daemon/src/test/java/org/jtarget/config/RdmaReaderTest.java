package org.jtarget.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RdmaReaderTest {

    private static final String BASE = """
            portals:
              - name: default
                listen: 127.0.0.1:3260
            backstores:
              - { name: ram0, type: memory, size: 1MiB }
              - { name: big, type: memory, size: 1GiB, block-size: 4096 }
              - { name: part, type: partition, of: big, offset: 0, size: 64MiB }
            targets:
              - iqn: iqn.2026-11.org.jtarget:demo
                portals: [default]
                acl: ["*"]
                luns:
                  - { lun: 0, backstore: ram0 }
            """;

    @TempDir
    Path dir;

    private JtargetConfig load(String rdma) throws Exception {
        Path file = dir.resolve("jtarget.yaml");
        Files.writeString(file, BASE + rdma);
        return ConfigLoader.load(file);
    }

    private void assertError(String rdma, String expected) {
        assertThatThrownBy(() -> load(rdma)).isInstanceOf(ConfigException.class)
                .hasMessage(dir.resolve("jtarget.yaml") + ": " + expected);
    }

    @Test
    void noRdmaSectionMeansNoEndpoints() throws Exception {
        assertThat(load("").rdma()).isNull();
    }

    @Test
    void readsEndpointsWithTheirDefaults() throws Exception {
        RdmaConfig r = load("""
                rdma:
                  listen: "[::1]:4791"
                  endpoints:
                    - { name: ram0-direct, backstore: ram0, allowed-peers: [127.0.0.1, "::1"] }
                    - name: part.ro
                      backstore: part
                      first-block: 16
                      block-count: 1024
                      read-only: true
                      write-through: false
                      allowed-peers: ["[fe80::1]", 10.0.0.7]
                """).rdma();
        assertThat(r.host()).isEqualTo("::1");
        assertThat(r.port()).isEqualTo(4791);
        assertThat(r.endpoints()).containsExactly(
                new RdmaConfig.EndpointConfig("ram0-direct", "ram0", 0, 0, false, true,
                        List.of("127.0.0.1", "0:0:0:0:0:0:0:1")),
                new RdmaConfig.EndpointConfig("part.ro", "part", 16, 1024, true, false,
                        List.of("fe80:0:0:0:0:0:0:1", "10.0.0.7")));
    }

    @Test
    void everyProblemNamesItsKey() {
        String one = "    - { name: e, backstore: ram0, allowed-peers: [127.0.0.1] }\n";
        assertError("rdma:\n  endpoints:\n" + one, "rdma.listen: missing (required)");
        assertError("rdma:\n  listen: localhost:4791\n  endpoints:\n" + one, "rdma.listen: bad address 'localhost' "
                + "(use an IPv4 literal such as 0.0.0.0 or a bracketed IPv6 literal such as [::])");
        assertError("rdma:\n  listen: 127.0.0.1:3260\n  endpoints:\n" + one,
                "rdma.listen: 127.0.0.1:3260 is also portal 'default's address");
        assertError("rdma:\n  listen: 127.0.0.1:4791\n", "rdma.endpoints: missing (at least one endpoint is required)");
        assertError("rdma:\n  listen: 127.0.0.1:4791\n  port: 1\n  endpoints:\n" + one,
                "rdma.port: unknown key (expected one of: listen, endpoints)");
        assertError("rdma:\n  listen: 127.0.0.1:4791\n  endpoints:\n" + one + one,
                "rdma.endpoints[1].name: duplicate endpoint name 'e'");
        String head = "rdma:\n  listen: 127.0.0.1:4791\n  endpoints:\n";
        assertError(head + "    - { name: a/b, backstore: ram0, allowed-peers: [127.0.0.1] }\n",
                "rdma.endpoints[0].name: 'a/b': 1 to 64 of A-Z a-z 0-9 . _ : -");
        assertError(head + "    - { name: e, backstore: nope, allowed-peers: [127.0.0.1] }\n",
                "rdma.endpoints[0].backstore: no backstore named 'nope'");
        assertError(head + "    - { name: e, backstore: ram0, readonly: true, allowed-peers: [127.0.0.1] }\n",
                "rdma.endpoints[0].readonly: unknown key (expected one of: name, backstore, first-block, block-count, "
                        + "read-only, write-through, allowed-peers)");
        assertError(head + "    - { name: e, backstore: ram0 }\n", "rdma.endpoints[0].allowed-peers: missing "
                + "(list the IP addresses that may connect; there is no wildcard)");
        assertError(head + "    - { name: e, backstore: ram0, allowed-peers: [\"*\"] }\n",
                "rdma.endpoints[0].allowed-peers[0]: '*' is not an IP address literal "
                        + "(host names and wildcards are not accepted)");
        assertError(head + "    - { name: e, backstore: ram0, allowed-peers: [127.0.0.1, db1] }\n",
                "rdma.endpoints[0].allowed-peers[1]: 'db1' is not an IP address literal "
                        + "(host names and wildcards are not accepted)");
        assertError(head + "    - { name: e, backstore: ram0, first-block: -1, allowed-peers: [127.0.0.1] }\n",
                "rdma.endpoints[0].first-block: expected a whole number of blocks from 0, got '-1'");
    }

    @Test
    void theRangeMustLieInsideTheStore() {
        String head = "rdma:\n  listen: 127.0.0.1:4791\n  endpoints:\n";
        // ram0: 1 MiB of 512-byte blocks = 2048 blocks
        assertError(head + "    - { name: e, backstore: ram0, first-block: 2048, allowed-peers: [127.0.0.1] }\n",
                "rdma.endpoints[0].first-block: 2048 is past the end of backstore 'ram0' (2048 blocks)");
        assertError(head + "    - { name: e, backstore: ram0, first-block: 2000, block-count: 49, "
                        + "allowed-peers: [127.0.0.1] }\n",
                "rdma.endpoints[0].block-count: 2000 + 49 blocks is past the end of backstore 'ram0' (2048 blocks)");
    }

    @Test
    void aRangeThatFitsIsAccepted() throws Exception {
        RdmaConfig r = load("rdma:\n  listen: 127.0.0.1:4791\n  endpoints:\n"
                + "    - { name: e, backstore: ram0, first-block: 2000, block-count: 48, allowed-peers: [127.0.0.1] }\n")
                .rdma();
        assertThat(r.endpoints().getFirst().blockCount()).isEqualTo(48);
    }
}
