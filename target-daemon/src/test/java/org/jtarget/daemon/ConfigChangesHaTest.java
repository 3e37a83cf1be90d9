package org.jtarget.daemon;

import org.jtarget.config.ConfigException;
import org.jtarget.config.ConfigLoader;
import org.jtarget.config.JtargetConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A reload (SIGHUP) of an HA node: a replicated store's size cannot change (docs/ha.md, "SCSI state"). */
class ConfigChangesHaTest {

    @TempDir
    Path dir;

    private JtargetConfig config(String name, String disk, String other) throws Exception {
        return config(name, disk, other, "portal-group-tag: 1");
    }

    private JtargetConfig config(String name, String disk, String other, String portal) throws Exception {
        return ConfigLoader.load(Files.writeString(dir.resolve(name), """
                portals:
                  - { name: p, listen: "127.0.0.1:3260", %s }
                backstores:
                  - { name: disk, type: memory, size: %s }
                  - { name: other, type: memory, size: %s }
                targets:
                  - { iqn: iqn.2026-11.org.example:t, portals: [p], acl: ["*"], luns: [ { lun: 0, backstore: disk } ] }
                ha:
                  node: alpha
                  listen: "127.0.0.1:7700"
                  peer: { node: beta, address: "127.0.0.1:7701" }
                  backstores: [disk]
                """.formatted(portal, disk, other)));
    }

    @Test
    void aReplicatedStoreIsNotResizedByAReloadAndTheLineSaysHowToDoIt() throws Exception {
        JtargetConfig now = config("a.yaml", "1MiB", "1MiB");
        assertThatThrownBy(() -> ConfigChanges.between(now, config("b.yaml", "2MiB", "1MiB")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("backstores[0]: changed, but disk is replicated by the HA pair (ha.backstores): "
                        + "to resize it, stop both nodes, change it in both files, start both")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
        assertThat(ConfigChanges.between(now, config("c.yaml", "1MiB", "2MiB")).resizedBackstores())
                .as("a store that is not replicated grows live")
                .containsExactly(java.util.Map.entry("other", 2L << 20));
    }

    @Test
    void anHaNodeRefusesAluaChangesAndNewPortGroupsItsStatesAreItsRole() throws Exception {
        JtargetConfig now = config("a.yaml", "1MiB", "1MiB");
        assertThatThrownBy(() -> ConfigChanges.between(now, config("b.yaml", "1MiB", "1MiB",
                "portal-group-tag: 1, alua-state: standby")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("portals[0].alua-state: changed, but this node is in an HA pair (ha:): its "
                        + "target port groups' states are its role in the pair")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
        assertThatThrownBy(() -> ConfigChanges.between(now, config("c.yaml", "1MiB", "1MiB",
                "portal-group-tag: 1, alua-preferred: true")))
                .hasMessageContaining("portals[0].alua-preferred: changed, but this node is in an HA pair");
        assertThatThrownBy(() -> ConfigChanges.between(now, config("d.yaml", "1MiB", "1MiB", "portal-group-tag: 2")))
                .hasMessageContaining("portals: portal-group-tags changed, but this node is in an HA pair");
    }

    @Test
    void anHaNodeRefusesATargetOnAnotherPortGroup() throws Exception {
        String twoPortals = "portal-group-tag: 1 }\n  - { name: q, listen: \"127.0.0.1:3261\", portal-group-tag: 2";
        JtargetConfig now = config("a.yaml", "1MiB", "1MiB", twoPortals);
        Path moved = dir.resolve("b.yaml");
        Files.writeString(moved, Files.readString(now.source()).replace("portals: [p]", "portals: [p, q]"));
        assertThatThrownBy(() -> ConfigChanges.between(now, ConfigLoader.load(moved)))
                .hasMessageContaining("targets[0].portals: portal-group-tags changed, but this node is in an HA pair");
    }
}
