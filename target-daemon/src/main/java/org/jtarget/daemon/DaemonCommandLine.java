package org.jtarget.daemon;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;

/**
 * {@code jtargetd}'s command line (picocli): the options, and the man-page-like {@code --help}
 * that {@code help2man} turns into jtargetd(8) for the package.
 */
@Command(name = "jtargetd", sortOptions = false, usageHelpWidth = 100,
        // GNU style ("Usage:", "  or:", the description right after): help2man makes the man page of it
        synopsisHeading = "Usage: ",
        customSynopsis = {
            "jtargetd --config FILE",
            "  or:  jtargetd --check --config FILE",
            "  or:  jtargetd --witness --listen HOST:PORT [--state-dir DIR]",
            "  or:  jtargetd --help | --version"},
        descriptionHeading = "",
        description = {
            "The jtarget SCSI target daemon. Serves the backstores, targets and LUNs of the YAML config FILE to iSCSI (TCP and iSER) and SRP "
                + "initiators until SIGTERM or SIGINT, and stops within the daemon's shutdown-timeout. The "
                + "configuration keys are described in the example config "
                + "(/usr/share/doc/jtarget/jtarget.yaml.example) and the README.",
            "",
            "With --check it validates FILE completely without serving: every key, and that the "
                + "stores' files and devices can be opened and every listening address bound (a "
                + "running daemon's own addresses count as in use: check an edited file of a running "
                + "daemon with 'jtargetctl reload' instead, which changes nothing when the file is bad).",
            "",
            "With --witness it runs the witness of HA pairs instead: no storage, one vote for the node "
                + "that may serve when the pair's link is down (docs/ha.md)."},
        optionListHeading = "%nOptions:%n",
        footerHeading = "%n",
        footer = {
            "Signals:",
            "  SIGHUP           re-read FILE and apply the difference, as 'jtargetctl reload' does; a",
            "                   bad file, or a change that needs a restart, is one logged line naming",
            "                   the key, and nothing changes",
            "  SIGTERM, SIGINT  stop: sessions are ended, stores flushed and closed",
            "  SIGUSR1          HA node: hand the primary role to the peer (a planned switchover)",
            "",
            "Exit status:",
            "  0  stopped cleanly, or --help, --version, a --check that passed",
            "  1  the start failed (logged), or the stop did not finish in time",
            "  2  a bad command line or configuration: one line on stderr naming the file and key,",
            "     nothing left running (systemd: RestartPreventExitStatus=2)",
            "",
            "Files:",
            "  /etc/jtarget/jtarget.yaml   the packaged service's config",
            "  /run/jtarget/jtarget.sock   the management API (management.socket) that jtargetctl uses"})
final class DaemonCommandLine {

    @Option(names = "--config", paramLabel = "FILE", description = "The YAML config to serve (or to check).")
    Path config;

    @Option(names = "--check", description = "Validate the config completely, print a summary and exit; serve nothing.")
    boolean check;

    @Option(names = "--witness", description = "Run the witness of HA pairs instead of a target.")
    boolean witness;

    @Option(names = "--listen", paramLabel = "HOST:PORT",
            description = "The witness's TCP address ([v6]:PORT for IPv6).")
    String listen;

    @Option(names = "--state-dir", paramLabel = "DIR",
            description = "Where the witness keeps witness.state (default: the current directory).")
    Path stateDir = Path.of(".");

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
    boolean help;

    @Option(names = {"-V", "--version"}, versionHelp = true, description = "Print the version and exit.")
    boolean version;

    /** The version of the daemon's jar ("development build" when run from classes). */
    static String versionText() {
        String v = DaemonCommandLine.class.getPackage().getImplementationVersion();
        return "jtargetd " + (v == null ? "(development build)" : v);
    }

    /** The whole {@code --help} text. */
    static String usage() {
        StringWriter text = new StringWriter();
        new CommandLine(new DaemonCommandLine()).usage(new PrintWriter(text), CommandLine.Help.Ansi.OFF);
        return text.toString();
    }

    /**
     * Parses {@code args}.
     *
     * @throws CommandLine.ParameterException with a one-line message when they are not a valid
     *                                        combination
     */
    static DaemonCommandLine parse(String... args) {
        DaemonCommandLine options = new DaemonCommandLine();
        CommandLine line = new CommandLine(options);
        line.parseArgs(args);
        options.requireValidCombination(line);
        return options;
    }

    private void requireValidCombination(CommandLine line) {
        if (help || version) {
            return;
        }
        if (witness) {
            if (config != null || check) {
                throw new CommandLine.ParameterException(line, "--witness takes --listen and --state-dir, not --config or --check");
            }
            if (listen == null) {
                throw new CommandLine.ParameterException(line, "--witness needs --listen HOST:PORT");
            }
        } else {
            if (listen != null || line.getParseResult().hasMatchedOption("--state-dir")) {
                throw new CommandLine.ParameterException(line, "--listen and --state-dir are for --witness");
            }
            if (config == null || config.toString().isBlank()) {
                throw new CommandLine.ParameterException(line, "--config FILE is required");
            }
        }
    }
}
