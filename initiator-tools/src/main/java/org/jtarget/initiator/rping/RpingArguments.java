package org.jtarget.initiator.rping;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;
import org.jtarget.initiator.cli.CliFailure;
import org.jtarget.initiator.cli.OptionValues;
import org.jtarget.rdma.iwarp.ReadyToReceive;

/**
 * A parsed {@code rping -s|-c [-vVP] [-a ADDR] [-p PORT] [-C COUNT] [-S SIZE] [--crc] [--p2p[=RTRS]]} command line,
 * with rping's options, meanings and defaults (librdmacm's rping(1)). Options are read as getopt(3)
 * reads them: flags may be grouped ({@code -vV}) and a value may follow its letter ({@code -C100}).
 * {@code --crc} and {@code --p2p} are ours (rping has neither: siw's CRC and peer-to-peer mode are
 * settings of the module).
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
 * @param peerToPeer {@code --p2p[=write,read,send]} (client): ask for RFC 6581's peer-to-peer mode,
 *                   offering those ready-to-receive messages (all three by default); empty: client-server
 *                   mode, as rping. The server takes either mode as its client asks.
 */
public record RpingArguments(boolean server, String address, int port, int count, int size, boolean verbose,
                             boolean validate, boolean persistent, boolean crc, Set<ReadyToReceive> peerToPeer) {

    /** The command word. */
    public static final String WORD = "rping";
    /** rping's port. */
    public static final int DEFAULT_PORT = 7174;
    /** rping's size. */
    public static final int DEFAULT_SIZE = 64;
    private static final String FLAGS = "scvVP";
    private static final String WITH_VALUES = "apCS";
    private static final String CRC_OPTION = "--crc";
    private static final String P2P_OPTION = "--p2p";

    /** Parses {@code args} (starting with {@code rping}); problems are usage failures. */
    public static RpingArguments parse(String[] args) throws CliFailure {
        Builder b = new Builder();
        for (int i = 1; i < args.length; i++) {
            String arg = args[i];
            if (arg.equals(CRC_OPTION)) {
                b.crc = true;
                continue;
            }
            if (arg.equals(P2P_OPTION) || arg.startsWith(P2P_OPTION + "=")) {
                b.peerToPeer = readyToReceive(arg.substring(P2P_OPTION.length()));
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

    /** The RTRs after {@code --p2p}: {@code =write,read,send} or a part of them, all three when none is named. */
    private static Set<ReadyToReceive> readyToReceive(String value) throws CliFailure {
        if (value.isEmpty()) {
            return EnumSet.of(ReadyToReceive.WRITE, ReadyToReceive.READ, ReadyToReceive.SEND);
        }
        Set<ReadyToReceive> offered = EnumSet.noneOf(ReadyToReceive.class);
        for (String name : value.substring(1).split(",", -1)) {
            offered.add(switch (name.toLowerCase(Locale.ROOT)) {
                case "write" -> ReadyToReceive.WRITE;
                case "read" -> ReadyToReceive.READ;
                case "send" -> ReadyToReceive.SEND;
                default -> throw CliFailure.usage("rping: --p2p takes write, read and send, not '" + name + "'");
            });
        }
        return offered;
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
        Set<ReadyToReceive> peerToPeer = Set.of();

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
            if (server && !peerToPeer.isEmpty()) {
                throw CliFailure.usage("rping: --p2p is for the client (the server takes what its client asks for)");
            }
            return new RpingArguments(server, server && address == null ? "0.0.0.0" : address, port, count, size,
                    verbose, validate, persistent, crc, Set.copyOf(peerToPeer));
        }
    }
}
