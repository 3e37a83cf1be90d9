package org.jtarget.initiator.cli;

import static org.jtarget.initiator.cli.OptionValues.nonEmpty;
import static org.jtarget.initiator.cli.OptionValues.number;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * A parsed command line: {@code COMMAND URL [OPTIONS]}, options in any order after the command,
 * as {@code --name value} or {@code --name=value}. The URL is an iSCSI one (iscsi://, iser://), an
 * SRP one (srp://, every command but discover), or for readcap, read, write and verify an RDMA
 * store endpoint's, which takes none of the iSCSI-only options. Exactly one of the three URL
 * components is set.
 *
 * @param url     the iSCSI URL, or null
 * @param rdmaUrl the store endpoint's URL, or null
 * @param srpUrl  the SRP URL, or null
 * @param vpdPage the VPD page of {@code inquiry --vpd}, or -1 for standard INQUIRY data
 * @param lba     first block of read/write/verify (-1 when not given)
 * @param blocks  block count of read/write/verify (-1 when not given)
 * @param out     file for {@code read --out}, or null for a hex dump on stdout
 * @param in      file for {@code write/verify --in}, or null
 * @param pattern the {@code --pattern} text, or null
 * @param initiatorName our IQN, with an srp:// URL our SRP initiator port name, or null with an rdma:// URL
 */
public record CliArguments(Command command, IscsiUrl url, RdmaUrl rdmaUrl, SrpUrl srpUrl, int vpdPage, long lba,
                           long blocks,
                           Path out, Path in, String pattern, boolean fua, String initiatorName, boolean digests,
                           Duration timeout) {

    /** Our IQN prefix; the host name is appended (RFC 7143 4.2.7.2: iqn.yyyy-mm.reversed-domain[:unique]). */
    public static final String INITIATOR_NAME_PREFIX = "iqn.2026-11.org.jtarget:initiator:";
    /** Our SRP initiator port name's first half: initiator extension 0, ib_srp's default. */
    public static final String SRP_INITIATOR_PORT_PREFIX = "0x0000000000000000";
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);
    public static final String USAGE = "usage: jtarget-initiator discover|inquiry|readcap|read|write|verify URL"
            + " [--vpd PAGE] [--lba N --blocks N] [--out FILE] [--in FILE | --pattern BYTE|random:SEED] [--fua]"
            + " [--initiator-name IQN] [--digests] [--timeout SECONDS]\n"
            + "       jtarget-initiator readcap|read|write|verify rdma://HOST[:PORT]/ENDPOINT [--lba N --blocks N]"
            + " [--out FILE] [--in FILE | --pattern BYTE|random:SEED] [--timeout SECONDS]\n"
            + "       jtarget-initiator crashcheck write --url URL [--url URL...] --journal FILE [--seconds N]"
            + " [--mode fua|sync|none] [--lba N] [--blocks N]\n"
            + "       jtarget-initiator crashcheck verify --url URL [--url URL...] --journal FILE\n"
            + "       jtarget-initiator bench --url URL [--sessions N] [--qd N]"
            + " [--rw read|write|rw|randread|randwrite|randrw] [--rwmixread PCT] [--bs SIZE] [--seconds N]"
            + " [--ramp SECONDS] [--lba N] [--blocks N]\n"
            + "       jtarget-initiator rdma-bench [--seconds N] [--provider loopback|iwarp|all] [--op write|read|all] [--size BYTES]\n"
            + "                                    [--buffers one|per-request]\n"
            + "       jtarget-initiator rping -s [-vVP] [-a ADDR] [-p PORT] [-S SIZE] [--crc]\n"
            + "       jtarget-initiator rping -c [-vV] -a ADDR [-p PORT] [-C COUNT] [-S SIZE] [--crc]"
            + " [--p2p[=write,read,send]]\n"
            + "       URL is iscsi://[USER%SECRET@]HOST[:PORT]/IQN/LUN, or iser://[USER%SECRET@]HOST[:PORT]/IQN/LUN for"
            + " the same session over an iSER portal (RFC 7145, iwarp provider; no --digests), or"
            + " srp://HOST[:PORT]/0xTARGET_PORT_ID/LUN for an SRP target port (T10 SRP r16a, iwarp provider; port "
            + SrpUrl.DEFAULT_PORT + " by default; TARGET_PORT_ID and --initiator-name are 0x and 32 hex digits;"
            + " no --digests, no discover); several crashcheck --urls are paths to one LU (multipath: write moves to the"
            + " next path on a lost connection, a refused login or ALUA NOT READY 04/0A-0C and sends the unacknowledged"
            + " write again, until --seconds end; verify reads through the first path that answers)";

    /** Parses {@code args}; any problem is a {@link CliFailure#USAGE} failure. */
    public static CliArguments parse(String[] args) throws CliFailure {
        if (args.length == 0) {
            throw CliFailure.usage("no command given");
        }
        Builder b = new Builder(Command.of(args[0]));
        OptionValues.scan(args, 1, FLAGS, (name, arg) -> b.command.accepts(name) ? null
                : "option " + name + " is not valid for " + b.command.word(), (none, url) -> b.url(url), (name, value) -> {
                    if (FLAGS.contains(name)) {
                        b.flag(name);
                    } else {
                        b.option(name, value);
                    }
                });
        return b.build();
    }

    /** The options that take no value. */
    private static final Set<String> FLAGS = Set.of("--fua", "--digests");
    /** Options that mean something to iSCSI only, refused with an rdma:// URL (in this order). */
    private static final List<String> ISCSI_ONLY_OPTIONS = List.of("--fua", "--digests", "--initiator-name");

    /** {@link #INITIATOR_NAME_PREFIX} plus this machine's host name, lower case. */
    public static String defaultInitiatorName() {
        return INITIATOR_NAME_PREFIX + hostName();
    }

    /**
     * Our SRP initiator port name when none is given: {@link #SRP_INITIATOR_PORT_PREFIX} (initiator
     * extension 0), then the first 8 bytes of the SHA-256 of the host name as
     * {@link #defaultInitiatorName()} ends with it, in lowercase hex: stable per host, as ib_srp's
     * port GID half is per adapter, and computable for an ACL
     * ({@code printf %s HOST | sha256sum | cut -c1-16}).
     */
    public static String defaultSrpInitiatorPort() {
        try {
            byte[] sha = MessageDigest.getInstance("SHA-256").digest(hostName().getBytes(StandardCharsets.UTF_8));
            return SRP_INITIATOR_PORT_PREFIX + HexFormat.of().formatHex(sha, 0, Long.BYTES);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    /** This machine's host name, lower case, characters outside {@code a-z 0-9 . -} as '-'. */
    private static String hostName() {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            host = "localhost";
        }
        String clean = host.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9.\\-]", "-");
        return clean.isEmpty() ? "localhost" : clean;
    }

    /**
     * The name a session on {@code url} logs in with: {@code given} or this host's default, an IQN
     * for iSCSI, an SRP port name for srp:// ("0x" and 32 hex digits: anything else is a usage
     * error, so that the daemon's ACL can name it as written).
     */
    public static String initiatorNameFor(ScsiUrl url, String given) throws CliFailure {
        if (!(url instanceof SrpUrl)) {
            return given != null ? given : defaultInitiatorName();
        }
        if (given == null) {
            return defaultSrpInitiatorPort();
        }
        if (!SrpUrl.isPortName(given)) {
            throw CliFailure.usage("with an srp:// URL --initiator-name is an SRP port name, 0x and 32 hex digits,"
                    + " not '" + given + "'");
        }
        return given;
    }

    /** {@code --digests} only means something over iSCSI/TCP: iSER (RFC 7145) and SRP carry none. */
    public static void checkDigests(ScsiUrl url, boolean digests) throws CliFailure {
        if (digests && url instanceof SrpUrl) {
            throw CliFailure.usage("--digests is not valid with an srp:// URL (SRP carries no digests)");
        }
        if (digests && url instanceof IscsiUrl iscsi && iscsi.iser()) {
            throw CliFailure.usage("--digests is not valid with an iser:// URL (iSER carries no digests, RFC 7145)");
        }
    }

    /** Collects values while parsing, then checks the combination. */
    private static final class Builder {
        private final Command command;
        private final Set<String> seen = new HashSet<>();
        private String url;
        private int vpdPage = -1;
        private long lba = -1;
        private long blocks = -1;
        private Path out;
        private Path in;
        private String pattern;
        private boolean fua;
        private String initiatorName;
        private boolean digests;
        private Duration timeout = DEFAULT_TIMEOUT;

        Builder(Command command) {
            this.command = command;
        }

        void url(String text) throws CliFailure {
            if (url != null) {
                throw CliFailure.usage("unexpected argument '" + text + "' (the URL is already " + url + ")");
            }
            url = text;
        }

        void flag(String name) throws CliFailure {
            once(name);
            if (name.equals("--fua")) {
                fua = true;
            } else {
                digests = true;
            }
        }

        void option(String name, String value) throws CliFailure {
            once(name);
            switch (name) {
                case "--vpd" -> vpdPage = (int) number(name, value, 0, 255);
                case "--lba" -> lba = number(name, value, 0, Long.MAX_VALUE);
                case "--blocks" -> blocks = number(name, value, 1, 0xffffffffL);
                case "--out" -> out = Path.of(value);
                case "--in" -> in = Path.of(value);
                case "--pattern" -> {
                    DataPattern.parse(value); // fail early on a bad pattern
                    pattern = value;
                }
                case "--initiator-name" -> initiatorName = nonEmpty(name, value);
                case "--timeout" -> timeout = Duration.ofSeconds(number(name, value, 1, 86_400));
                default -> throw CliFailure.usage("unknown option " + name);
            }
        }

        private void once(String name) throws CliFailure {
            if (!seen.add(name)) {
                throw CliFailure.usage("option " + name + " given twice");
            }
        }

        CliArguments build() throws CliFailure {
            if (url == null) {
                throw CliFailure.usage(command.word() + " needs a URL");
            }
            if (url.startsWith(RdmaUrl.SCHEME)) {
                RdmaUrl endpoint = storeEndpoint();
                checkTransferOptions();
                return new CliArguments(command, null, endpoint, null, vpdPage, lba, blocks, out, in, pattern, false,
                        null, false, timeout);
            }
            if (url.startsWith(SrpUrl.SCHEME)) {
                SrpUrl srp = srpTarget();
                checkTransferOptions();
                return new CliArguments(command, null, null, srp, vpdPage, lba, blocks, out, in, pattern, fua,
                        initiatorNameFor(srp, initiatorName), false, timeout);
            }
            if (!IscsiUrl.hasScheme(url)) {
                throw UrlAuthority.bad(url, "must start with " + schemes());
            }
            IscsiUrl parsed = IscsiUrl.parse(url, command == Command.DISCOVER);
            checkDigests(parsed, digests);
            checkTransferOptions();
            return new CliArguments(command, parsed, null, null, vpdPage, lba, blocks, out, in, pattern, fua,
                    initiatorNameFor(parsed, initiatorName), digests, timeout);
        }

        /** The URL schemes the command takes, in words. */
        private String schemes() {
            String scsi = IscsiUrl.SCHEME + ", " + IscsiUrl.ISER_SCHEME;
            if (command == Command.DISCOVER) {
                return IscsiUrl.SCHEME + " or " + IscsiUrl.ISER_SCHEME;
            }
            return command.onStoreEndpoints() ? scsi + ", " + SrpUrl.SCHEME + " or " + RdmaUrl.SCHEME
                    : scsi + " or " + SrpUrl.SCHEME;
        }

        /** The srp:// URL of a command other than discover (SRP has no discovery), without --digests. */
        private SrpUrl srpTarget() throws CliFailure {
            if (command == Command.DISCOVER) {
                throw CliFailure.usage("discover needs an iscsi:// or iser:// portal URL (SRP has no discovery: name"
                        + " the target port in an srp:// URL)");
            }
            SrpUrl srp = SrpUrl.parse(url);
            checkDigests(srp, digests);
            return srp;
        }

        /** The rdma:// URL of a command that works on store endpoints, given none of the iSCSI-only options. */
        private RdmaUrl storeEndpoint() throws CliFailure {
            if (!command.onStoreEndpoints()) {
                throw CliFailure.usage(command.word() + " needs an iscsi:// URL (an rdma:// store endpoint answers"
                        + " readcap, read, write and verify)");
            }
            for (String option : ISCSI_ONLY_OPTIONS) {
                if (seen.contains(option)) {
                    throw CliFailure.usage("option " + option + " is not valid with an rdma:// URL");
                }
            }
            return RdmaUrl.parse(url);
        }

        private void checkTransferOptions() throws CliFailure {
            boolean transfer = command == Command.READ || command == Command.WRITE || command == Command.VERIFY;
            if (transfer && (lba < 0 || blocks < 0)) {
                throw CliFailure.usage(command.word() + " needs --lba N and --blocks N");
            }
            boolean needsData = command == Command.WRITE || command == Command.VERIFY;
            if (needsData && (in == null) == (pattern == null)) {
                throw CliFailure.usage(command.word() + " needs exactly one of --in FILE and --pattern");
            }
        }
    }

    /** The URL of a logical unit: the iSCSI or the SRP one, whichever was given (null with an rdma:// URL). */
    public ScsiUrl scsiUrl() {
        return url != null ? url : srpUrl;
    }

    /** The {@code --pattern} as a data source (call once per transfer: random streams are stateful). */
    public DataPattern dataPattern() throws CliFailure {
        return pattern == null ? null : DataPattern.parse(pattern);
    }
}
