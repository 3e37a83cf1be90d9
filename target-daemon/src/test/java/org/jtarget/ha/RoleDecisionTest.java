package org.jtarget.ha;

import org.jtarget.ha.link.Hello;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Both ends decide alike from the two HELLOs; a node never serves older or partial data. */
class RoleDecisionTest {

    private static Hello hello(String node, boolean primary, long generation, String by, int state) {
        return new Hello(node, primary, generation, by, 1, 0, 4096, 1, List.of(),
                List.of(new Hello.Store("disk", 512, 1000, state)));
    }

    private static void both(Hello a, Hello b, String preferred, Class<?> forA, Class<?> forB) {
        assertThat(RoleDecision.decide(a, b, preferred)).isInstanceOf(forA);
        assertThat(RoleDecision.decide(b, a, preferred)).isInstanceOf(forB);
    }

    @Test
    void aNewPairStartsWithThePreferredNodesData() {
        both(hello("a", false, 0, "", Hello.DATA_MISSING), hello("b", false, 0, "", Hello.DATA_MISSING), "b",
                RoleDecision.PeerNode.class, RoleDecision.ThisNode.class);
    }

    /** Still at the initial generation after the first copy: a node that lost its copy is no new pair. */
    @Test
    void atTheInitialGenerationOnlyWholeDataServes() {
        both(hello("a", false, 0, "", Hello.DATA_MISSING), hello("b", false, 0, "", Hello.DATA_CONSISTENT), "a",
                RoleDecision.PeerNode.class, RoleDecision.ThisNode.class);
        both(hello("a", false, 0, "", Hello.DATA_CHANGED), hello("b", false, 0, "", Hello.DATA_MISSING), "b",
                RoleDecision.ThisNode.class, RoleDecision.PeerNode.class);
        both(hello("a", false, 0, "", Hello.DATA_CHANGED), hello("b", false, 0, "", Hello.DATA_CONSISTENT), "b",
                RoleDecision.PeerNode.class, RoleDecision.ThisNode.class);
    }

    @Test
    void theNodeAlreadyServingKeepsServing() {
        both(hello("a", false, 3, "a", Hello.DATA_CONSISTENT), hello("b", true, 4, "b", Hello.DATA_CONSISTENT), "a",
                RoleDecision.PeerNode.class, RoleDecision.ThisNode.class);
    }

    @Test
    void theNewerWholeDataWinsOverThePreference() {
        both(hello("a", false, 5, "a", Hello.DATA_CHANGED), hello("b", false, 4, "b", Hello.DATA_CONSISTENT), "b",
                RoleDecision.ThisNode.class, RoleDecision.PeerNode.class);
    }

    @Test
    void equalDataGoesToThePreferredNodeAndPartialDataNeverServes() {
        both(hello("a", false, 4, "b", Hello.DATA_CONSISTENT), hello("b", false, 4, "b", Hello.DATA_CONSISTENT), "a",
                RoleDecision.ThisNode.class, RoleDecision.PeerNode.class);
        both(hello("a", false, 4, "b", Hello.DATA_CONSISTENT), hello("b", false, 4, "b", Hello.DATA_MISSING), "b",
                RoleDecision.ThisNode.class, RoleDecision.PeerNode.class);
    }

    @Test
    void nobodyServesWhenTheNewestDataIsPartialOrTheHistoriesDiverged() {
        both(hello("a", false, 5, "a", Hello.DATA_MISSING), hello("b", false, 4, "b", Hello.DATA_CONSISTENT), "b",
                RoleDecision.Nobody.class, RoleDecision.Nobody.class);
        both(hello("a", false, 5, "a", Hello.DATA_CONSISTENT), hello("b", false, 5, "b", Hello.DATA_CONSISTENT), "a",
                RoleDecision.Nobody.class, RoleDecision.Nobody.class);
        both(hello("a", true, 4, "a", Hello.DATA_CONSISTENT), hello("b", false, 6, "b", Hello.DATA_CONSISTENT), "a",
                RoleDecision.Nobody.class, RoleDecision.Nobody.class);
    }
}
