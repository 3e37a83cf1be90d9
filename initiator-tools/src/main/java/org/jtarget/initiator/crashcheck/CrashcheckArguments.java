package org.jtarget.initiator.crashcheck;

import static org.jtarget.initiator.cli.OptionValues.nonEmpty;
import static org.jtarget.initiator.cli.OptionValues.number;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.jtarget.initiator.cli.CliArguments;
import org.jtarget.initiator.cli.CliFailure;
import org.jtarget.initiator.cli.OptionValues;
import org.jtarget.initiator.cli.ScsiUrl;

/**
 * A parsed {@code crashcheck write|verify --url URL [--url URL...] --journal FILE [OPTIONS]} command
 * line; options as {@code --name value} or {@code --name=value}, in any order. Each URL is an
 * iscsi://, iser:// or srp:// one ({@link ScsiUrl}); several are paths to one LU ({@link LunPath},
 * see {@link PathSet}), each with its initiator name ({@code --initiator-name}, else the default for
 * its kind of URL).
 *
 * @param paths   the {@code --url}s in command-line order, at least one
 * @param seconds how long {@code write} runs, or -1 for "until killed or the connection drops" (with
 *                several paths: until killed)
 * @param lba     first LBA of the write region, or -1 for 0
 * @param blocks  length of the write region, or -1 for "to the end of the LUN"
 */
public record CrashcheckArguments(Action action, List<LunPath> paths, Path journal, long seconds, WriteMode mode,
                                  long lba, long blocks, boolean digests, Duration timeout) {

    public CrashcheckArguments {
        paths = List.copyOf(paths);
    }

    /** Whether several paths were given: path failures then move to the next path instead of ending the run. */
    public boolean multipath() {
        return paths.size() > 1;
    }

    /** The command word that selects crashcheck. */
    public static final String WORD = "crashcheck";
    private static final Set<String> COMMON = Set.of("--url", "--journal", "--initiator-name", "--digests",
            "--timeout");
    private static final Set<String> WRITE_ONLY = Set.of("--seconds", "--mode", "--lba", "--blocks");

    /** {@code write} or {@code verify}. */
    public enum Action {
        WRITE, VERIFY
    }

    /** Parses {@code args}, which start with {@code crashcheck}; any problem is a usage failure. */
    public static CrashcheckArguments parse(String[] args) throws CliFailure {
        if (args.length < 2 || !args[0].equals(WORD)) {
            throw CliFailure.usage("crashcheck needs write or verify");
        }
        Action action = switch (args[1]) {
            case "write" -> Action.WRITE;
            case "verify" -> Action.VERIFY;
            default -> throw CliFailure.usage("unknown crashcheck action '" + args[1] + "' (write or verify)");
        };
        Builder b = new Builder(action);
        OptionValues.scan(args, 2, Set.of("--digests"), (name, arg) ->
                COMMON.contains(name) || action == Action.WRITE && WRITE_ONLY.contains(name) ? null
                        : arg.startsWith("--") ? "option " + name + " is not valid for crashcheck " + args[1]
                        : "unexpected argument '" + arg + "'", null, b::option);
        return b.build();
    }

    /** Collects values while parsing, then checks the combination. */
    private static final class Builder {
        private final Action action;
        private final Set<String> seen = new HashSet<>();
        private final List<String> urls = new ArrayList<>();
        private Path journal;
        private long seconds = -1;
        private WriteMode mode = WriteMode.FUA;
        private long lba = -1;
        private long blocks = -1;
        private String initiatorName;
        private boolean digests;
        private Duration timeout = CliArguments.DEFAULT_TIMEOUT;

        Builder(Action action) {
            this.action = action;
        }

        void option(String name, String value) throws CliFailure {
            if (!seen.add(name) && !name.equals("--url")) {
                throw CliFailure.usage("option " + name + " given twice");
            }
            switch (name) {
                case "--url" -> urls.add(value);
                case "--journal" -> journal = Path.of(nonEmpty(name, value));
                case "--seconds" -> seconds = number(name, value, 1, 31_536_000);
                case "--mode" -> mode = WriteMode.of(value);
                case "--lba" -> lba = number(name, value, 0, Long.MAX_VALUE);
                case "--blocks" -> blocks = number(name, value, 1, Long.MAX_VALUE);
                case "--initiator-name" -> initiatorName = nonEmpty(name, value);
                case "--digests" -> digests = true;
                case "--timeout" -> timeout = Duration.ofSeconds(number(name, value, 1, 86_400));
                default -> throw CliFailure.usage("unknown option " + name);
            }
        }

        CrashcheckArguments build() throws CliFailure {
            String word = "crashcheck " + action.name().toLowerCase(java.util.Locale.ROOT);
            if (urls.isEmpty()) {
                throw CliFailure.usage(word + " needs --url URL");
            }
            if (journal == null) {
                throw CliFailure.usage(word + " needs --journal FILE");
            }
            List<LunPath> paths = new ArrayList<>();
            for (String url : urls) {
                ScsiUrl parsed = ScsiUrl.parse(url);
                CliArguments.checkDigests(parsed, digests);
                paths.add(new LunPath(paths.size() + 1, parsed, CliArguments.initiatorNameFor(parsed,
                        initiatorName)));
            }
            return new CrashcheckArguments(action, paths, journal, seconds, mode, lba, blocks, digests, timeout);
        }
    }
}
