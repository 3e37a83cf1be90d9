package org.jtarget.fabric.iscsi.login;

import org.jtarget.fabric.iscsi.IscsiPortalDefinition;
import org.jtarget.fabric.iscsi.IscsiTargetDefinition;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class SendTargetsTest {

    private final FakeLoginContext context = new FakeLoginContext()
            .with(FakeLoginContext.target("iqn.2024-01.org.jtarget:a", null))
            .with(FakeLoginContext.target("iqn.2024-01.org.jtarget:b", null));

    @Test
    void allListsEveryTargetWithEveryPortal() {
        assertThat(SendTargets.respond("All", context, null)).containsExactly(
                Map.entry("TargetName", "iqn.2024-01.org.jtarget:a"),
                Map.entry("TargetAddress", "192.0.2.1:3260,1"),
                Map.entry("TargetAddress", "[2001:db8::1]:3261,2"),
                Map.entry("TargetName", "iqn.2024-01.org.jtarget:b"),
                Map.entry("TargetAddress", "192.0.2.1:3260,1"),
                Map.entry("TargetAddress", "[2001:db8::1]:3261,2"));
    }

    /** A target on a TCP and an iSER portal: each transport's discovery hears of its own portal only. */
    @Test
    void eachTransportListsItsOwnPortals() {
        IscsiPortalDefinition tcp = new IscsiPortalDefinition("tcp", "192.0.2.1", 3260, 1);
        IscsiPortalDefinition iser = new IscsiPortalDefinition("rdma", "192.0.2.1", 3261, 2, true);
        IscsiTargetDefinition both = new IscsiTargetDefinition("iqn.2024-01.org.jtarget:c", null, null,
                List.of("*"), null, List.of(tcp, iser));
        assertThat(SendTargets.respond("All", new OnePortal(tcp, both), null)).containsExactly(
                Map.entry("TargetName", "iqn.2024-01.org.jtarget:c"), Map.entry("TargetAddress", "192.0.2.1:3260,1"));
        assertThat(SendTargets.respond("All", new OnePortal(iser, both), null)).containsExactly(
                Map.entry("TargetName", "iqn.2024-01.org.jtarget:c"), Map.entry("TargetAddress", "192.0.2.1:3261,2"));
        assertThat(SendTargets.respond("", new OnePortal(iser, both), "iqn.2024-01.org.jtarget:c")).containsExactly(
                Map.entry("TargetName", "iqn.2024-01.org.jtarget:c"), Map.entry("TargetAddress", "192.0.2.1:3261,2"));
    }

    /** The login context of a connection to {@code portal}, which serves {@code target}. */
    private static final class OnePortal extends FakeLoginContext {
        private final IscsiPortalDefinition portal;

        OnePortal(IscsiPortalDefinition portal, IscsiTargetDefinition target) {
            this.portal = portal;
            with(target);
        }

        @Override
        public IscsiPortalDefinition portal() {
            return portal;
        }
    }

    @Test
    void aNameListsThatTargetOnly() {
        assertThat(SendTargets.respond("IQN.2024-01.org.jtarget:B", context, null))
                .first().isEqualTo(Map.entry("TargetName", "iqn.2024-01.org.jtarget:b"));
        assertThat(SendTargets.respond("iqn.2024-01.org.jtarget:b", context, null)).hasSize(3);
        assertThat(SendTargets.respond("iqn.none", context, null)).isEmpty();
    }

    @Test
    void emptyValueListsTheSessionTarget() {
        assertThat(SendTargets.respond("", context, "iqn.2024-01.org.jtarget:a"))
                .first().isEqualTo(Map.entry("TargetName", "iqn.2024-01.org.jtarget:a"));
        assertThat(SendTargets.respond("", context, null)).isEmpty();
    }

    @Test
    void allInANormalSessionListsOnlyTheSessionTarget() {
        assertThat(SendTargets.respond("All", context, "iqn.2024-01.org.jtarget:b"))
                .filteredOn(e -> e.getKey().equals("TargetName"))
                .containsExactly(Map.entry("TargetName", "iqn.2024-01.org.jtarget:b"));
    }

    @Test
    void bracketedIpv6IsNotBracketedTwice() {
        assertThat(SendTargets.address(new IscsiPortalDefinition("x", "[::1]", 3260, 7))).isEqualTo("[::1]:3260,7");
        assertThat(SendTargets.address(new IscsiPortalDefinition("x", "::", 3260, 1))).isEqualTo("[::]:3260,1");
    }
}
