package org.jtarget.config;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class IscsiNamesTest {

    @Test
    void acceptsTheRfcExamples() {
        // RFC 7143 4.2.7.2-4.2.7.4 examples (eui/naa hex in either case, RFC 3722 folds case).
        assertThat(IscsiNames.problem("iqn.2001-04.com.example:storage:diskarrays-sn-a8675309")).isNull();
        assertThat(IscsiNames.problem("iqn.2001-04.com.example")).isNull();
        assertThat(IscsiNames.problem("iqn.1993-08.org.debian:01:abcdef012345")).isNull();
        assertThat(IscsiNames.problem("eui.02004567A425678D")).isNull();
        assertThat(IscsiNames.problem("naa.52004567BA64678D")).isNull();
        assertThat(IscsiNames.problem("naa.62004567BA64678D0123456789ABCDEF")).isNull();
    }

    @Test
    void refusesMalformedNames() {
        assertThat(IscsiNames.problem("iqn.2001-4.com.example")).startsWith("invalid iqn name");
        assertThat(IscsiNames.problem("iqn.2001-04.-bad.example")).startsWith("invalid iqn name");
        assertThat(IscsiNames.problem("iqn.2001-04.com.example:with space")).startsWith("invalid iqn name");
        assertThat(IscsiNames.problem("iqn.2001-04.com.Example")).contains("must be lowercase");
        assertThat(IscsiNames.problem("eui.0200456")).startsWith("invalid eui name");
        assertThat(IscsiNames.problem("naa.5200456789")).startsWith("invalid naa name");
        assertThat(IscsiNames.problem("IQN.2001-04.com.example")).startsWith("invalid iSCSI name");
        assertThat(IscsiNames.problem("iqn.2001-04.com.example:" + "x".repeat(200))).contains("223 bytes");
    }

    @Test
    void otherFormsAreNamedOnlyForANameOfNoIscsiForm() {
        assertThat(IscsiNames.problem("bob", "; or be X")).isEqualTo(
                "invalid iSCSI name 'bob' (must start with iqn., eui. or naa., RFC 7143 4.2.7; or be X)");
        assertThat(IscsiNames.problem("eui.0200456", "; or be X")).doesNotContain("or be X");
        assertThat(IscsiNames.problem("eui.02004567A425678D", "; or be X")).isNull();
    }
}
