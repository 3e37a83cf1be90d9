package org.jtarget.initiator.rdmabench;

import java.util.List;
import java.util.Set;
import org.jtarget.initiator.cli.CliFailure;
import org.jtarget.initiator.cli.OptionValues;

/**
 * A parsed {@code rdma-bench [--seconds N] [--provider loopback|tcp|all]} command line.
 *
 * @param seconds   measured time of each case (after a short warm-up)
 * @param providers the providers to measure
 */
public record RdmaBenchArguments(int seconds, List<String> providers) {

    /** The command word. */
    public static final String WORD = "rdma-bench";
    private static final Set<String> OPTIONS = Set.of("--seconds", "--provider");

    /** Parses {@code args} (starting with {@code rdma-bench}); problems are usage failures. */
    public static RdmaBenchArguments parse(String[] args) throws CliFailure {
        int[] seconds = {2};
        List<String>[] providers = new List[] {List.of("loopback", "tcp")};
        OptionValues.scan(args, 1, Set.of(), (name, arg) -> OPTIONS.contains(name) ? null
                : "option " + name + " is not valid for rdma-bench", null, (name, value) -> {
                    if (name.equals("--seconds")) {
                        seconds[0] = (int) OptionValues.number(name, value, 1, 3600);
                    } else {
                        providers[0] = switch (value) {
                            case "loopback" -> List.of("loopback");
                            case "tcp" -> List.of("tcp");
                            case "all" -> List.of("loopback", "tcp");
                            default -> throw CliFailure.usage("bad --provider '" + value + "': loopback, tcp or all");
                        };
                    }
                });
        return new RdmaBenchArguments(seconds[0], providers[0]);
    }
}
