package org.jtarget.ha;

/**
 * Which history a node's data belongs to (DRBD's data generation UUIDs, reduced to what a pair
 * needs): a counter and the node that started it. A node that serves writes its peer does not get
 * (degraded, or promoted) starts a new generation, {@link #next}, before it acknowledges the first
 * such write; data of a higher counter is newer. Two generations of the same counter begun by
 * different nodes mean the two histories diverged, which the pair never resolves by itself.
 *
 * @param counter how many generations the pair went through
 * @param node    the node that began this one
 */
public record Generation(long counter, String node) {

    /** Where a pair starts: both nodes' data is the same (empty, or copied) until one writes alone. */
    public static final Generation INITIAL = new Generation(0, "");

    /** The generation {@code node} begins when it writes without its peer. */
    public Generation next(String by) {
        return new Generation(counter + 1, by);
    }

    /** True when this and {@code other} are two different histories from the same ancestor. */
    public boolean divergedFrom(Generation other) {
        return counter == other.counter && !node.equals(other.node);
    }

    @Override
    public String toString() {
        return counter + (node.isEmpty() ? "" : "@" + node);
    }
}
