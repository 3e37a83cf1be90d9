package org.jtarget.config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A target's {@code srp: {id-ext, ioc-guid}}, its SRP target port identifier, read by {@link SrpReader}. */
class SrpReaderTest {

    private static final String HEAD = """
            portals:
              - { name: tcp, listen: 127.0.0.1:3260 }
              - { name: srp, listen: 127.0.0.1:3261, portal-group-tag: 2, transport: srp }
            targets:
            """;
    private static final String ID = "srp: { id-ext: 0x0123456789abcdef, ioc-guid: 0xfedcba9876543210 }";

    @TempDir
    Path dir;

    /** A config whose targets are {@code iqn.2026-11.org.jtarget:<n>} with these portals and keys. */
    private JtargetConfig load(String... targets) throws Exception {
        StringBuilder yaml = new StringBuilder(HEAD);
        for (int i = 0; i < targets.length; i++) {
            yaml.append("  - { iqn: iqn.2026-11.org.jtarget:t").append(i).append(", acl: [\"*\"], ")
                    .append(targets[i]).append(" }\n");
        }
        Path file = dir.resolve("jtarget.yaml");
        Files.writeString(file, yaml);
        return ConfigLoader.load(file);
    }

    private SrpPortIdConfig srpOf(String target) throws Exception {
        return load(target).targets().getFirst().srp();
    }

    private void assertError(String expected, String... targets) {
        assertThatThrownBy(() -> load(targets)).isInstanceOf(ConfigException.class)
                .hasMessage(dir.resolve("jtarget.yaml") + ": " + expected)
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }

    @Test
    void aTargetOnAnSrpPortalHasItsIdentifierUnquoted() throws Exception {
        SrpPortIdConfig id = srpOf("portals: [tcp, srp], " + ID);
        assertThat(id).isEqualTo(new SrpPortIdConfig(0x0123456789abcdefL, 0xfedcba9876543210L));
        // SRP r16a's order, and Linux ib_srp's: id_ext, then ioc_guid
        assertThat(id.targetPortName()).isEqualTo("0x0123456789abcdeffedcba9876543210");
    }

    @Test
    void theHalvesMayBeQuotedShortOrUppercase() throws Exception {
        SrpPortIdConfig id = srpOf("portals: [srp], srp: { id-ext: '0x1', ioc-guid: \"0X0002C90300A0B1C2\" }");
        assertThat(id).isEqualTo(new SrpPortIdConfig(1, 0x0002c90300a0b1c2L));
        assertThat(id.targetPortName()).isEqualTo("0x00000000000000010002c90300a0b1c2");
        assertThat(srpOf("portals: [srp], srp: { id-ext: 0x0, ioc-guid: 0xFFFFFFFFFFFFFFFF }").targetPortName())
                .isEqualTo("0x0000000000000000ffffffffffffffff");
    }

    @Test
    void aTargetOnNoSrpPortalHasNone() throws Exception {
        assertThat(srpOf("portals: [tcp]")).isNull();
    }

    @Test
    void aTargetOnAnSrpPortalMustSayItsIdentifier() {
        assertError("targets[0].srp: missing (a target on an SRP portal needs its SRP target port identifier: "
                + "srp: {id-ext, ioc-guid})", "portals: [tcp, srp]");
        assertError("targets[0].srp: missing (a target on an SRP portal needs its SRP target port identifier: "
                + "srp: {id-ext, ioc-guid})", "portals: [srp], srp: {}");
    }

    @Test
    void anIdentifierOnATargetWithoutSrpPortalIsRefused() {
        assertError("targets[0].srp: none of this target's portals is an SRP portal (transport: srp), so it would "
                + "never be used", "portals: [tcp], " + ID);
    }

    @Test
    void bothHalvesAreRequiredAndNothingElse() {
        assertError("targets[0].srp.ioc-guid: missing (required)", "portals: [srp], srp: { id-ext: 0x1 }");
        assertError("targets[0].srp.id-ext: missing (required)", "portals: [srp], srp: { ioc-guid: 0x1 }");
        assertError("targets[0].srp.guid: unknown key (expected one of: id-ext, ioc-guid)",
                "portals: [srp], srp: { id-ext: 0x1, ioc-guid: 0x2, guid: 0x3 }");
        assertError("targets[0].srp: expected a map of keys, got '0x1'", "portals: [srp], srp: 0x1");
    }

    @Test
    void aMalformedHalfIsRefused() {
        String expected = "targets[0].srp.id-ext: expected 0x and 1 to 16 hex digits, got '%s'";
        String target = "portals: [srp], srp: { ioc-guid: 0x1, id-ext: %s }";
        assertError(expected.formatted("0x00000000000000001"), target.formatted("0x00000000000000001"));
        assertError(expected.formatted("0x"), target.formatted("0x"));
        assertError(expected.formatted("0x12g4"), target.formatted("0x12g4"));
        assertError(expected.formatted("0x12_34"), target.formatted("0x12_34"));
        // srp_daemon prints the halves without 0x: hex digits that look decimal must not pass as a number
        assertError(expected.formatted("1234"), target.formatted("1234"));
        assertError(expected.formatted("0002c90300a0b1c2"), target.formatted("0002c90300a0b1c2"));
        assertError(expected.formatted("true"), target.formatted("true"));
        assertError("targets[0].srp.id-ext: expected a value, got a map", target.formatted("{ a: 1 }"));
    }

    @Test
    void twoTargetsMayNotShareAnIdentifier() {
        assertError("targets[1].srp: duplicate SRP target port identifier, also used by target "
                + "iqn.2026-11.org.jtarget:t0", "portals: [srp], " + ID, "portals: [srp], srp: { id-ext: 0x123456789ABCDEF, ioc-guid: 0xFEDCBA9876543210 }");
    }

    @Test
    void targetsMayShareOneHalf() throws Exception {
        JtargetConfig c = load("portals: [srp], srp: { id-ext: 0x1, ioc-guid: 0xabc }",
                "portals: [srp], srp: { id-ext: 0x2, ioc-guid: 0xabc }",
                "portals: [srp], srp: { id-ext: 0x2, ioc-guid: 0xabd }");
        assertThat(c.targets()).extracting(TargetConfig::srp).containsExactly(new SrpPortIdConfig(1, 0xabc),
                new SrpPortIdConfig(2, 0xabc), new SrpPortIdConfig(2, 0xabd));
    }
}
