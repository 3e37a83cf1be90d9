package org.jtarget.config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ConfigLoaderTest {

    private static final String PORTALS = """
            portals:
              - name: default
                listen: 127.0.0.1:3260
            """;
    private static final String STORES = """
            backstores:
              - { name: ram0, type: memory, size: 1GiB }
            """;
    private static final String TARGET_HEAD = """
            targets:
              - iqn: iqn.2026-11.org.jtarget:demo
                portals: [default]
                acl: ["*"]
            """;

    @TempDir
    Path dir;

    private JtargetConfig load(String yaml) throws Exception {
        Path file = dir.resolve("jtarget.yaml");
        Files.writeString(file, yaml);
        return ConfigLoader.load(file);
    }

    private void assertError(String yaml, String expected) {
        assertThatThrownBy(() -> load(yaml)).isInstanceOf(ConfigException.class)
                .hasMessage(dir.resolve("jtarget.yaml") + ": " + expected)
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }

    private static String withLuns(String luns) {
        return PORTALS + STORES + TARGET_HEAD + "    luns:\n" + luns;
    }

    @Test
    void loadsTheExampleShape() throws Exception {
        JtargetConfig c = load(PORTALS + """
                backstores:
                  - { name: ram0,  type: memory, size: 1GiB }
                  - { name: file0, type: file, path: data/file0.img, size: 4GiB, create: true }
                targets:
                  - iqn: iqn.2026-11.org.jtarget:demo
                    alias: demo
                    portals: [default]
                    luns:
                      - { lun: 1, backstore: file0, read-only: true }
                      - { lun: 0, backstore: ram0 }
                    acl: ["*"]
                    chap: { user: alice, secret: 0123456789ab, mutual-user: tgt, mutual-secret: ba9876543210 }
                """);
        assertThat(c.portals()).containsExactly(new PortalConfig("default", "127.0.0.1", 3260, 1));
        assertThat(c.backstores()).containsExactly(
                new BackstoreConfig("ram0", BackstoreConfig.Type.MEMORY, null, 1L << 30, false, 512, true, null),
                new BackstoreConfig("file0", BackstoreConfig.Type.FILE, dir.resolve("data/file0.img"), 4L << 30,
                        true, 512, false, null));
        TargetConfig t = c.targets().get(0);
        assertThat(t.iqn()).isEqualTo("iqn.2026-11.org.jtarget:demo");
        assertThat(t.alias()).isEqualTo("demo");
        assertThat(t.portalNames()).containsExactly("default");
        assertThat(t.luns()).containsExactly(new LunConfig(0, "ram0", false, false),
                new LunConfig(1, "file0", true, false));
        assertThat(t.aclInitiators()).containsExactly("*");
        assertThat(t.chap()).isEqualTo(new ChapConfig("alice", "0123456789ab", "tgt", "ba9876543210"));
        assertThat(c.daemon().stateDir()).isEqualTo(dir.resolve("state"));
        assertThat(c.daemon().eventLoopThreads()).isPositive();
    }

    @Test
    void loadsTheShippedExampleConfig() throws Exception {
        Path shipped = Path.of("..", "conf", "jtarget.yaml");
        Path copy = dir.resolve("jtarget.yaml");
        Files.copy(shipped, copy);
        JtargetConfig c = ConfigLoader.load(copy);
        assertThat(c.targets()).hasSize(1);
        assertThat(c.targets().get(0).luns()).extracting(LunConfig::backstore).containsExactly("ram0", "file0");
        assertThat(c.backstore("file0").path()).isEqualTo(dir.resolve("data/file0.img"));
    }

    @Test
    void theShippedManagementExampleIsValidWhenUncommented() throws Exception {
        String shipped = Files.readString(Path.of("..", "conf", "jtarget.yaml"));
        int start = shipped.indexOf("\n# management:\n");
        int end = shipped.indexOf("\n\n", start);
        assertThat(start).isPositive();
        String block = shipped.substring(start + 1, end + 1).replaceAll("(?m)^# ?", "");
        Files.writeString(dir.resolve("api-token"), "token\n");
        Files.writeString(dir.resolve("metrics-token"), "scrape token\n");
        ManagementConfig m = load(shipped.substring(0, start + 1) + block + shipped.substring(end + 1)).management();
        assertThat(m.socket()).isEqualTo(Path.of(ManagementConfig.DEFAULT_SOCKET));
        assertThat(m.metrics()).isTrue();
        assertThat(m.apiToken()).isEqualTo("token");
        assertThat(m.metricsToken()).isEqualTo("scrape token");
    }

    @Test
    void readsDaemonSettingsAndPortalOptions() throws Exception {
        JtargetConfig c = load("""
                daemon: { state-dir: /var/lib/jtarget, event-loop-threads: 3, io-threads-per-lun: 2, shutdown-timeout: 5 }
                portals:
                  - { name: a, listen: "[::]:3260" }
                  - { name: b, listen: 0.0.0.0:3261, portal-group-tag: 7 }
                """);
        assertThat(c.daemon()).isEqualTo(new DaemonSettings(Path.of("/var/lib/jtarget"), 3, 2, Duration.ofSeconds(5)));
        assertThat(c.portals()).containsExactly(new PortalConfig("a", "::", 3260, 1), new PortalConfig("b", "0.0.0.0", 3261, 7));
        assertThat(c.targets()).isEmpty();
    }

    @Test
    void existingFileWithoutSizeTakesTheFileSize() throws Exception {
        Files.write(dir.resolve("disk.img"), new byte[8192]);
        JtargetConfig c = load(PORTALS + "backstores:\n  - { name: f, type: file, path: disk.img, block-size: 4096 }\n");
        assertThat(c.backstore("f").sizeBytes()).isEqualTo(8192);
        assertThat(c.backstore("f").blockCount()).isEqualTo(2);
    }

    @Test
    void missingFileIsAnError() {
        assertThatThrownBy(() -> ConfigLoader.load(dir.resolve("absent.yaml")))
                .hasMessage(dir.resolve("absent.yaml") + ": no such file");
    }

    @Test
    void yamlSyntaxErrorNamesTheLine() {
        assertError(PORTALS + "backstores: [\n", "line 5: YAML syntax: expected the node content, but found '<stream end>'");
    }

    @Test
    void duplicateYamlKeyIsAnError() {
        assertThatThrownBy(() -> load(PORTALS + "portals: []\n")).isInstanceOf(ConfigException.class)
                .hasMessageContaining("duplicate key portals");
    }

    @Test
    void unknownTopLevelKey() {
        assertError(PORTALS + "targetz: []\n", "targetz: unknown key (expected one of: daemon, portals, backstores, targets, rdma, ha, management)");
    }

    @Test
    void unknownLunKeyLikeAReadonlyTypo() {
        assertError(withLuns("      - { lun: 0, backstore: ram0, readonly: true }\n"),
                "targets[0].luns[0].readonly: unknown key (expected one of: lun, backstore, read-only, removable, queue-depth)");
    }

    @Test
    void unknownDaemonKey() {
        assertError("daemon: { threads: 2 }\n" + PORTALS,
                "daemon.threads: unknown key (expected one of: state-dir, event-loop-threads, io-threads-per-lun, shutdown-timeout, memory-limit, sanitize-rate, buffer-pool)");
    }

    @Test
    void missingPortals() {
        assertError(STORES, "portals: missing (at least one portal is required)");
    }

    @Test
    void missingPortalName() {
        assertError("portals:\n  - { listen: 127.0.0.1:3260 }\n", "portals[0].name: missing (required)");
    }

    @Test
    void badListenAddress() {
        assertError("portals:\n  - { name: p, listen: 300.1.1.1:3260 }\n",
                "portals[0].listen: bad address '300.1.1.1' (use an IPv4 literal such as 0.0.0.0 or a bracketed IPv6 literal such as [::])");
    }

    @Test
    void hostNameIsRefused() {
        assertThatThrownBy(() -> load("portals:\n  - { name: p, listen: localhost:3260 }\n"))
                .hasMessageContaining("portals[0].listen: bad address 'localhost'");
    }

    @Test
    void badListenPort() {
        assertError("portals:\n  - { name: p, listen: 127.0.0.1:70000 }\n", "portals[0].listen: bad port '70000' (1..65535)");
    }

    @Test
    void listenWithoutPort() {
        assertThatThrownBy(() -> load("portals:\n  - { name: p, listen: 127.0.0.1 }\n"))
                .hasMessageContaining("portals[0].listen: expected host:port");
    }

    @Test
    void duplicatePortalName() {
        assertError("portals:\n  - { name: p, listen: 127.0.0.1:3260 }\n  - { name: p, listen: 127.0.0.1:3261 }\n",
                "portals[1].name: duplicate portal name 'p'");
    }

    @Test
    void duplicateListenAddress() {
        assertError("portals:\n  - { name: p, listen: 127.0.0.1:3260 }\n  - { name: q, listen: 127.0.0.1:3260 }\n",
                "portals[1].listen: duplicate listen address 127.0.0.1 port 3260");
    }

    @Test
    void portalGroupTagOutOfRange() {
        assertError("portals:\n  - { name: p, listen: 127.0.0.1:3260, portal-group-tag: 0 }\n",
                "portals[0].portal-group-tag: expected an integer 1..65535, got '0'");
    }

    @Test
    void readsAluaStateAndPreference() throws Exception {
        JtargetConfig c = load("""
                portals:
                  - { name: a, listen: 127.0.0.1:3260, alua-state: active-non-optimized, alua-preferred: true }
                  - { name: b, listen: 127.0.0.1:3261, portal-group-tag: 2, alua-state: standby }
                  - { name: c, listen: 127.0.0.1:3262, portal-group-tag: 3, alua-state: unavailable }
                  - { name: d, listen: 127.0.0.1:3263, portal-group-tag: 4 }
                """);
        assertThat(c.portals()).containsExactly(
                new PortalConfig("a", "127.0.0.1", 3260, 1, AluaSetting.ACTIVE_NON_OPTIMIZED, true),
                new PortalConfig("b", "127.0.0.1", 3261, 2, AluaSetting.STANDBY, false),
                new PortalConfig("c", "127.0.0.1", 3262, 3, AluaSetting.UNAVAILABLE, false),
                new PortalConfig("d", "127.0.0.1", 3263, 4, AluaSetting.ACTIVE_OPTIMIZED, false));
    }

    @Test
    void portalsAreTcpUnlessTheyAskForIser() throws Exception {
        JtargetConfig c = load("""
                portals:
                  - { name: tcp, listen: 127.0.0.1:3260 }
                  - { name: rdma, listen: 127.0.0.1:3261, portal-group-tag: 2, transport: iser }
                  - { name: plain, listen: 127.0.0.1:3262, portal-group-tag: 3, transport: tcp }
                """);
        assertThat(c.portals()).extracting(PortalConfig::transport).containsExactly(PortalConfig.Transport.TCP,
                PortalConfig.Transport.ISER, PortalConfig.Transport.TCP);
    }

    @Test
    void srpIsAPortalTransport() throws Exception {
        JtargetConfig c = load("portals:\n  - { name: s, listen: 127.0.0.1:3261, transport: srp }\n");
        assertThat(c.portals()).containsExactly(new PortalConfig("s", "127.0.0.1", 3261, 1, AluaSetting.ACTIVE_OPTIMIZED,
                false, PortalConfig.Transport.SRP));
    }

    @Test
    void badPortalTransport() {
        assertError("portals:\n  - { name: p, listen: 127.0.0.1:3260, transport: roce }\n",
                "portals[0].transport: expected tcp, iser or srp, got 'roce'");
        assertError("portals:\n  - { name: p, listen: 127.0.0.1:3260, transport: SRP }\n",
                "portals[0].transport: expected tcp, iser or srp, got 'SRP'");
    }

    @Test
    void unquotedHexIsTextSoIntegerKeysTakeDecimalOnly() {
        assertError(withLuns("      - { lun: 0x1, backstore: ram0 }\n"),
                "targets[0].luns[0].lun: expected an integer 0..16383, got '0x1'");
    }

    @Test
    void badAluaStateValue() {
        assertError("portals:\n  - { name: p, listen: 127.0.0.1:3260, alua-state: passive }\n",
                "portals[0].alua-state: expected one of active-optimized, active-non-optimized, standby, "
                        + "unavailable, got 'passive'");
    }

    @Test
    void transitioningIsNotAConfigurableAluaState() {
        assertError("portals:\n  - { name: p, listen: 127.0.0.1:3260, alua-state: transitioning }\n",
                "portals[0].alua-state: expected one of active-optimized, active-non-optimized, standby, "
                        + "unavailable, got 'transitioning'");
    }

    @Test
    void nonBooleanAluaPreferred() {
        assertError("portals:\n  - { name: p, listen: 127.0.0.1:3260, alua-preferred: yes-please }\n",
                "portals[0].alua-preferred: expected true or false, got 'yes-please'");
    }

    @Test
    void portalsOfOneGroupMustAgreeOnTheAluaState() {
        assertError("portals:\n  - { name: p, listen: 127.0.0.1:3260, portal-group-tag: 5 }\n"
                        + "  - { name: q, listen: 127.0.0.1:3261, portal-group-tag: 5, alua-state: standby }\n",
                "portals[1].alua-state: 'standby' differs from the active-optimized of portal group tag 5 of portal "
                        + "'p' (one target port group has one state)");
    }

    @Test
    void portalsOfOneGroupMustAgreeOnThePreference() {
        assertError("portals:\n  - { name: p, listen: 127.0.0.1:3260, alua-preferred: true }\n"
                        + "  - { name: q, listen: 127.0.0.1:3261, portal-group-tag: 1 }\n",
                "portals[1].alua-preferred: differs from portal group tag 1 of portal 'p' (one target port group)");
    }

    @Test
    void unknownBackstoreType() {
        assertError(PORTALS + "backstores:\n  - { name: x, type: disk, size: 1M }\n",
                "backstores[0].type: unknown type 'disk' (expected memory, file, block or partition)");
    }

    @Test
    void badSizeUnit() {
        assertError(PORTALS + "backstores:\n  - { name: x, type: memory, size: 1GB }\n",
                "backstores[0].size: bad size '1GB' (use bytes or a binary unit: K, M, G, T, KiB, MiB, GiB, TiB)");
    }

    @Test
    void sizeNotAMultipleOfTheBlockSize() {
        assertError(PORTALS + "backstores:\n  - { name: x, type: memory, size: 6K, block-size: 4096 }\n",
                "backstores[0].size: must be a positive multiple of the block size 4096, got 6144");
    }

    @Test
    void missingMemorySize() {
        assertError(PORTALS + "backstores:\n  - { name: x, type: memory }\n", "backstores[0].size: missing (required)");
    }

    @Test
    void badBlockSize() {
        assertError(PORTALS + "backstores:\n  - { name: x, type: memory, size: 1M, block-size: 1024 }\n",
                "backstores[0].block-size: must be 512 or 4096, got 1024");
    }

    @Test
    void pathIsUnknownForMemoryStores() {
        assertThatThrownBy(() -> load(PORTALS + "backstores:\n  - { name: x, type: memory, size: 1M, path: a }\n"))
                .hasMessageContaining("backstores[0].path: unknown key");
    }

    @Test
    void duplicateBackstoreName() {
        assertError(PORTALS + "backstores:\n  - { name: x, type: memory, size: 1M }\n  - { name: x, type: memory, size: 1M }\n",
                "backstores[1].name: duplicate backstore name 'x'");
    }

    @Test
    void missingFileWithoutCreate() {
        assertError(PORTALS + "backstores:\n  - { name: f, type: file, path: nope.img, size: 1M }\n",
                "backstores[0].path: no such file " + dir.resolve("nope.img") + " (add 'create: true' to create it)");
    }

    @Test
    void existingFileOfAnotherSize() throws Exception {
        Files.write(dir.resolve("disk.img"), new byte[4096]);
        assertError(PORTALS + "backstores:\n  - { name: f, type: file, path: disk.img, size: 1M, create: true }\n",
                "backstores[0].size: file " + dir.resolve("disk.img") + " is 4096 bytes but size is 1048576 (fix size, or resize the file yourself)");
    }

    @Test
    void thinFileStoresAreAccepted() throws Exception {
        JtargetConfig c = load(PORTALS + "backstores:\n  - { name: f, type: file, path: a.img, size: 1M, create: true, thin: true }\n");
        assertThat(c.backstores().getFirst().thin()).isTrue();
    }

    @Test
    void blockStoreNeedsABlockDevice() throws Exception {
        Files.write(dir.resolve("disk.img"), new byte[4096]);
        assertError(PORTALS + "backstores:\n  - { name: d, type: block, path: disk.img }\n",
                "backstores[0].path: " + dir.resolve("disk.img") + " is not a block device");
        assertError(PORTALS + "backstores:\n  - { name: d, type: block, path: /dev/nosuch }\n",
                "backstores[0].path: no such device /dev/nosuch");
    }

    @Test
    void blockStoreHasNoCreateKey() {
        assertThatThrownBy(() -> load(PORTALS + "backstores:\n  - { name: d, type: block, path: /dev/null, create: true }\n"))
                .hasMessageContaining("backstores[0].create: unknown key");
    }

    @Test
    void directIsReadForFileStoresAndUnknownForMemory() throws Exception {
        JtargetConfig c = load(PORTALS + "backstores:\n  - { name: f, type: file, path: a.img, size: 1M, create: true, direct: true }\n");
        assertThat(c.backstores().getFirst().direct()).isTrue();
        assertThatThrownBy(() -> load(PORTALS + "backstores:\n  - { name: x, type: memory, size: 1M, direct: true }\n"))
                .hasMessageContaining("backstores[0].direct: unknown key");
    }

    @Test
    void encryptIsFalseTrueOrNewOnFileStoresAndUnknownForMemory() throws Exception {
        String file = PORTALS + "backstores:\n  - { name: f, type: file, path: a.img, size: 1M, create: true%s }\n";
        assertThat(load(file.formatted("")).backstores().getFirst().encrypt()).isEqualTo(BackstoreConfig.Encrypt.OFF);
        assertThat(load(file.formatted(", encrypt: true")).backstores().getFirst().encrypt())
                .isEqualTo(BackstoreConfig.Encrypt.ON);
        assertThat(load(file.formatted(", encrypt: new")).backstores().getFirst().encrypt())
                .isEqualTo(BackstoreConfig.Encrypt.NEW);
        assertError(file.formatted(", encrypt: yes please"),
                "backstores[0].encrypt: expected true, false or new, got 'yes please'");
        assertThatThrownBy(() -> load(PORTALS + "backstores:\n  - { name: x, type: memory, size: 1M, encrypt: true }\n"))
                .hasMessageContaining("backstores[0].encrypt: unknown key");
    }

    @Test
    void nonBooleanFlag() {
        assertError(withLuns("      - { lun: 0, backstore: ram0, read-only: maybe }\n"),
                "targets[0].luns[0].read-only: expected true or false, got 'maybe'");
    }

    @Test
    void unknownBackstoreReference() {
        assertError(withLuns("      - { lun: 0, backstore: ram0 }\n      - { lun: 1, backstore: foo }\n"),
                "targets[0].luns[1].backstore: unknown backstore 'foo'");
    }

    @Test
    void oneBackstoreTwiceInATarget() {
        assertError(withLuns("      - { lun: 0, backstore: ram0 }\n      - { lun: 1, backstore: ram0 }\n"),
                "targets[0].luns[1].backstore: backstore 'ram0' is already LUN 0 of iqn.2026-11.org.jtarget:demo"
                        + " (one backstore backs one logical unit)");
    }

    @Test
    void oneBackstoreInTwoTargets() {
        assertError(PORTALS + "backstores:\n  - { name: a, type: memory, size: 1M }\n"
                        + TARGET_HEAD + "    luns:\n      - { lun: 0, backstore: a }\n"
                        + "  - iqn: iqn.2026-11.org.jtarget:other\n    portals: [default]\n    acl: [\"*\"]\n"
                        + "    luns:\n      - { lun: 5, backstore: a }\n",
                "targets[1].luns[0].backstore: backstore 'a' is already LUN 0 of iqn.2026-11.org.jtarget:demo"
                        + " (one backstore backs one logical unit)");
    }

    @Test
    void duplicateLunNumber() {
        assertError(PORTALS + "backstores:\n  - { name: a, type: memory, size: 1M }\n  - { name: b, type: memory, size: 1M }\n"
                        + TARGET_HEAD + "    luns:\n      - { lun: 3, backstore: a }\n      - { lun: 3, backstore: b }\n",
                "targets[0].luns[1].lun: duplicate LUN 3 in this target");
    }

    @Test
    void lunOutOfRange() {
        assertError(withLuns("      - { lun: 16384, backstore: ram0 }\n"),
                "targets[0].luns[0].lun: expected an integer 0..16383, got '16384'");
    }

    @Test
    void missingLunNumber() {
        assertError(withLuns("      - { backstore: ram0 }\n"), "targets[0].luns[0].lun: missing (required)");
    }

    @Test
    void unknownPortalReference() {
        assertError(PORTALS + "targets:\n  - { iqn: iqn.2026-11.org.jtarget:x, portals: [nope], acl: ['*'] }\n",
                "targets[0].portals[0]: unknown portal 'nope'");
    }

    @Test
    void uppercaseIqnIsRefused() {
        assertError(PORTALS + "targets:\n  - { iqn: iqn.2026-11.org.jtarget:Demo, portals: [default], acl: ['*'] }\n",
                "targets[0].iqn: iSCSI name 'iqn.2026-11.org.jtarget:Demo' must be lowercase (RFC 3722)");
    }

    @Test
    void malformedIqnIsRefused() {
        assertThatThrownBy(() -> load(PORTALS + "targets:\n  - { iqn: iqn.2026-13.org.jtarget, portals: [default], acl: ['*'] }\n"))
                .hasMessageContaining("targets[0].iqn: invalid iqn name 'iqn.2026-13.org.jtarget'");
    }

    @Test
    void duplicateTargetName() {
        String t = "  - { iqn: iqn.2026-11.org.jtarget:x, portals: [default], acl: ['*'] }\n";
        assertError(PORTALS + "targets:\n" + t + t, "targets[1].iqn: duplicate target name 'iqn.2026-11.org.jtarget:x'");
    }

    @Test
    void aclIsRequired() {
        assertError(PORTALS + "targets:\n  - { iqn: iqn.2026-11.org.jtarget:x, portals: [default] }\n",
                "targets[0].acl: missing (list allowed initiator names, or [\"*\"] to allow any)");
    }

    @Test
    void aclEntriesMustBeInitiatorNames() {
        assertThatThrownBy(() -> load(PORTALS + "targets:\n  - { iqn: iqn.2026-11.org.jtarget:x, portals: [default], acl: [bob] }\n"))
                .hasMessageContaining("targets[0].acl[0]: invalid iSCSI name 'bob'");
    }

    @Test
    void chapSecretTooShort() {
        assertThatThrownBy(() -> load(PORTALS + "targets:\n  - { iqn: iqn.2026-11.org.jtarget:x, portals: [default], acl: ['*'],"
                + " chap: { user: u, secret: short } }\n"))
                .hasMessageContaining("targets[0].chap.secret: too short: 5 characters")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("short "));
    }

    @Test
    void mutualChapNeedsBothKeys() {
        assertError(PORTALS + "targets:\n  - { iqn: iqn.2026-11.org.jtarget:x, portals: [default], acl: ['*'],"
                        + " chap: { user: u, secret: 0123456789ab, mutual-user: t } }\n",
                "targets[0].chap.mutual-secret: missing (mutual CHAP needs both mutual-user and mutual-secret or"
                        + " mutual-secret-file)");
    }

    private static final String CHAP_TARGET = PORTALS
            + "targets:\n  - { iqn: iqn.2026-11.org.jtarget:x, portals: [default], acl: ['*'], chap: { user: u, ";

    @Test
    void chapAlgorithmsAreThePreferenceOrderAndDefaultToStrongestFirst() throws Exception {
        ChapConfig listed = load(CHAP_TARGET + "secret: 0123456789ab, algorithms: [SHA256, md5] } }\n")
                .targets().getFirst().chap();
        assertThat(listed.algorithms()).containsExactly("sha256", "md5");
        ChapConfig absent = load(CHAP_TARGET + "secret: 0123456789ab } }\n").targets().getFirst().chap();
        assertThat(absent.algorithms()).containsExactly("sha3-256", "sha256", "sha1", "md5");
    }

    @Test
    void anUnknownOrRepeatedChapAlgorithmIsAnErrorNamingTheKey() {
        assertError(CHAP_TARGET + "secret: 0123456789ab, algorithms: [sha256, sha512] } }\n",
                "targets[0].chap.algorithms: unknown CHAP algorithm 'sha512' (expected some of: sha3-256, sha256,"
                        + " sha1, md5)");
        assertError(CHAP_TARGET + "secret: 0123456789ab, algorithms: [md5, sha1, md5] } }\n",
                "targets[0].chap.algorithms: an algorithm is listed twice");
    }

    @Test
    void chapSecretsComeFromFilesNextToTheConfigOrInSystemdsCredentialsFolder() throws Exception {
        java.nio.file.Files.writeString(dir.resolve("chap-u"), "0123456789ab\n");
        java.nio.file.Path credentials = java.nio.file.Files.createDirectories(dir.resolve("credentials"));
        java.nio.file.Files.writeString(credentials.resolve("chap-t"), "secret of the target\r\n");
        java.nio.file.Files.writeString(credentials.resolve("chap-u"), "not this one");
        java.nio.file.Path file = dir.resolve("jtarget.yaml");
        java.nio.file.Files.writeString(file, CHAP_TARGET
                + "secret-file: ./chap-u, mutual-user: t, mutual-secret-file: chap-t } }\n");
        assertThat(ConfigLoader.load(file, credentials).targets().getFirst().chap())
                .isEqualTo(new ChapConfig("u", "0123456789ab", "t", "secret of the target"));
        java.nio.file.Files.writeString(file, CHAP_TARGET + "secret-file: chap-u } }\n");
        assertThat(ConfigLoader.load(file, null).targets().getFirst().chap().secret())
                .as("a bare name without $CREDENTIALS_DIRECTORY: next to the config").isEqualTo("0123456789ab");
    }

    @Test
    void aSecretFileMustExistHoldASecretAndNotComeWithTheSecretItself() throws Exception {
        assertError(CHAP_TARGET + "secret-file: nowhere } }\n",
                "targets[0].chap.secret-file: no such file: " + dir.resolve("nowhere"));
        java.nio.file.Files.writeString(dir.resolve("empty"), "\n");
        assertError(CHAP_TARGET + "secret-file: empty } }\n",
                "targets[0].chap.secret-file: " + dir.resolve("empty") + " is empty");
        java.nio.file.Files.writeString(dir.resolve("short"), "short\n");
        assertError(CHAP_TARGET + "secret-file: short } }\n",
                "targets[0].chap.secret: too short: 5 characters, CHAP secrets need at least 12 (RFC 7143 9.2.1;"
                        + " open-iscsi refuses shorter ones)");
        assertError(CHAP_TARGET + "secret: 0123456789ab, secret-file: short } }\n",
                "targets[0].chap.secret-file: give secret or secret-file, not both");
        assertError(CHAP_TARGET + "mutual-user: t } }\n", "targets[0].chap.secret: missing (give secret or secret-file)");
    }

    @Test
    void theManagementListenerIsOffUnlessConfiguredAndItsAddressIsChecked() throws Exception {
        java.nio.file.Path file = dir.resolve("jtarget.yaml");
        java.nio.file.Files.writeString(file, PORTALS);
        assertThat(ConfigLoader.load(file).management()).isNull();
        java.nio.file.Files.writeString(file, PORTALS + "management: { http: \"127.0.0.1:9180\", metrics: true }\n");
        assertThat(ConfigLoader.load(file).management()).isEqualTo(new ManagementConfig("127.0.0.1", 9180, true));
        assertThatThrownBy(() -> load(PORTALS + "management: { http: localhost:9180 }\n"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("management.http: ");
        assertThatThrownBy(() -> load(PORTALS + "management: { metrics: true }\n"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("management.http: missing");
        assertThatThrownBy(() -> load(PORTALS + "management: { http: \"127.0.0.1:9180\", api: true }\n"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("management.api");
    }

    @Test
    void theManagementApiListensOnASocketAndOnHttpOnlyWithAToken() throws Exception {
        ManagementConfig socketOnly = load(PORTALS + "management: { socket: api.sock }\n").management();
        assertThat(socketOnly.socket()).as("relative to the config's folder").isEqualTo(dir.resolve("api.sock"));
        assertThat(socketOnly.hasHttp()).isFalse();
        assertThat(socketOnly.apiToken()).isNull();
        java.nio.file.Files.writeString(dir.resolve("token"), "s3cret-token\n");
        ManagementConfig both = load(PORTALS + "management: { socket: /run/x.sock, http: \"127.0.0.1:9180\","
                + " token-file: token }\n").management();
        assertThat(both.apiToken()).isEqualTo("s3cret-token");
        assertThat(both.toString()).doesNotContain("s3cret-token");
        assertThatThrownBy(() -> load(PORTALS + "management: { socket: /run/x.sock, metrics: true }\n"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("management.metrics: ");
        assertThatThrownBy(() -> load(PORTALS + "management: { socket: /run/x.sock, token-file: token }\n"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("management.token-file: ");
        assertThatThrownBy(() -> load(PORTALS + "management: { http: \"127.0.0.1:9180\", token-file: nowhere }\n"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("management.token-file: no such file");
    }

    @Test
    void scrapesMayNeedATokenOfTheirOwn() throws Exception {
        java.nio.file.Files.writeString(dir.resolve("token"), "api-token-value\n");
        java.nio.file.Files.writeString(dir.resolve("scrape"), "scrape-token-value\n");
        ManagementConfig m = load(PORTALS + "management: { http: \"127.0.0.1:9180\", metrics: true,"
                + " token-file: token, metrics-token-file: scrape }\n").management();
        assertThat(m.metricsToken()).isEqualTo("scrape-token-value");
        assertThat(m.toString()).doesNotContain("scrape-token-value").contains("metrics-token=(set)");
        assertThat(load(PORTALS + "management: { http: \"127.0.0.1:9180\", metrics: true }\n").management()
                .metricsToken()).isNull();
        assertThatThrownBy(() -> load(PORTALS + "management: { http: \"127.0.0.1:9180\", metrics-token-file: scrape }\n"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("management.metrics-token-file: the token is for /metrics, which is not served");
        assertThatThrownBy(() -> load(PORTALS + "management: { http: \"127.0.0.1:9180\", metrics: true,"
                + " token-file: token, metrics-token-file: token }\n"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("management.metrics-token-file: holds the API's token");
    }

    @Test
    void mutualSecretMustDiffer() {
        assertError(PORTALS + "targets:\n  - { iqn: iqn.2026-11.org.jtarget:x, portals: [default], acl: ['*'],"
                        + " chap: { user: u, secret: 0123456789ab, mutual-user: t, mutual-secret: 0123456789ab } }\n",
                "targets[0].chap.mutual-secret: must differ from secret (RFC 7143 9.2.1)");
    }

    @Test
    void emptyAclListIsMissing() {
        assertError(PORTALS + "targets:\n  - { iqn: iqn.2026-11.org.jtarget:x, portals: [default], acl: [] }\n",
                "targets[0].acl: missing (list allowed initiator names, or [\"*\"] to allow any)");
    }

    @Test
    void stringWhereAMapIsExpected() {
        assertError(PORTALS + "targets:\n  - iqn.2026-11.org.jtarget:x\n",
                "targets[0]: expected a map of keys, got 'iqn.2026-11.org.jtarget:x'");
    }

    @Test
    void memoryLimitTakesASizeOrUnlimitedAndDefaultsToHalfThePhysicalMemory() throws Exception {
        assertThat(load("daemon: { memory-limit: 16MiB }\n" + PORTALS).daemon().memoryLimit()).isEqualTo(16L << 20);
        assertThat(load("daemon: { memory-limit: 1048576 }\n" + PORTALS).daemon().memoryLimit()).isEqualTo(1L << 20);
        assertThat(load("daemon: { memory-limit: unlimited }\n" + PORTALS).daemon().memoryLimit())
                .isEqualTo(DaemonSettings.UNLIMITED);
        assertThat(load(PORTALS).daemon().memoryLimit()).isEqualTo(DaemonSettings.defaultMemoryLimit()).isPositive();
    }

    @Test
    void sanitizeRateTakesASizeOrUnlimitedAndDefaultsTo64MibPerSecond() throws Exception {
        assertThat(load("daemon: { sanitize-rate: 1GiB }\n" + PORTALS).daemon().sanitizeRate()).isEqualTo(1L << 30);
        assertThat(load("daemon: { sanitize-rate: unlimited }\n" + PORTALS).daemon().sanitizeRate()).isZero();
        assertThat(load(PORTALS).daemon().sanitizeRate()).isEqualTo(64L << 20);
        assertError("daemon: { sanitize-rate: -1 }\n" + PORTALS, "daemon.sanitize-rate: must be positive, got -1");
    }

    @Test
    void bufferPoolTakesAPinnedSizeAndAPinModeAndDefaultsTo64MibPinnedIfAllowed() throws Exception {
        assertThat(load(PORTALS).daemon().bufferPool()).isEqualTo(BufferPoolSettings.DEFAULTS)
                .isEqualTo(new BufferPoolSettings(64L << 20, BufferPoolSettings.Pin.TRY));
        assertThat(load("daemon: { buffer-pool: { pinned-size: 256MiB, pin: required } }\n" + PORTALS)
                .daemon().bufferPool()).isEqualTo(new BufferPoolSettings(256L << 20, BufferPoolSettings.Pin.REQUIRED));
        assertThat(load("daemon:\n  buffer-pool:\n    pinned-size: 0\n    pin: false\n" + PORTALS)
                .daemon().bufferPool()).isEqualTo(new BufferPoolSettings(0, BufferPoolSettings.Pin.OFF));
        assertThat(load("daemon: { buffer-pool: { pin: true } }\n" + PORTALS).daemon().bufferPool())
                .isEqualTo(BufferPoolSettings.DEFAULTS);
    }

    @Test
    void badBufferPoolValuesNameTheKey() {
        assertError("daemon: { buffer-pool: { pinned-size: 1GB } }\n" + PORTALS, "daemon.buffer-pool.pinned-size: "
                + "bad size '1GB' (use bytes or a binary unit: K, M, G, T, KiB, MiB, GiB, TiB); 0 for no arena");
        assertError("daemon: { buffer-pool: { pinned-size: 1TiB } }\n" + PORTALS,
                "daemon.buffer-pool.pinned-size: at most 64GiB, got 1TiB");
        assertError("daemon: { buffer-pool: { pin: yes-please } }\n" + PORTALS,
                "daemon.buffer-pool.pin: expected true, false or required, got 'yes-please'");
        assertError("daemon: { buffer-pool: { size: 1MiB } }\n" + PORTALS,
                "daemon.buffer-pool.size: unknown key (expected one of: pinned-size, pin)");
        assertError("daemon: { buffer-pool: 64MiB }\n" + PORTALS,
                "daemon.buffer-pool: expected a map of keys, got '64MiB'");
    }

    @Test
    void badMemoryLimitNamesTheKey() {
        assertError("daemon: { memory-limit: 2GB }\n" + PORTALS, "daemon.memory-limit: bad size '2GB' "
                + "(use bytes or a binary unit: K, M, G, T, KiB, MiB, GiB, TiB) or 'unlimited'");
        assertError("daemon: { memory-limit: 0 }\n" + PORTALS, "daemon.memory-limit: must be positive, got 0");
    }

    @Test
    void fullyProvisionedMemoryStoresPastTheLimitAreAnError() {
        assertError("daemon: { memory-limit: 64MiB }\n" + PORTALS + """
                backstores:
                  - { name: a, type: memory, size: 48MiB, thin: false }
                  - { name: b, type: memory, size: 32MiB, thin: false }
                  - { name: c, type: memory, size: 1GiB }
                """, "daemon.memory-limit: fully provisioned (thin: false) memory backstores need 80MiB "
                + "(a 48MiB, b 32MiB) but the limit is 64MiB; raise it or make some thin");
    }

    @Test
    void thinMemoryStoresMayExceedTheLimit() throws Exception {
        JtargetConfig c = load("daemon: { memory-limit: 16MiB }\n" + PORTALS
                + "backstores:\n  - { name: a, type: memory, size: 1GiB }\n  - { name: b, type: memory, size: 16MiB, thin: false }\n");
        assertThat(c.backstores()).hasSize(2);
    }
}
