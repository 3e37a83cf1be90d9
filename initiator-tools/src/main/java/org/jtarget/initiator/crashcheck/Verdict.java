package org.jtarget.initiator.crashcheck;

/**
 * What {@link Expectations#check} found in one journaled block.
 *
 * @param detail for {@link Kind#LOST}, what the block holds instead (for the verify report); else empty
 */
public record Verdict(Kind kind, String detail) {

    /** The outcomes. */
    public enum Kind {
        /** The newest acknowledged version. */
        NEWEST,
        /** The write that was in flight, unacknowledged, when its run ended (allowed, see {@link Expectations}). */
        IN_FLIGHT,
        /** Anything else: an acknowledged write was lost. */
        LOST
    }

    static final Verdict NEWEST = new Verdict(Kind.NEWEST, "");
    static final Verdict IN_FLIGHT = new Verdict(Kind.IN_FLIGHT, "");

    static Verdict lost(String detail) {
        return new Verdict(Kind.LOST, detail);
    }

    public boolean lost() {
        return kind == Kind.LOST;
    }
}
