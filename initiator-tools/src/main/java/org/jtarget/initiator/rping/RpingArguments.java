package org.jtarget.initiator.rping;

import org.jtarget.initiator.cli.CliFailure;
import org.jtarget.initiator.cli.OptionValues;

/**
 * A parsed {@code rping -s|-c [-vVP] [-a ADDR] [-p PORT] [-C COUNT] [-S SIZE] [--crc]} command line,
 * with rping's options, meanings and defaults (librdmacm's rping(1)). Options are read as getopt(3)
 * reads them: flags may be grouped ({@code -vV}) and a value may follow its letter ({@code -C100}).
 * {@code --crc} is ours (rping has no such option: siw's CRC is a module parameter).
 *
 * @param server     {@code -s} (else {@code -c}, the client)
 * @param address    {@code -a}: the server's address (client, required), the address to listen on
 *                   (server, every address by default)
 * @param port       {@code -p}, 7174 by default; 0 lets the server pick one (it prints which)
 * @param count      {@code -C}: the client's number of pings, 0 (the default) for ever; the server
 *                   serves until the client disconnects, as rping's does
 * @param size       {@code -S}: the ping buffer's size ({@value PingPattern#MIN_SIZE}..{@value
 *                   PingPattern#MAX_SIZE}, 64 by default)
 * @param verbose    {@code -v}: print each ping's data ({@code ping data: ...}, the server
 *                   {@code server ping data: ...})
 * @param validate   {@code -V}: check each ping's data; the client compares what came back with
 *                   what it sent, the server what it read with rping's pattern for that ping number
 * @param persistent {@code -P} (server): serve one client after another instead of exiting after
 *                   the first
 * @param crc        {@code --crc}: ask for MPA CRC32C on every FPDU (the client in its MPA request, the
 *                   server in its reply, RFC 5044 7.1), so a peer whose CRC is off is tested with it on
 */
public record RpingArguments(boolean server, String address, int port, int count, int size, boolean verbose,
                             boolean validate, boolean persistent, boolean crc) {

    /** The command word. */
    public static final String WORD = "rping";
    /** rping's port. */
    public static final int DEFAULT_PORT = 7174;
    /** rping's size. */
    public static final int DEFAULT_SIZE = 64;
    private static final String FLAGS = "scvVP";
    private static final String WITH_VALUES = "apCS";
    private static final String CRC_OPTION = "--crc";

    /** Parses {@code args} (starting with {@code rping}); problems are usage failures. */
    public static RpingArguments parse(String[] args) throws CliFailure {
        Builder b = new Builder();
        for (int i = 1; i < args.length; i++) {
            String arg = args[i];
            if (arg.equals(CRC_OPTION)) {
                b.crc = true;
                continue;
            }
            if (arg.length() < 2 || arg.charAt(0) != '-') {
                throw CliFailure.usage("rping: unexpected argument '" + arg + "'");
            }
            for (int j = 1; j < arg.length(); j++) {
                char letter = arg.charAt(j);
                if (FLAGS.indexOf(letter) >= 0) {
                    b.flag(letter);
                } else if (WITH_VALUES.indexOf(letter) >= 0) {
                    String value = j + 1 < arg.length() ? arg.substring(j + 1) : ++i < args.length ? args[i] : null;
                    if (value == null) {
                        throw CliFailure.usage("rping: option -" + letter + " needs a value");
                    }
                    b.value(letter, value);
                    break;
                } else {
                    throw CliFailure.usage("rping: unknown option -" + letter);
                }
            }
        }
        return b.build();
    }

    /** The options as they are read. */
    private static final class Builder {
        Boolean server;
        String address;
        int port = DEFAULT_PORT;
        int count;
        int size = DEFAULT_SIZE;
        boolean verbose;
        boolean validate;
        boolean persistent;
        boolean crc;

        void flag(char letter) throws CliFailure {
            switch (letter) {
                case 's', 'c' -> {
                    boolean s = letter == 's';
                    if (server != null && server != s) {
                        throw CliFailure.usage("rping: -s and -c exclude each other");
                    }
                    server = s;
                }
                case 'v' -> verbose = true;
                case 'V' -> validate = true;
                default -> persistent = true;
            }
        }

        void value(char letter, String value) throws CliFailure {
            switch (letter) {
                case 'a' -> address = OptionValues.nonEmpty("-a", value);
                case 'p' -> port = (int) OptionValues.number("-p", value, 0, 65535);
                case 'C' -> count = (int) OptionValues.number("-C", value, 0, Integer.MAX_VALUE);
                default -> size = (int) OptionValues.number("-S", value, PingPattern.MIN_SIZE, PingPattern.MAX_SIZE);
            }
        }

        RpingArguments build() throws CliFailure {
            if (server == null) {
                throw CliFailure.usage("rping: say -s (server) or -c (client)");
            }
            if (!server && address == null) {
                throw CliFailure.usage("rping: the client needs the server's address (-a)");
            }
            if (!server && port == 0) {
                throw CliFailure.usage("rping: the client needs the server's port (-p 1..65535)");
            }
            if (!server && persistent) {
                throw CliFailure.usage("rping: -P is for the server");
            }
            return new RpingArguments(server, server && address == null ? "0.0.0.0" : address, port, count, size,
                    verbose, validate, persistent, crc);
        }
    }
}
