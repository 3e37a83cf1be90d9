package org.jtarget.daemon;

import org.jtarget.config.ConfigException;
import org.jtarget.config.ConfigLoader;
import org.jtarget.config.JtargetConfig;
import org.jtarget.fabric.iscsi.IscsiTargetSettings;
import org.jtarget.scsi.alua.AluaState;
import org.jtarget.scsi.alua.TargetPortGroup;
import org.jtarget.scsi.lun.LogicalUnit;
import org.jtarget.scsi.sense.SenseReason;
import org.jtarget.scsi.spi.ITNexus;
import org.jtarget.scsi.spi.ProtocolId;
import org.jtarget.scsi.lun.TargetRegistry;
import org.jtarget.scsi.sense.SenseReason;
import org.jtarget.scsi.spi.ITNexus;
import org.jtarget.scsi.spi.ProtocolId;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Config reload (SIGHUP) on a started runtime: targets, LUNs and ACLs follow the new file through
 * the registry; a change that needs a restart, or a store that cannot be opened, is refused with
 * one line naming the key and changes nothing.
 */
class TargetRuntimeReloadTest {

    private static final String T = "iqn.2026-11.org.jtarget:reload";

    @TempDir
    Path dir;

    private TargetRuntime runtime;
    private int port;

    @AfterEach
    void stop() {
        if (runtime != null) {
            runtime.stop(Duration.ofSeconds(5));
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** A config with stores ram0..ram2, target T with {@code luns}, and {@code extra} appended. */
    private JtargetConfig config(String luns, String acl, String extra) throws Exception {
        return load(yaml(luns, acl, extra));
    }

    private JtargetConfig load(String yaml) throws Exception {
        return ConfigLoader.load(Files.writeString(dir.resolve("jtarget.yaml"), yaml));
    }

    private String yaml(String luns, String acl, String extra) {
        return MemoryTargetYaml.of(port, T, acl, luns, extra);
    }

    private TargetRegistry started(JtargetConfig c) throws Exception {
        runtime = new TargetRuntime(c);
        runtime.start();
        return runtime.registry();
    }

    private static int[] luns(TargetRegistry r) {
        return r.target(T).core().lunNumbers();
    }

    @Test
    void lunsAndAclsFollowTheNewFileAndAStoreClosesWhenItsLuIsGone() throws Exception {
        port = freePort();
        TargetRegistry r = started(config("[ {lun: 0, backstore: ram0}, {lun: 1, backstore: ram1} ]", "[\"*\"]", ""));
        LogicalUnit lun0 = r.target(T).core().logicalUnit(0);

        runtime.reload(load(yaml("[ {lun: 0, backstore: ram0}, {lun: 2, backstore: ram2} ]",
                "[ { initiator: iqn.2026-11.org.x:a, luns: [0] } ]", "")
                .replace("  - { name: ram1, type: memory, size: 1MiB }\n", "")));

        assertThat(luns(r)).containsExactly(0, 2);
        assertThat(r.target(T).core().logicalUnit(0)).as("a kept LUN keeps its LU").isSameAs(lun0);
        assertThat(r.target(T).core().acl().initiators()).containsExactly("iqn.2026-11.org.x:a");
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (runtime.stores().get("ram1") != null && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(runtime.stores().get("ram1")).as("ram1 is no longer mapped: closed after its LU drained").isNull();
    }

    @Test
    void targetsAndBackstoresAreAddedAndRemoved() throws Exception {
        port = freePort();
        TargetRegistry r = started(config("[ {lun: 0, backstore: ram0} ]", "[\"*\"]", ""));
        String other = """
                  - iqn: iqn.2026-11.org.jtarget:other
                    portals: [default]
                    acl: ["*"]
                    luns: [ {lun: 0, backstore: ram1}, {lun: 1, backstore: ram3} ]
                backstores:
                  - { name: ram3, type: memory, size: 2MiB }
                """;
        JtargetConfig withOther = ConfigLoader.load(Files.writeString(dir.resolve("other.yaml"),
                Files.readString(config("[ {lun: 0, backstore: ram0} ]", "[\"*\"]", "").source())
                        .replace("backstores:\n", "backstores:\n  - { name: ram3, type: memory, size: 2MiB }\n")
                        + other.substring(0, other.indexOf("backstores:"))));
        runtime.reload(withOther);
        assertThat(r.target("iqn.2026-11.org.jtarget:other").core().lunNumbers()).containsExactly(0, 1);
        assertThat(runtime.stores().get("ram3").info().sizeBytes()).isEqualTo(2 << 20);

        runtime.reload(config("[ {lun: 0, backstore: ram0} ]", "[\"*\"]", ""));
        assertThat(r.target("iqn.2026-11.org.jtarget:other")).isNull();
        assertThat(Arrays.stream(luns(r))).containsExactly(0);
    }

    @Test
    void whatNeedsARestartIsRefusedNamingTheKeyAndNothingChanges() throws Exception {
        port = freePort();
        TargetRegistry r = started(config("[ {lun: 0, backstore: ram0}, {lun: 1, backstore: ram1} ]", "[\"*\"]", ""));

        JtargetConfig readOnly = config("[ {lun: 0, backstore: ram0}, {lun: 1, backstore: ram1, read-only: true},"
                + " {lun: 2, backstore: ram2} ]", "[ iqn.2026-11.org.x:a ]", "");
        assertThatThrownBy(() -> runtime.reload(readOnly)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("targets[0].luns[1]: LUN 1 changed; a reload (SIGHUP) applies")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
        JtargetConfig moreIoThreads = load(yaml("[ {lun: 0, backstore: ram0}, {lun: 1, backstore: ram1} ]", "[\"*\"]",
                "").replace("pinned-size: 0 }", "pinned-size: 0 }, io-threads-per-lun: 2"));
        assertThatThrownBy(() -> runtime.reload(moreIoThreads)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("daemon: changed; a reload (SIGHUP) applies targets, LUNs, ACLs and "
                        + "backstores added or removed, a target's alias, chap and portals, portals added or removed, "
                        + "ALUA states and a larger size of a file or memory store: restart the daemon for this");

        assertThat(luns(r)).containsExactly(0, 1);
        assertThat(r.target(T).core().acl().initiators()).containsExactly("*");
    }

    /** The test yaml with {@code portals} as its portals section and the target on {@code targetPortals}. */
    private JtargetConfig withPortals(String portals, String targetPortals, String targetExtra) throws Exception {
        return load(yaml("[ {lun: 0, backstore: ram0} ]", "[\"*\"]", targetExtra)
                .replace("portals:\n  - { name: default, listen: \"127.0.0.1:" + port + "\" }\n", "portals:\n" + portals)
                .replace("portals: [default]", "portals: " + targetPortals));
    }

    private static String portal(String name, int port, String more) {
        return "  - { name: " + name + ", listen: \"127.0.0.1:" + port + "\"" + more + " }\n";
    }

    private static boolean listening(int port) {
        try (java.net.Socket s = new java.net.Socket("127.0.0.1", port)) {
            return true;
        } catch (IOException refused) {
            return false;
        }
    }

    @Test
    void aKeptTargetTakesItsNewChapAndAliasForTheNextLoginAndKeepsItsCore() throws Exception {
        port = freePort();
        TargetRegistry r = started(config("[ {lun: 0, backstore: ram0} ]", "[\"*\"]", ""));
        var core = r.target(T).core();
        assertThat(r.target(T).fabricSettings(IscsiTargetSettings.class).chap()).isNull();

        runtime.reload(config("[ {lun: 0, backstore: ram0} ]", "[\"*\"]", "    alias: renamed\n"
                + "    chap: { user: alice, secret: secret-of-12-chars }\n"));

        IscsiTargetSettings now = r.target(T).fabricSettings(IscsiTargetSettings.class);
        assertThat(now.alias()).isEqualTo("renamed");
        assertThat(now.chap().user()).isEqualTo("alice");
        assertThat(r.target(T).core()).as("sessions keep their core: nothing else changed").isSameAs(core);
    }

    @Test
    void aPortalAddedListensAndServesItsTargetsAndARemovedOneStopsListening() throws Exception {
        port = freePort();
        int second = freePort();
        TargetRegistry r = started(config("[ {lun: 0, backstore: ram0} ]", "[\"*\"]", ""));

        runtime.reload(withPortals(portal("default", port, "") + portal("second", second, ""), "[default, second]", ""));
        assertThat(listening(second)).isTrue();
        assertThat(r.target(T).reachableThrough("second")).isTrue();

        runtime.reload(withPortals(portal("second", second, ""), "[second]", ""));
        assertThat(listening(port)).as("the removed portal no longer accepts connections").isFalse();
        assertThat(listening(second)).isTrue();
        assertThat(r.target(T).reachableThrough("default")).isFalse();
    }

    @Test
    void aKeptNameOnAnotherAddressOrTagIsRemovedAndAddedWithItsTargetPortGroup() throws Exception {
        port = freePort();
        TargetRegistry r = started(config("[ {lun: 0, backstore: ram0} ]", "[\"*\"]", ""));
        int moved = freePort();

        runtime.reload(withPortals(portal("default", moved, ""), "[default]", ""));
        assertThat(listening(moved)).isTrue();
        assertThat(listening(port)).isFalse();

        runtime.reload(withPortals(portal("default", moved, ", portal-group-tag: 7, alua-state: standby"), "[default]", ""));
        assertThat(listening(moved)).as("the same address, bound again for the new tag").isTrue();
        assertThat(Arrays.stream(r.target(T).core().portGroups().groups()).map(g -> g.id() + " " + g.state()))
                .containsExactly("7 STANDBY");
    }

    @Test
    void aPortalThatCannotListenRefusesTheReloadNamingItAndClosesThoseJustBound() throws Exception {
        port = freePort();
        TargetRegistry r = started(config("[ {lun: 0, backstore: ram0} ]", "[\"*\"]", ""));
        int free = freePort();
        try (ServerSocket taken = new ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
            JtargetConfig next = withPortals(portal("default", port, "") + portal("b", free, "")
                    + portal("c", taken.getLocalPort(), ""), "[default, b, c]", "");
            assertThatThrownBy(() -> runtime.reload(next)).isInstanceOf(ConfigException.class)
                    .hasMessageContaining("portals[2].listen: 127.0.0.1:" + taken.getLocalPort() + ": cannot listen")
                    .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
        }
        assertThat(listening(free)).as("portal b, bound first, is closed again").isFalse();
        assertThat(listening(port)).isTrue();
        assertThat(r.target(T).portalNames()).containsExactly("default");
    }

    @Test
    void anAluaStateChangeMovesTheGroupAndTellsEveryNexusOnce() throws Exception {
        port = freePort();
        TargetRegistry r = started(config("[ {lun: 0, backstore: ram0} ]", "[\"*\"]", ""));
        var core = r.target(T).core();
        ITNexus nexus = new ITNexus(ProtocolId.ISCSI, "iqn.2026-11.org.x:a", "iqn.2026-11.org.x:a,i,0x1",
                T + ",t,0x1", 1, 1);
        core.nexusLoggedIn(nexus);
        var ua = core.logicalUnit(0).unitAttentions();
        while (ua.poll(nexus) != null) {
            // the power-on condition of a new nexus
        }

        runtime.reload(withPortals(portal("default", port, ", alua-state: standby, alua-preferred: true"),
                "[default]", ""));

        TargetPortGroup g = core.portGroups().group(1);
        assertThat(g.state()).isEqualTo(AluaState.STANDBY);
        assertThat(g.preferred()).isTrue();
        assertThat(g.statusCode()).as("changed by the target, not by SET TARGET PORT GROUPS")
                .isEqualTo(TargetPortGroup.STATUS_IMPLICIT);
        assertThat(ua.poll(nexus)).isEqualTo(SenseReason.ASYMMETRIC_ACCESS_STATE_CHANGED);
        assertThat(ua.poll(nexus)).isNull();

        runtime.reload(withPortals(portal("default", port, ", alua-state: standby"), "[default]", ""));
        assertThat(core.portGroups().group(1).preferred()).isFalse();
        assertThat(ua.poll(nexus)).as("PREF is no access state: no unit attention").isNull();
    }

    @Test
    void aStoreThatCannotOpenRefusesTheReloadAndOpensNothing() throws Exception {
        port = freePort();
        TargetRegistry r = started(config("[ {lun: 0, backstore: ram0} ]", "[\"*\"]", ""));
        Path image = Files.write(dir.resolve("disk.img"), new byte[1 << 20]);
        JtargetConfig next = load(yaml("[ {lun: 0, backstore: ram0}, {lun: 1, backstore: ram9},"
                + " {lun: 2, backstore: file9} ]", "[\"*\"]", "").replace("backstores:\n",
                "backstores:\n  - { name: ram9, type: memory, size: 1MiB }\n  - { name: file9, type: file, path: "
                        + image + " }\n"));
        Files.delete(image); // gone between reading the file and applying it
        assertThatThrownBy(() -> runtime.reload(next)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("backstores[file9].path: no such file")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
        assertThat(luns(r)).containsExactly(0);
        assertThat(runtime.stores().get("ram9")).as("the store opened before the failure is closed again").isNull();
    }

    /** Logs a nexus in to target T and takes its POWER ON unit attention, so that the next one is news. */
    private ITNexus loggedIn(TargetRegistry r, LogicalUnit lu) {
        ITNexus nexus = new ITNexus(ProtocolId.ISCSI, "iqn.2026-11.org.x:a", "iqn.2026-11.org.x:a,i,0x1",
                T + ",t,0x1", 1, 1);
        r.target(T).core().nexusLoggedIn(nexus);
        while (lu.unitAttentions().poll(nexus) != null) {
            // the login's own conditions
        }
        return nexus;
    }

    @Test
    void aGrownFileAndMemoryStoreAreResizedLiveAndEachNexusIsToldOnce() throws Exception {
        port = freePort();
        String fileStore = "  - { name: file0, type: file, path: file0.img, size: 1MiB, create: true }\n";
        TargetRegistry r = started(load(yaml("[ {lun: 0, backstore: ram0}, {lun: 1, backstore: file0} ]", "[\"*\"]",
                "").replace("backstores:\n", "backstores:\n" + fileStore)));
        LogicalUnit ram = r.target(T).core().logicalUnit(0);
        LogicalUnit file = r.target(T).core().logicalUnit(1);
        ITNexus nexus = loggedIn(r, ram);
        loggedIn(r, file);

        Path yaml = Files.writeString(dir.resolve("jtarget.yaml"), yaml("[ {lun: 0, backstore: ram0}, "
                + "{lun: 1, backstore: file0} ]", "[\"*\"]", "").replace("backstores:\n", "backstores:\n"
                + fileStore.replace("size: 1MiB", "size: 3MiB")).replace("ram0, type: memory, size: 1MiB",
                "ram0, type: memory, size: 2MiB"));
        assertThatThrownBy(() -> ConfigLoader.load(yaml)).as("outside a reload the file's size must match")
                .hasMessageContaining(".size: file");
        runtime.reload(ConfigLoader.loadForReload(yaml, java.util.Set.of(dir.resolve("file0.img"))));

        assertThat(ram.blockCount()).isEqualTo(4096);
        assertThat(file.blockCount()).isEqualTo(6144);
        assertThat(Files.size(dir.resolve("file0.img"))).isEqualTo(3L << 20);
        for (LogicalUnit lu : new LogicalUnit[] {ram, file}) {
            assertThat(lu.unitAttentions().poll(nexus)).isEqualTo(SenseReason.CAPACITY_DATA_HAS_CHANGED);
            assertThat(lu.unitAttentions().poll(nexus)).as("once").isNull();
        }
        assertThat(r.target(T).core().logicalUnit(0)).as("the LU stays: sessions keep it").isSameAs(ram);
    }

    @Test
    void aShrunkStoreIsRefusedAndNothingChanges() throws Exception {
        port = freePort();
        TargetRegistry r = started(config("[ {lun: 0, backstore: ram0} ]", "[\"*\"]", ""));
        LogicalUnit ram = r.target(T).core().logicalUnit(0);
        ITNexus nexus = loggedIn(r, ram);
        JtargetConfig smaller = load(yaml("[ {lun: 0, backstore: ram0}, {lun: 1, backstore: ram1} ]", "[\"*\"]", "")
                .replace("ram0, type: memory, size: 1MiB", "ram0, type: memory, size: 512KiB"));
        assertThatThrownBy(() -> runtime.reload(smaller)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("backstores[0].size: 512KiB is smaller than the running 1MiB");
        assertThat(ram.blockCount()).isEqualTo(2048);
        assertThat(runtime.stores().get("ram0").info().blockCount()).isEqualTo(2048);
        assertThat(luns(r)).as("the LUN added in the same file is not added either").containsExactly(0);
        assertThat(ram.unitAttentions().poll(nexus)).isNull();
    }
}
