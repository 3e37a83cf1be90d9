package org.jtarget.initiator.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class IscsiUrlTest {

    @Test
    void parsesHostPortTargetAndLun() throws Exception {
        IscsiUrl u = IscsiUrl.parse("iscsi://10.0.0.1:3261/iqn.2026-11.org.jtarget:t1/3", false);
        assertThat(u).isEqualTo(new IscsiUrl(null, null, "10.0.0.1", 3261, "iqn.2026-11.org.jtarget:t1", 3));
        assertThat(u.hasCredentials()).isFalse();
    }

    @Test
    void iserUrlsNameTheSameLogicalUnitOverIser() throws Exception {
        IscsiUrl u = IscsiUrl.parse("iser://alice%pw@10.0.0.1/iqn.2026-11.org.jtarget:t1/3", false);
        assertThat(u).isEqualTo(new IscsiUrl("alice", "pw", "10.0.0.1", IscsiUrl.DEFAULT_PORT,
                "iqn.2026-11.org.jtarget:t1", 3, true));
        assertThat(u.toString()).isEqualTo("iser://alice%***@10.0.0.1:3260/iqn.2026-11.org.jtarget:t1/3");
        assertThat(IscsiUrl.parse("iscsi://h/iqn.x:y/0", false).iser()).isFalse();
        assertThatThrownBy(() -> IscsiUrl.parse("iser://h/iqn.x", false)).isInstanceOf(CliFailure.class);
        assertThatThrownBy(() -> IscsiUrl.parse("isers://h/iqn.x/0", false)).isInstanceOf(CliFailure.class);
    }

    @Test
    void defaultsThePortAndSplitsCredentialsAtTheFirstPercent() throws Exception {
        IscsiUrl u = IscsiUrl.parse("iscsi://alice%se%cret@host/iqn.x:y/0", false);
        assertThat(u.user()).isEqualTo("alice");
        assertThat(u.secret()).isEqualTo("se%cret");
        assertThat(u.port()).isEqualTo(IscsiUrl.DEFAULT_PORT);
        assertThat(u.toString()).doesNotContain("se%cret");
    }

    @Test
    void acceptsBracketedIpv6() throws Exception {
        IscsiUrl u = IscsiUrl.parse("iscsi://[::1]:4000/iqn.x:y/1", false);
        assertThat(u.host()).isEqualTo("::1");
        assertThat(u.port()).isEqualTo(4000);
    }

    @Test
    void discoveryFormHasNoTarget() throws Exception {
        IscsiUrl u = IscsiUrl.parse("iscsi://127.0.0.1:3260", true);
        assertThat(u.target()).isNull();
        assertThat(u.lun()).isEqualTo(-1);
        assertThatThrownBy(() -> IscsiUrl.parse("iscsi://h/iqn.x:y/0", true)).isInstanceOf(CliFailure.class);
    }

    @ParameterizedTest
    @ValueSource(strings = {"http://h/iqn.x/0", "iscsi://h", "iscsi://h/iqn.x", "iscsi://h/iqn.x/", "iscsi:///iqn.x/0",
        "iscsi://h:0/iqn.x/0", "iscsi://h:99999/iqn.x/0", "iscsi://h:p/iqn.x/0", "iscsi://h/iqn.x/lun",
        "iscsi://h/iqn.x/-1", "iscsi://h/a/b/0", "iscsi://alice@h/iqn.x/0", "iscsi://%s@h/iqn.x/0",
        "iscsi://[::1/iqn.x/0"})
    void badUrlsAreUsageErrors(String url) {
        assertThatThrownBy(() -> IscsiUrl.parse(url, false)).isInstanceOfSatisfying(CliFailure.class,
                e -> assertThat(e.exitCode()).isEqualTo(CliFailure.USAGE));
    }
}
