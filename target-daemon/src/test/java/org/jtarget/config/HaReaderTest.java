package org.jtarget.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code ha:} section: a full one, its defaults, and every rule naming its key. */
class HaReaderTest {

    private static final String BASE = """
            portals:
              - name: default
                listen: 127.0.0.1:3260
            backstores:
              - { name: ram0, type: memory, size: 1MiB }
              - { name: file0, type: file, path: file0.img, size: 4MiB, create: true }
              - { name: big, type: memory, size: 1GiB, block-size: 4096 }
              - { name: part, type: partition, of: big, offset: 0, size: 64MiB }
            targets:
              - iqn: iqn.2026-11.org.jtarget:demo
                portals: [default]
                acl: ["*"]
                luns:
                  - { lun: 0, backstore: ram0 }
            """;
    private static final String NODE = "node: alpha";
    private static final String LISTEN = "listen: 0.0.0.0:7700";
    private static final String PEER = "peer: { node: beta, address: 192.0.2.2:7700 }";
    private static final String STORES = "backstores: [ram0]";

    @TempDir
    Path dir;

    private JtargetConfig load(String ha) throws Exception {
        return new ConfigFile(dir).load(BASE + ha);
    }

    private void assertError(String ha, String expected) {
        new ConfigFile(dir).assertError(BASE + ha, expected);
    }

    /** An {@code ha:} map of these lines. */
    private static String ha(String... lines) {
        return "ha:\n  " + String.join("\n  ", lines) + "\n";
    }

    /** The required keys, then {@code more}. */
    private static String haWith(String... more) {
        String[] lines = new String[4 + more.length];
        lines[0] = NODE;
        lines[1] = LISTEN;
        lines[2] = PEER;
        lines[3] = STORES;
        System.arraycopy(more, 0, lines, 4, more.length);
        return ha(lines);
    }

    @Test
    void noHaSectionMeansNoPair() throws Exception {
        assertThat(load("").ha()).isNull();
    }

    @Test
    void readsAFullSection() throws Exception {
        HaConfig ha = load("""
                ha:
                  node: alpha
                  listen: "[::]:7700"
                  peer:
                    node: beta
                    address: "[fd00::2]:7700"
                  witness: witness-1.example.org:7800
                  preferred-primary: beta
                  heartbeat-interval: 500ms
                  heartbeat-timeout: 2
                  region-size: 1MiB
                  backstores: [file0, ram0]
                """).ha();
        assertThat(ha).isEqualTo(new HaConfig("alpha", "::", 7700, "beta", "fd00::2", 7700,
                "witness-1.example.org", 7800, "beta", Duration.ofMillis(500), Duration.ofSeconds(2), 1 << 20,
                List.of("file0", "ram0")));
        assertThat(ha.hasWitness()).isTrue();
        assertThat(ha.replicates("ram0")).isTrue();
        assertThat(ha.replicates("big")).isFalse();
        assertThat(ha.pairId()).isEqualTo("alpha+beta");
    }

    @Test
    void optionalKeysTakeTheirDefaults() throws Exception {
        HaConfig ha = load(ha("node: beta", LISTEN, "peer: { node: alpha, address: db-a:7700 }", STORES)).ha();
        assertThat(ha).isEqualTo(new HaConfig("beta", "0.0.0.0", 7700, "alpha", "db-a", 7700, null, 0, "alpha",
                Duration.ofSeconds(1), Duration.ofSeconds(5), 4096, List.of("ram0")));
        assertThat(ha.hasWitness()).isFalse();
        // the same on both nodes: the names sorted, whichever is this one
        assertThat(ha.pairId()).isEqualTo("alpha+beta");
    }

    @Test
    void durationsAreSecondsOrCarryTheirUnit() throws Exception {
        HaConfig ha = load(haWith("heartbeat-interval: 3", "heartbeat-timeout: 6s")).ha();
        assertThat(ha.heartbeatInterval()).isEqualTo(Duration.ofSeconds(3));
        assertThat(ha.heartbeatTimeout()).isEqualTo(Duration.ofSeconds(6));
        assertThat(load(haWith("heartbeat-interval: 250ms", "heartbeat-timeout: 500ms")).ha().heartbeatTimeout())
                .isEqualTo(Duration.ofMillis(500));
    }

    @Test
    void theShippedExampleIsValidWhenUncommented() throws Exception {
        String shipped = Files.readString(Path.of("..", "conf", "jtarget.yaml"));
        int start = shipped.indexOf("\n# ha:\n");
        assertThat(start).isPositive();
        String uncommented = shipped.substring(start + 1).replaceAll("(?m)^# ?", "");
        HaConfig ha = new ConfigFile(dir).load(shipped.substring(0, start + 1) + uncommented).ha();
        assertThat(ha.node()).isEqualTo("alpha");
        assertThat(ha.backstores()).containsExactly("file0");
    }

    @Test
    void unknownKeysAreRefused() {
        assertError(haWith("port: 7700"), "ha.port: unknown key (expected one of: node, listen, peer, witness, "
                + "preferred-primary, heartbeat-interval, heartbeat-timeout, region-size, backstores)");
        assertError(ha(NODE, LISTEN, "peer: { node: beta, host: 192.0.2.2:7700 }", STORES),
                "ha.peer.host: unknown key (expected one of: node, address)");
    }

    @Test
    void requiredKeys() {
        assertError(ha(LISTEN, PEER, STORES), "ha.node: missing (required)");
        assertError(ha(NODE, PEER, STORES), "ha.listen: missing (required)");
        assertError(ha(NODE, LISTEN, STORES), "ha.peer: missing (required: the other node's node and address)");
        assertError(ha(NODE, LISTEN, "peer: { address: 192.0.2.2:7700 }", STORES), "ha.peer.node: missing (required)");
        assertError(ha(NODE, LISTEN, "peer: { node: beta }", STORES), "ha.peer.address: missing (required)");
        assertError(ha(NODE, LISTEN, PEER), "ha.backstores: missing (at least one replicated backstore is required)");
        assertError(ha(NODE, LISTEN, PEER, "backstores: []"),
                "ha.backstores: missing (at least one replicated backstore is required)");
    }

    @Test
    void nodeNamesAreShortWithoutSpaces() {
        assertError(ha("node: al pha", LISTEN, PEER, STORES), "ha.node: 'al pha': 1 to 64 of A-Z a-z 0-9 . _ -");
        assertError(ha(NODE, LISTEN, "peer: { node: b/c, address: 192.0.2.2:7700 }", STORES),
                "ha.peer.node: 'b/c': 1 to 64 of A-Z a-z 0-9 . _ -");
        String long65 = "n".repeat(65);
        assertError(ha("node: " + long65, LISTEN, PEER, STORES),
                "ha.node: '" + long65 + "': 1 to 64 of A-Z a-z 0-9 . _ -");
    }

    @Test
    void thePeerHasAnotherName() {
        assertError(ha(NODE, LISTEN, "peer: { node: alpha, address: 192.0.2.2:7700 }", STORES),
                "ha.peer.node: 'alpha' is this node's name (ha.node) too; the two need different names");
    }

    @Test
    void listenIsALiteralAddress() {
        assertError(ha(NODE, "listen: alpha:7700", PEER, STORES), "ha.listen: bad address 'alpha' "
                + "(use an IPv4 literal such as 0.0.0.0 or a bracketed IPv6 literal such as [::])");
        assertError(ha(NODE, "listen: 0.0.0.0:0", PEER, STORES), "ha.listen: bad port '0' (1..65535)");
    }

    @Test
    void listenIsNoPortalsAddress() {
        assertError(ha(NODE, "listen: 127.0.0.1:3260", PEER, STORES),
                "ha.listen: 127.0.0.1:3260 is also portal 'default's address");
    }

    @Test
    void listenIsNotRdmaListen() {
        String rdma = "rdma:\n  listen: 127.0.0.1:4791\n  endpoints:\n"
                + "    - { name: e, backstore: big, allowed-peers: [127.0.0.1] }\n";
        assertError(rdma + ha(NODE, "listen: 127.0.0.1:4791", PEER, STORES),
                "ha.listen: 127.0.0.1:4791 is also rdma.listen");
    }

    @Test
    void thePeerAddressIsHostAndPort() {
        assertError(ha(NODE, LISTEN, "peer: { node: beta, address: 192.0.2.2 }", STORES),
                "ha.peer.address: expected host:port, got '192.0.2.2' (IPv6: \"[::]:3260\", quoted)");
        assertError(ha(NODE, LISTEN, "peer: { node: beta, address: \"fd00::2:7700\" }", STORES),
                "ha.peer.address: bad address 'fd00::2' (use a host name, an IPv4 literal such as 0.0.0.0 or a "
                        + "bracketed IPv6 literal such as [::])");
        assertError(ha(NODE, LISTEN, "peer: { node: beta, address: 192.0.2.256:7700 }", STORES),
                "ha.peer.address: bad address '192.0.2.256' (use a host name, an IPv4 literal such as 0.0.0.0 or a "
                        + "bracketed IPv6 literal such as [::])");
        assertError(ha(NODE, LISTEN, "peer: { node: beta, address: db_b:7700 }", STORES),
                "ha.peer.address: bad address 'db_b' (use a host name, an IPv4 literal such as 0.0.0.0 or a "
                        + "bracketed IPv6 literal such as [::])");
        assertError(ha(NODE, LISTEN, "peer: { node: beta, address: db-b:70000 }", STORES),
                "ha.peer.address: bad port '70000' (1..65535)");
        assertError(ha(NODE, "listen: 127.0.0.1:7700", "peer: { node: beta, address: 127.0.0.1:7700 }", STORES),
                "ha.peer.address: 127.0.0.1:7700 is this node's own ha.listen");
    }

    @Test
    void theWitnessIsAThirdAddress() {
        assertError(haWith("witness: 192.0.2.3"),
                "ha.witness: expected host:port, got '192.0.2.3' (IPv6: \"[::]:3260\", quoted)");
        assertError(haWith("witness: 192.0.2.2:7700"),
                "ha.witness: 192.0.2.2:7700 is one of the pair's own addresses; the witness is a third daemon");
    }

    @Test
    void thePreferredPrimaryIsOneOfTheTwo() throws Exception {
        assertError(haWith("preferred-primary: gamma"),
                "ha.preferred-primary: 'gamma' is neither ha.node 'alpha' nor ha.peer.node 'beta'");
        assertThat(load(haWith("preferred-primary: beta")).ha().preferredPrimary()).isEqualTo("beta");
    }

    @Test
    void heartbeatsAreDurations() {
        String bad = " (whole seconds, or a whole number with s or ms: 5s, 500ms), got ";
        assertError(haWith("heartbeat-interval: 1 minute"),
                "ha.heartbeat-interval: expected a duration from 1ms to 3600s" + bad + "'1 minute'");
        assertError(haWith("heartbeat-interval: 0"), "ha.heartbeat-interval: expected a duration from 1ms to 3600s"
                + bad + "'0'");
        assertError(haWith("heartbeat-interval: 1.5"), "ha.heartbeat-interval: expected a duration from 1ms to 3600s"
                + bad + "'1.5'");
        assertError(haWith("heartbeat-timeout: 3601s"), "ha.heartbeat-timeout: expected a duration from 1ms to 3600s"
                + bad + "'3601s'");
    }

    @Test
    void theTimeoutIsAtLeastTwoIntervals() throws Exception {
        assertError(haWith("heartbeat-interval: 3s"),
                "ha.heartbeat-timeout: 5s is less than twice heartbeat-interval 3s (one lost heartbeat must not end "
                        + "the pair)");
        assertError(haWith("heartbeat-interval: 400ms", "heartbeat-timeout: 799ms"),
                "ha.heartbeat-timeout: 799ms is less than twice heartbeat-interval 400ms (one lost heartbeat must not "
                        + "end the pair)");
        assertThat(load(haWith("heartbeat-interval: 400ms", "heartbeat-timeout: 800ms")).ha().heartbeatTimeout())
                .isEqualTo(Duration.ofMillis(800));
    }

    @Test
    void theRegionSizeIsAPowerOfTwoFrom4KiBTo64MiB() throws Exception {
        String range = "ha.region-size: must be a power of two from 4KiB to 64MiB, got ";
        assertError(haWith("region-size: 12KiB"), range + "12KiB");
        assertError(haWith("region-size: 2048"), range + "2048");
        assertError(haWith("region-size: 128MiB"), range + "128MiB");
        assertError(haWith("region-size: 4KB"), "ha.region-size: bad size '4KB' "
                + "(use bytes or a binary unit: K, M, G, T, KiB, MiB, GiB, TiB)");
        assertThat(load(haWith("region-size: 64MiB")).ha().regionSize()).isEqualTo(64 << 20);
    }

    @Test
    void replicatedBackstoresExistOnceAndAreNoPartitions() {
        assertError(ha(NODE, LISTEN, PEER, "backstores: [ram0, nope]"), "ha.backstores[1]: no backstore named 'nope'");
        assertError(ha(NODE, LISTEN, PEER, "backstores: [ram0, file0, ram0]"),
                "ha.backstores[2]: 'ram0' is listed twice");
        assertError(ha(NODE, LISTEN, PEER, "backstores: [part]"),
                "ha.backstores[0]: 'part' is a partition of 'big'; replicate its parent 'big' instead");
    }

    @Test
    void nothingMayWriteAroundAReplicatedStore() {
        assertError(ha(NODE, LISTEN, PEER, "backstores: [big]"), "ha.backstores[0]: 'big' has partition 'part', which"
                + " would write around the replication; partitions of a replicated store are not supported");
        String endpoint = """
                rdma:
                  listen: 127.0.0.1:4791
                  endpoints:
                    - { name: e, backstore: file0, allowed-peers: [127.0.0.1] }
                """;
        assertError(endpoint + ha(NODE, LISTEN, PEER, "backstores: [file0]"), "ha.backstores[0]: 'file0' is exposed"
                + " writable by rdma endpoint 'e', which would write around the replication; make the endpoint read-only");
    }
}
