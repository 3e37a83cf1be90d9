package org.jtarget.ha;

import org.jtarget.ha.link.Hello;

/**
 * Which node of a pair serves, decided alike at both ends from the two HELLOs of a new link (so no
 * further round trip is needed): the node already primary keeps serving; otherwise the node with
 * the newer data, whole; between equals, the preferred node. A brand-new pair (both at the initial
 * generation, neither copy whole yet) starts with the preferred node's contents as the pair's data;
 * a pair still at the initial generation after its first copy is decided by whole data as any other,
 * so that a node that lost its copy (a memory store restarted, a new state folder) neither serves
 * it nor copies it over its peer's. Nobody serves when the histories diverged or the newest data is
 * not whole anywhere: a node never serves older data.
 */
public final class RoleDecision {

    /** The outcome for the node that asks. */
    public sealed interface Outcome {
    }

    /** This node serves. */
    public record ThisNode() implements Outcome {
    }

    /** The peer serves; this node is its secondary. */
    public record PeerNode() implements Outcome {
    }

    /** Neither serves until an operator acts; {@code reason} says why, for the log. */
    public record Nobody(String reason) implements Outcome {
    }

    private RoleDecision() {
    }

    /**
     * @param me        this node's HELLO
     * @param peer      the peer's
     * @param preferred the name of the preferred primary
     */
    public static Outcome decide(Hello me, Hello peer, String preferred) {
        Generation mine = new Generation(me.generation(), me.generationNode());
        Generation theirs = new Generation(peer.generation(), peer.generationNode());
        if (mine.divergedFrom(theirs)) {
            return new Nobody("the two nodes' data diverged (generations " + mine + " and " + theirs + ")");
        }
        if (me.primary() || peer.primary()) {
            return keepPrimary(me, peer, mine, theirs);
        }
        if (mine.counter() == 0 && theirs.counter() == 0 && !whole(me) && !whole(peer)) {
            return preferred.equals(me.node()) ? new ThisNode() : new PeerNode(); // a new pair
        }
        if (mine.counter() != theirs.counter()) {
            Hello newer = mine.counter() > theirs.counter() ? me : peer;
            return whole(newer) ? pick(me, newer)
                    : new Nobody("node " + newer.node() + " has the newest data but not all of it");
        }
        if (whole(me) && whole(peer)) {
            return preferred.equals(me.node()) ? new ThisNode() : new PeerNode();
        }
        if (whole(me) || whole(peer)) {
            return whole(me) ? new ThisNode() : new PeerNode();
        }
        return new Nobody("neither node has all the data of generation " + mine);
    }

    private static Outcome keepPrimary(Hello me, Hello peer, Generation mine, Generation theirs) {
        if (me.primary() && peer.primary()) {
            if (mine.counter() == theirs.counter()) {
                return new Nobody("both nodes serve generation " + mine);
            }
            return mine.counter() > theirs.counter() ? new ThisNode() : new PeerNode();
        }
        Hello primary = me.primary() ? me : peer;
        Hello other = me.primary() ? peer : me;
        if (other.generation() > primary.generation()) {
            return new Nobody("primary " + primary.node() + " serves older data than " + other.node() + " has");
        }
        return pick(me, primary);
    }

    private static Outcome pick(Hello me, Hello chosen) {
        return chosen == me ? new ThisNode() : new PeerNode();
    }

    /** True when every store of the node holds whole data of its generation. */
    static boolean whole(Hello h) {
        for (Hello.Store s : h.stores()) {
            if (s.state() == Hello.DATA_MISSING) {
                return false;
            }
        }
        return true;
    }
}
