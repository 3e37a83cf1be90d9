package org.jtarget.initiator.cli;

import java.util.Set;

/**
 * Command-line reading shared by the CLI commands: options as {@code --name value} or
 * {@code --name=value}, value-less flags, and checks of the values. Any problem is a usage
 * error (exit 2).
 */
public final class OptionValues {

    /** Takes one option (a flag gets the value {@code ""}) or one positional argument. */
    @FunctionalInterface
    public interface Sink {
        void accept(String name, String value) throws CliFailure;
    }

    /** Says why an option name (or a positional {@code arg}) is not valid here, or null if it is. */
    @FunctionalInterface
    public interface Validity {
        String refusal(String name, String arg);
    }

    private OptionValues() {
    }

    /**
     * Reads {@code args} from index {@code from}: each name is checked with {@code validity},
     * flags take no value, every other option takes the text after {@code =} or the next
     * argument. With a {@code positional} sink, arguments not starting with {@code --} go there.
     */
    public static void scan(String[] args, int from, Set<String> flags, Validity validity, Sink positional,
                            Sink options) throws CliFailure {
        for (int i = from; i < args.length; i++) {
            String arg = args[i];
            if (positional != null && !arg.startsWith("--")) {
                positional.accept(null, arg);
                continue;
            }
            int eq = arg.indexOf('=');
            String name = eq < 0 ? arg : arg.substring(0, eq);
            String refusal = validity.refusal(name, arg);
            if (refusal != null) {
                throw CliFailure.usage(refusal);
            }
            if (flags.contains(name)) {
                if (eq >= 0) {
                    throw CliFailure.usage("option " + name + " takes no value");
                }
                options.accept(name, "");
            } else if (eq >= 0) {
                options.accept(name, arg.substring(eq + 1));
            } else if (i + 1 < args.length) {
                options.accept(name, args[++i]);
            } else {
                throw CliFailure.usage("option " + name + " needs a value");
            }
        }
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
