package org.jtarget.config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code type: partition} backstores and the LUN rules around them. */
class PartitionReaderTest {

    private static final String PORTALS = """
            portals:
              - name: default
                listen: 127.0.0.1:3260
            """;
    private static final String FILE0 = "backstores:\n"
            + "  - { name: file0, type: file, path: file0.img, size: 4GiB, create: true }\n";
    private static final String TWO_PARTS = FILE0
            + "  - { name: part-a, type: partition, of: file0, offset: 0, size: 1GiB }\n"
            + "  - { name: part-b, type: partition, of: file0, offset: 1GiB, size: 3GiB }\n";

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

    private static String target(String iqn, String acl, String luns) {
        return "  - iqn: " + iqn + "\n    portals: [default]\n    acl: " + acl + "\n    luns:\n" + luns;
    }

    /** Partitions alone, no targets. */
    private static String stores(String partitions) {
        return PORTALS + FILE0 + partitions;
    }

    @Test
    void partitionsInheritTheParentsSettingsAndMayServeDifferentTargets() throws Exception {
        JtargetConfig c = load(PORTALS + TWO_PARTS + "targets:\n"
                + target("iqn.2026-11.org.jtarget:a", "[iqn.2026-11.org.client:one]",
                        "      - { lun: 0, backstore: part-a, read-only: true }\n")
                + target("iqn.2026-11.org.jtarget:b", "[iqn.2026-11.org.client:two]",
                        "      - { lun: 0, backstore: part-b }\n"));
        BackstoreConfig b = c.backstore("part-b");
        assertThat(b.type()).isEqualTo(BackstoreConfig.Type.PARTITION);
        assertThat(b.of()).isEqualTo("file0");
        assertThat(b.offsetBytes()).isEqualTo(1L << 30);
        assertThat(b.sizeBytes()).isEqualTo(3L << 30);
        assertThat(b.blockSize()).isEqualTo(512);
        assertThat(b.thin()).isFalse();
        assertThat(c.targets().get(0).luns().get(0).readOnly()).isTrue();
        assertThat(c.targets().get(1).aclInitiators()).containsExactly("iqn.2026-11.org.client:two");
    }

    @Test
    void parentMayBeListedAfterItsPartitionsAndGapsAreAllowed() throws Exception {
        JtargetConfig c = load(PORTALS + "backstores:\n"
                + "  - { name: p, type: partition, of: ram0, offset: 1MiB, size: 1MiB }\n"
                + "  - { name: ram0, type: memory, size: 4MiB, block-size: 4096 }\n");
        assertThat(c.backstore("p").blockSize()).isEqualTo(4096);
        assertThat(c.backstore("p").thin()).isTrue();
    }

    @Test
    void unknownParent() {
        assertError(stores("  - { name: p, type: partition, of: nope, offset: 0, size: 1MiB }\n"),
                "backstores[1].of: unknown backstore 'nope'");
    }

    @Test
    void partitionsDoNotNest() {
        assertError(stores("  - { name: p, type: partition, of: file0, offset: 0, size: 2MiB }\n"
                        + "  - { name: q, type: partition, of: p, offset: 0, size: 1MiB }\n"),
                "backstores[2].of: 'p' is itself a partition; partitions do not nest (name its parent 'file0'"
                        + " and add the offsets)");
    }

    @Test
    void misalignedOffset() {
        assertError(stores("  - { name: p, type: partition, of: file0, offset: 1000, size: 1MiB }\n"),
                "backstores[1].offset: must be a multiple of the block size 512 of 'file0', got 1000");
    }

    @Test
    void misalignedSizeAgainstA4kParent() {
        assertError(PORTALS + "backstores:\n  - { name: ram0, type: memory, size: 4MiB, block-size: 4096 }\n"
                        + "  - { name: p, type: partition, of: ram0, offset: 4096, size: 6144 }\n",
                "backstores[1].size: must be a positive multiple of the block size 4096 of 'ram0', got 6144");
    }

    @Test
    void extentPastTheParent() {
        assertError(stores("  - { name: p, type: partition, of: file0, offset: 3GiB, size: 2GiB }\n"),
                "backstores[1].size: extent [3GiB, 5GiB) ends past the end of 'file0' (4GiB)");
    }

    @Test
    void offsetPastTheParent() {
        assertError(stores("  - { name: p, type: partition, of: file0, offset: 4GiB, size: 512 }\n"),
                "backstores[1].offset: extent [4GiB, 4294967808 bytes) ends past the end of 'file0' (4GiB)");
    }

    @Test
    void negativeOffset() {
        assertError(stores("  - { name: p, type: partition, of: file0, offset: -512, size: 512 }\n"),
                "backstores[1].offset: must be 0 or more, got -512");
    }

    @Test
    void missingSize() {
        assertError(stores("  - { name: p, type: partition, of: file0, offset: 0 }\n"),
                "backstores[1].size: missing (required)");
    }

    @Test
    void overlappingSiblingsAreBothNamed() {
        assertError(stores("  - { name: part-a, type: partition, of: file0, offset: 0, size: 2GiB }\n"
                        + "  - { name: part-b, type: partition, of: file0, offset: 1GiB, size: 3GiB }\n"),
                "backstores[2].offset: partition 'part-b' [1GiB, 4GiB) overlaps partition 'part-a' [0, 2GiB)"
                        + " of 'file0'");
    }

    @Test
    void touchingSiblingsDoNotOverlapAndPartitionsOfOtherParentsAreIndependent() throws Exception {
        JtargetConfig c = load(PORTALS + TWO_PARTS
                + "  - { name: ram0, type: memory, size: 1GiB }\n"
                + "  - { name: part-r, type: partition, of: ram0, offset: 0, size: 1GiB }\n");
        assertThat(c.backstores()).hasSize(5);
    }

    @Test
    void inheritedKeysAreRefusedOnAPartition() {
        for (String key : new String[] {"block-size: 4096", "thin: true", "write-cache: false", "direct: true",
                "path: x.img"}) {
            String name = key.substring(0, key.indexOf(':'));
            assertError(stores("  - { name: p, type: partition, of: file0, offset: 0, size: 1MiB, " + key + " }\n"),
                    "backstores[1]." + name + ": not allowed on a partition: it is the parent store's (set it there)");
        }
    }

    @Test
    void unknownKeyOnAPartition() {
        assertError(stores("  - { name: p, type: partition, of: file0, offset: 0, size: 1MiB, lenght: 3 }\n"),
                "backstores[1].lenght: unknown key (expected one of: name, type, path, size, create, block-size,"
                        + " thin, write-cache, direct, encrypt, of, offset)");
    }

    @Test
    void partitionKeysOnAWholeStoreAreUnknown() {
        assertError(PORTALS + "backstores:\n  - { name: ram0, type: memory, size: 1MiB, offset: 0 }\n",
                "backstores[0].offset: unknown key (expected one of: name, type, path, size, create, block-size,"
                        + " thin, write-cache, direct, encrypt)");
    }

    @Test
    void aPartitionedParentCannotBackALunDirectly() {
        assertError(PORTALS + TWO_PARTS + "targets:\n" + target("iqn.2026-11.org.jtarget:a", "[\"*\"]",
                        "      - { lun: 0, backstore: part-a }\n      - { lun: 1, backstore: file0 }\n"),
                "targets[0].luns[1].backstore: backstore 'file0' is divided into partitions (part-a, part-b);"
                        + " use a partition, or remove them to use the whole store");
    }

    @Test
    void aPartitionStillBacksOnlyOneLun() {
        assertError(PORTALS + TWO_PARTS + "targets:\n"
                        + target("iqn.2026-11.org.jtarget:a", "[\"*\"]", "      - { lun: 0, backstore: part-a }\n")
                        + target("iqn.2026-11.org.jtarget:b", "[\"*\"]", "      - { lun: 0, backstore: part-a }\n"),
                "targets[1].luns[0].backstore: backstore 'part-a' is already LUN 0 of iqn.2026-11.org.jtarget:a"
                        + " (one backstore backs one logical unit)");
    }

    @Test
    void unknownTypeListsPartition() {
        assertError(PORTALS + "backstores:\n  - { name: x, type: slice, size: 1MiB }\n",
                "backstores[0].type: unknown type 'slice' (expected memory, file, block or partition)");
    }
}
