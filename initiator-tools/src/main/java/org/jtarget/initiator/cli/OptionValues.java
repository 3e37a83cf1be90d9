package org.jtarget.initiator.cli;

/** Checks of command-line option values, shared by the CLI commands: a bad value is a usage error (exit 2). */
public final class OptionValues {

    private OptionValues() {
    }

    /** {@code value} as a number (decimal, or 0x hex) in {@code min..max}. */
    public static long number(String name, String value, long min, long max) throws CliFailure {
        try {
            long v = Long.decode(value);
            if (v >= min && v <= max) {
                return v;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw CliFailure.usage("bad " + name + " '" + value + "': expected a number " + min + ".." + max);
    }

    /** {@code value} unless it is blank. */
    public static String nonEmpty(String name, String value) throws CliFailure {
        if (value.isBlank()) {
            throw CliFailure.usage(name + " must not be empty");
        }
        return value;
    }
}
