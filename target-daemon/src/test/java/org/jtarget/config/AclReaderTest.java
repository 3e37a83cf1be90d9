package org.jtarget.config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A target's {@code acl}: plain initiator names and entries that map LUNs (masking, read-only). */
class AclReaderTest {

    private static final String HEAD = """
            portals:
              - name: default
                listen: 127.0.0.1:3260
            backstores:
              - { name: ram0, type: memory, size: 1MiB }
              - { name: ram1, type: memory, size: 1MiB }
              - { name: ram2, type: memory, size: 1MiB }
            targets:
              - iqn: iqn.2026-11.org.jtarget:demo
                portals: [default]
                luns:
                  - { lun: 0, backstore: ram0 }
                  - { lun: 1, backstore: ram1 }
                  - { lun: 2, backstore: ram2 }
            """;

    @TempDir
    Path dir;

    private List<AclConfig> load(String acl) throws Exception {
        Path file = dir.resolve("jtarget.yaml");
        Files.writeString(file, HEAD + "    acl: " + acl + "\n");
        return ConfigLoader.load(file).targets().getFirst().acl();
    }

    private void assertError(String acl, String expected) {
        assertThatThrownBy(() -> load(acl)).isInstanceOf(ConfigException.class)
                .hasMessage(dir.resolve("jtarget.yaml") + ": " + expected)
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }

    @Test
    void plainNamesAndTheWildcardStillMeanEveryLunWritable() throws Exception {
        assertThat(load("[\"*\"]")).containsExactly(AclConfig.allLuns("*"));
        assertThat(load("[iqn.2026-11.org.a:x, iqn.2026-11.org.b:y]"))
                .containsExactly(AclConfig.allLuns("iqn.2026-11.org.a:x"), AclConfig.allLuns("iqn.2026-11.org.b:y"));
    }

    @Test
    void anEntryMapsLunsAndReadOnlyLunsAndMixesWithNames() throws Exception {
        assertThat(load("[ iqn.2026-11.org.a:x, { initiator: iqn.2026-11.org.b:y, luns: [0, 2], read-only-luns: [2] },"
                + " { initiator: iqn.2026-11.org.c:z, read-only-luns: [1] } ]"))
                .containsExactly(AclConfig.allLuns("iqn.2026-11.org.a:x"),
                        new AclConfig("iqn.2026-11.org.b:y", List.of(0, 2), List.of(2)),
                        new AclConfig("iqn.2026-11.org.c:z", null, List.of(1)));
    }

    @Test
    void theWildcardMayMapLunsWhenItIsAlone() throws Exception {
        assertThat(load("[ { initiator: \"*\", luns: [1] } ]")).containsExactly(new AclConfig("*", List.of(1), List.of()));
    }

    @Test
    void srpInitiatorPortNamesAreAcceptedInLowercase() throws Exception {
        // unquoted: the loader keeps 0x... as text, leading zeros and all
        assertThat(load("[ 0x00000000000000000002C90300A0B1C2, { initiator: '0XFE800000000000000002c90300a0b1c3',"
                + " luns: [0] }, iqn.2026-11.org.a:x ]"))
                .containsExactly(AclConfig.allLuns("0x00000000000000000002c90300a0b1c2"),
                        new AclConfig("0xfe800000000000000002c90300a0b1c3", List.of(0), List.of()),
                        AclConfig.allLuns("iqn.2026-11.org.a:x"));
    }

    @Test
    void srpInitiatorPortNamesAreExactly32HexDigitsAndOnceEach() {
        String notAName = "targets[0].acl[0]: invalid iSCSI name '%s' (must start with iqn., eui. or naa., "
                + "RFC 7143 4.2.7; or be an SRP initiator port name: 0x and 32 hex digits)";
        String short31 = "0x" + "0".repeat(15) + "2c90300a0b1c2ab";
        assertError("[ " + short31 + " ]", notAName.formatted(short31));
        assertError("[ 0x" + "1".repeat(33) + " ]", notAName.formatted("0x" + "1".repeat(33)));
        assertError("[ 0x" + "g".repeat(32) + " ]", notAName.formatted("0x" + "g".repeat(32)));
        assertError("[ '" + "1".repeat(32) + "' ]", notAName.formatted("1".repeat(32)));
        assertError("[ 0x0000000000000000000000000000ABCD, 0x0000000000000000000000000000abcd ]",
                "targets[0].acl[1]: initiator '0x0000000000000000000000000000abcd' listed twice");
    }

    @Test
    void everyMistakeIsOneLineNamingItsKey() {
        assertError("[ { initiator: iqn.2026-11.org.b:y, luns: [3] } ]",
                "targets[0].acl[0].luns[0]: LUN 3 is not a LUN of this target");
        assertError("[ { initiator: iqn.2026-11.org.b:y, luns: [0, 0] } ]",
                "targets[0].acl[0].luns[1]: LUN 0 listed twice");
        assertError("[ { initiator: iqn.2026-11.org.b:y, luns: [0], read-only-luns: [1] } ]",
                "targets[0].acl[0].read-only-luns[0]: LUN 1 is not in luns (list it there too, or drop luns to map every LUN)");
        assertError("[ { initiator: iqn.2026-11.org.b:y, luns: [zero] } ]",
                "targets[0].acl[0].luns[0]: expected an integer 0..16383, got 'zero'");
        assertError("[ { initiator: iqn.2026-11.org.b:y, lun: [0] } ]",
                "targets[0].acl[0].lun: unknown key (expected one of: initiator, luns, read-only-luns)");
        assertError("[ { luns: [0] } ]", "targets[0].acl[0].initiator: missing (required)");
        assertError("[ { initiator: bob } ]", "targets[0].acl[0].initiator: invalid iSCSI name 'bob' (must start with "
                + "iqn., eui. or naa., RFC 7143 4.2.7; or be an SRP initiator port name: 0x and 32 hex digits)");
        assertError("[ iqn.2026-11.org.b:y, { initiator: iqn.2026-11.org.b:y, luns: [0] } ]",
                "targets[0].acl[1].initiator: initiator 'iqn.2026-11.org.b:y' listed twice");
        assertError("[ \"*\", { initiator: iqn.2026-11.org.b:y, luns: [0] } ]",
                "targets[0].acl[0]: \"*\" allows any initiator; do not combine it with names");
    }
}
