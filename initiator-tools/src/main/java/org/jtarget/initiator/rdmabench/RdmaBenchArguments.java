package org.jtarget.initiator.rdmabench;

import java.util.List;
import java.util.Set;
import org.jtarget.initiator.cli.CliFailure;
import org.jtarget.initiator.cli.OptionValues;

/**
 * A parsed {@code rdma-bench [--seconds N] [--provider loopback|iwarp|all] [--op write|read|all]
 * [--size BYTES] [--buffers one|per-request]} command line.
 *
 * @param seconds           measured time of each case (after a short warm-up)
 * @param providers         the providers to measure
 * @param ops               "write", "read" or both, in that order
 * @param sizes             the message sizes (4 KiB, 64 KiB and 1 MiB unless one is given)
 * @param bufferPerRequest  every request in flight moves its own buffer (about 32 MiB in all, and the
 *                          baseline streams through as much memory), instead of all of them one
 *                          buffer per side as perftest's ib_write_bw/ib_read_bw do by default
 */
public record RdmaBenchArguments(int seconds, List<String> providers, List<String> ops, List<Integer> sizes,
                                 boolean bufferPerRequest) {

    /** The command word. */
    public static final String WORD = "rdma-bench";
    /** The sizes the issue asks for. */
    public static final List<Integer> DEFAULT_SIZES = List.of(4096, 64 * 1024, 1024 * 1024);
    /** The largest size: eight of them fill the benchmark's 32 MiB region. */
    public static final int MAX_SIZE = BenchTarget.REGION_BYTES / 8;
    private static final Set<String> OPTIONS = Set.of("--seconds", "--provider", "--op", "--size", "--buffers");

    /** Parses {@code args} (starting with {@code rdma-bench}); problems are usage failures. */
    @SuppressWarnings("unchecked")
    public static RdmaBenchArguments parse(String[] args) throws CliFailure {
        int[] seconds = {2};
        List<String>[] providers = new List[] {List.of("loopback", "iwarp")};
        List<String>[] ops = new List[] {List.of("write", "read")};
        List<Integer>[] sizes = new List[] {DEFAULT_SIZES};
        boolean[] perRequest = {false};
        OptionValues.scan(args, 1, Set.of(), (name, arg) -> OPTIONS.contains(name) ? null
                : "option " + name + " is not valid for rdma-bench", null, (name, value) -> {
                    switch (name) {
                        case "--seconds" -> seconds[0] = (int) OptionValues.number(name, value, 1, 3600);
                        case "--size" -> sizes[0] = List.of((int) OptionValues.number(name, value, 1, MAX_SIZE));
                        case "--buffers" -> perRequest[0] = switch (value) {
                            case "one" -> false;
                            case "per-request" -> true;
                            default -> throw CliFailure.usage("bad --buffers '" + value + "': one or per-request");
                        };
                        case "--op" -> ops[0] = switch (value) {
                            case "write", "read" -> List.of(value);
                            case "all" -> List.of("write", "read");
                            default -> throw CliFailure.usage("bad --op '" + value + "': write, read or all");
                        };
                        default -> providers[0] = switch (value) {
                            case "loopback", "iwarp" -> List.of(value);
                            case "all" -> List.of("loopback", "iwarp");
                            default -> throw CliFailure.usage("bad --provider '" + value + "': loopback, iwarp or all");
                        };
                    }
                });
        return new RdmaBenchArguments(seconds[0], providers[0], ops[0], sizes[0], perRequest[0]);
    }
}
