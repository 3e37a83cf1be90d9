package org.jtarget.ha.witness;

import org.jtarget.ha.Generation;

/**
 * One request to the witness, one line of text (US-ASCII names, fields separated by one space):
 *
 * <pre>
 * LEASE   PAIR NODE COUNTER GENERATION_NODE LEASE_MS   keep serving generation COUNTER@GENERATION_NODE
 * PROMOTE PAIR NODE COUNTER GENERATION_NODE LEASE_MS   begin generation COUNTER+1@NODE and serve it
 * RELEASE PAIR NODE                                    a planned stop: give the lease up
 * </pre>
 *
 * {@code GENERATION_NODE} is {@code -} for the initial generation (no node began it). Answers are
 * one line too: {@code GRANTED COUNTER GENERATION_NODE} (the generation the node now serves) or
 * {@code REFUSED reason...}.
 *
 * @param kind       LEASE, PROMOTE or RELEASE
 * @param pair       the pair's name ({@code alpha+beta})
 * @param node       the asking node
 * @param generation the generation the node serves (LEASE) or has whole (PROMOTE); null for RELEASE
 * @param leaseMillis how long the grant holds from when the witness received it
 */
public record WitnessRequest(Kind kind, String pair, String node, Generation generation, long leaseMillis) {

    /** What a node asks for. */
    public enum Kind { LEASE, PROMOTE, RELEASE }

    /** The longest line the witness reads: names are at most 64 characters. */
    public static final int MAX_LINE = 512;
    private static final String NAME = "[A-Za-z0-9._+-]{1,129}";

    /** The line to send, without the newline. */
    public String encode() {
        if (kind == Kind.RELEASE) {
            return kind + " " + pair + " " + node;
        }
        return kind + " " + pair + " " + node + " " + generation.counter() + " "
                + (generation.node().isEmpty() ? "-" : generation.node()) + " " + leaseMillis;
    }

    /** The request on {@code line}, or null when it is not one (the witness answers REFUSED). */
    public static WitnessRequest decode(String line) {
        String[] f = line.split(" ");
        try {
            Kind kind = Kind.valueOf(f[0]);
            if (kind == Kind.RELEASE) {
                return f.length == 3 && f[1].matches(NAME) && f[2].matches(NAME)
                        ? new WitnessRequest(kind, f[1], f[2], null, 0) : null;
            }
            if (f.length != 6 || !f[1].matches(NAME) || !f[2].matches(NAME) || !f[4].matches(NAME)) {
                return null;
            }
            long counter = Long.parseLong(f[3]);
            long lease = Long.parseLong(f[5]);
            if (counter < 0 || lease < 1 || lease > 3_600_000) {
                return null;
            }
            return new WitnessRequest(kind, f[1], f[2], new Generation(counter, f[4].equals("-") ? "" : f[4]), lease);
        } catch (IllegalArgumentException | ArrayIndexOutOfBoundsException e) {
            return null;
        }
    }
}
