package org.jtarget.initiator.cli;

import java.util.Locale;
import java.util.Set;

/** The CLI's commands, each with the options it accepts beyond the common ones. */
public enum Command {
    DISCOVER(Set.of()),
    INQUIRY(Set.of("--vpd")),
    READCAP(Set.of()),
    READ(Set.of("--lba", "--blocks", "--out")),
    WRITE(Set.of("--lba", "--blocks", "--in", "--pattern", "--fua")),
    VERIFY(Set.of("--lba", "--blocks", "--in", "--pattern"));

    /** Options every command accepts. */
    public static final Set<String> COMMON_OPTIONS = Set.of("--initiator-name", "--digests", "--timeout");

    private final Set<String> options;

    Command(Set<String> options) {
        this.options = options;
    }

    /** Whether {@code option} (e.g. {@code --lba}) is valid for this command. */
    public boolean accepts(String option) {
        return options.contains(option) || COMMON_OPTIONS.contains(option);
    }

    /** The command line word, e.g. {@code readcap}. */
    public String word() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The command named {@code word}, or a usage failure. */
    public static Command of(String word) throws CliFailure {
        for (Command c : values()) {
            if (c.word().equals(word)) {
                return c;
            }
        }
        throw CliFailure.usage("unknown command '" + word + "'");
    }
}
