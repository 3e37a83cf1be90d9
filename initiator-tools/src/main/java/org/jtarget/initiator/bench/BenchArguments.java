package org.jtarget.initiator.bench;

import static org.jtarget.initiator.cli.OptionValues.nonEmpty;
import static org.jtarget.initiator.cli.OptionValues.number;
import java.time.Duration;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;
import org.jtarget.initiator.cli.CliArguments;
import org.jtarget.initiator.cli.CliFailure;
import org.jtarget.initiator.cli.OptionValues;
import org.jtarget.initiator.cli.ScsiUrl;

/**
 * A parsed {@code bench --url URL [OPTIONS]} command line; options as {@code --name value} or
 * {@code --name=value}, in any order (the style of {@code crashcheck}). The URL is an iscsi://,
 * iser:// or srp:// one ({@link ScsiUrl}).
 *
 * @param sessions    iSCSI sessions or SRP channels, one connection each
 * @param queueDepth  commands outstanding per session (fewer while MaxCmdSN says so)
 * @param readPercent share of reads in percent (100 for read-only workloads, 0 for write-only)
 * @param blockBytes  bytes per command
 * @param seconds     measured run time, after the ramp
 * @param rampSeconds time run first without being measured
 * @param lba         first LBA of the region, or -1 for 0
 * @param blocks      region length, or -1 for "to the end of the LUN"
 */
public record BenchArguments(ScsiUrl url, int sessions, int queueDepth, Workload workload, int readPercent,
                             int blockBytes, int seconds, int rampSeconds, long lba, long blocks,
                             String initiatorName, boolean digests, Duration timeout) {

    /** The command word that selects bench. */
    public static final String WORD = "bench";
    public static final int MAX_SESSIONS = 256;
    /** Task tags keep the slot in 16 bits (see {@link BenchSession}). */
    public static final int MAX_QUEUE_DEPTH = 4096;
    public static final int MIN_BLOCK_BYTES = 512;
    public static final int MAX_BLOCK_BYTES = 16 << 20;
    private static final int DEFAULT_BLOCK_BYTES = 4096;
    private static final int DEFAULT_SECONDS = 10;
    private static final Set<String> OPTIONS = Set.of("--url", "--sessions", "--qd", "--rw", "--rwmixread", "--bs",
            "--seconds", "--ramp", "--lba", "--blocks", "--initiator-name", "--digests", "--timeout");

    /** Parses {@code args}, which start with {@code bench}; any problem is a usage failure. */
    public static BenchArguments parse(String[] args) throws CliFailure {
        if (args.length == 0 || !args[0].equals(WORD)) {
            throw CliFailure.usage("not a bench command line");
        }
        Builder b = new Builder();
        OptionValues.scan(args, 1, Set.of("--digests"), (name, arg) -> OPTIONS.contains(name) ? null
                : arg.startsWith("--") ? "option " + name + " is not valid for bench"
                : "unexpected argument '" + arg + "' (bench takes --url URL)", null, b::option);
        return b.build();
    }

    /**
     * A size in bytes: a number with an optional binary suffix {@code k}/{@code KiB} (1024) or
     * {@code m}/{@code MiB} (1048576), case-insensitive, as fio reads {@code bs=4k}.
     */
    public static int size(String name, String value) throws CliFailure {
        String v = value.trim().toLowerCase(Locale.ROOT);
        long unit = 1;
        if (v.endsWith("kib") || v.endsWith("k")) {
            unit = 1024;
        } else if (v.endsWith("mib") || v.endsWith("m")) {
            unit = 1024 * 1024;
        }
        String digits = v.replaceFirst("(kib|mib|k|m)$", "");
        if (!digits.matches("[0-9]{1,9}")) {
            throw CliFailure.usage("bad " + name + " '" + value + "': expected bytes, e.g. 4096, 4k or 1m");
        }
        long bytes = Long.parseLong(digits) * unit;
        if (bytes < MIN_BLOCK_BYTES || bytes > MAX_BLOCK_BYTES || bytes % MIN_BLOCK_BYTES != 0) {
            throw CliFailure.usage("bad " + name + " '" + value + "': expected a multiple of 512 from 512 to 16m");
        }
        return (int) bytes;
    }

    /** Collects values while parsing, then checks the combination. */
    private static final class Builder {
        private final Set<String> seen = new HashSet<>();
        private String url;
        private int sessions = 1;
        private int queueDepth = 1;
        private Workload workload = Workload.READ;
        private int readPercent = -1;
        private int blockBytes = DEFAULT_BLOCK_BYTES;
        private int seconds = DEFAULT_SECONDS;
        private int ramp;
        private long lba = -1;
        private long blocks = -1;
        private String initiatorName;
        private boolean digests;
        private Duration timeout = CliArguments.DEFAULT_TIMEOUT;

        void option(String name, String value) throws CliFailure {
            if (!seen.add(name)) {
                throw CliFailure.usage("option " + name + " given twice");
            }
            switch (name) {
                case "--url" -> url = value;
                case "--sessions" -> sessions = (int) number(name, value, 1, MAX_SESSIONS);
                case "--qd" -> queueDepth = (int) number(name, value, 1, MAX_QUEUE_DEPTH);
                case "--rw" -> workload = Workload.of(value);
                case "--rwmixread" -> readPercent = (int) number(name, value, 0, 100);
                case "--bs" -> blockBytes = size(name, value);
                case "--seconds" -> seconds = (int) number(name, value, 1, 31_536_000);
                case "--ramp" -> ramp = (int) number(name, value, 0, 86_400);
                case "--lba" -> lba = number(name, value, 0, Long.MAX_VALUE);
                case "--blocks" -> blocks = number(name, value, 1, Long.MAX_VALUE);
                case "--initiator-name" -> initiatorName = nonEmpty(name, value);
                case "--digests" -> digests = true;
                case "--timeout" -> timeout = Duration.ofSeconds(number(name, value, 1, 86_400));
                default -> throw CliFailure.usage("unknown option " + name);
            }
        }

        BenchArguments build() throws CliFailure {
            if (url == null) {
                throw CliFailure.usage("bench needs --url URL");
            }
            if (readPercent >= 0 && !workload.mixed()) {
                throw CliFailure.usage("--rwmixread applies to --rw rw or randrw only");
            }
            ScsiUrl parsed = ScsiUrl.parse(url);
            CliArguments.checkDigests(parsed, digests);
            String name = CliArguments.initiatorNameFor(parsed, initiatorName);
            int reads = readPercent >= 0 ? readPercent : workload.defaultReadPercent();
            return new BenchArguments(parsed, sessions, queueDepth, workload, reads, blockBytes, seconds, ramp, lba,
                    blocks, name, digests, timeout);
        }
    }
}
