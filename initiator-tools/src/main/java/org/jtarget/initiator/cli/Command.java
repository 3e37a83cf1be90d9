package org.jtarget.initiator.cli;

import java.util.Locale;
import java.util.Set;

/**
 * The CLI's commands, each with the options it accepts beyond the common ones, and whether it works
 * on an RDMA store endpoint ({@code rdma://}) as well as on an iSCSI logical unit.
 */
public enum Command {
    DISCOVER(Set.of(), false),
    INQUIRY(Set.of("--vpd"), false),
    READCAP(Set.of(), true),
    READ(Set.of("--lba", "--blocks", "--out"), true),
    WRITE(Set.of("--lba", "--blocks", "--in", "--pattern", "--fua"), true),
    VERIFY(Set.of("--lba", "--blocks", "--in", "--pattern"), true);

    /** Options every command accepts. */
    public static final Set<String> COMMON_OPTIONS = Set.of("--initiator-name", "--digests", "--timeout");

    private final Set<String> options;
    private final boolean onStoreEndpoints;

    Command(Set<String> options, boolean onStoreEndpoints) {
        this.options = options;
        this.onStoreEndpoints = onStoreEndpoints;
    }

    /** Whether the command takes an {@code rdma://} store endpoint URL too (it moves blocks, nothing SCSI). */
    public boolean onStoreEndpoints() {
        return onStoreEndpoints;
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
