package org.jtarget.ha.witness;

import org.jtarget.ha.Generation;

/** The witness's answer: granted, with the generation the node now serves, or refused with a reason. */
public sealed interface WitnessAnswer {

    /** The node may serve {@code generation} until its lease ends. */
    record Granted(Generation generation) implements WitnessAnswer {
    }

    /** Not granted; {@code reason} for the log. */
    record Refused(String reason) implements WitnessAnswer {
    }

    /** The line for {@code a}, without the newline. */
    static String encode(WitnessAnswer a) {
        return switch (a) {
            case Granted g -> "GRANTED " + g.generation().counter() + " "
                    + (g.generation().node().isEmpty() ? "-" : g.generation().node());
            case Refused r -> "REFUSED " + r.reason();
        };
    }

    /** The answer on {@code line}; a line that is neither is a refusal naming it. */
    static WitnessAnswer decode(String line) {
        if (line.startsWith("REFUSED ")) {
            return new Refused(line.substring(8));
        }
        String[] f = line.split(" ");
        try {
            if (f.length == 3 && f[0].equals("GRANTED")) {
                return new Granted(new Generation(Long.parseLong(f[1]), f[2].equals("-") ? "" : f[2]));
            }
        } catch (NumberFormatException e) {
            // below
        }
        return new Refused("the witness answered '" + line + "'");
    }
}
