package org.jtarget.initiator.cli;

import java.util.List;
import java.util.Map;

/**
 * {@code jtarget-initiator SUB --help}: what one command does and every option it takes, with
 * its default. {@code jtarget-initiator --help} stays the one-screen summary of all commands
 * ({@link CliArguments#USAGE}).
 */
public final class CommandHelp {

    // the closing delimiters stand two columns left of the text: option lines keep a two-space indent
    private static final String URL = """
              URL                     iscsi://[USER%SECRET@]HOST[:PORT]/IQN/LUN (port 3260; one-way CHAP MD5
                                      with credentials), iser://... the same session over an iSER portal,
                                      srp://HOST[:PORT]/0xTARGET_PORT_ID/LUN an SRP target port (port 5555)
            """.stripTrailing();

    private static final String SESSION_OPTIONS = """
              --initiator-name NAME   our iSCSI name (default iqn.2026-11.org.jtarget:initiator:HOSTNAME);
                                      with srp:// our SRP initiator port, 0x and 32 hex digits
              --digests               offer CRC32C header and data digests (iscsi:// only)
              --timeout SECONDS       give up on a login or command after this long (default 30)
            """.stripTrailing();

    private static final String RANGE = """
              --lba N                 first logical block
              --blocks N              number of blocks (a transfer is cut into commands of at most 1 MiB)
            """.stripTrailing();

    private static final String DATA = """
              --in FILE               the data, exactly --blocks blocks of it
              --pattern BYTE|random:SEED
                                      every byte BYTE (0-255, 0x..), or pseudo-random bytes from SEED,
                                      starting at --lba (so write and verify of one range and seed match)
            """.stripTrailing();

    private static final String EXIT = """
            Exit status: 0 ok, 1 verify miscompare, 2 bad URL or option, 3 login failed, 4 CHECK CONDITION
            (sense in words on stderr), 5 connection, I/O or protocol error.""";

    private static final Map<String, String> TEXTS = Map.ofEntries(
            Map.entry("discover", """
                    usage: jtarget-initiator discover iscsi://HOST[:PORT] [options]
                    A discovery session: SendTargets=All, then each target's name and addresses.
                    """ + SESSION_OPTIONS + "\n" + EXIT),
            Map.entry("inquiry", """
                    usage: jtarget-initiator inquiry URL [--vpd PAGE] [options]
                    The standard INQUIRY data in words, or one vital product data page.
                    """ + URL + """

                      --vpd PAGE              a VPD page (0x00 the list, 0x80 serial number, 0x83 identification,
                                              0xb0 block limits, ...), decoded where known, else in hex
                    """ + SESSION_OPTIONS + "\n" + EXIT),
            Map.entry("readcap", """
                    usage: jtarget-initiator readcap URL [options]
                    Block size, number of blocks and bytes (READ CAPACITY (16), else (10)).
                    """ + URL + """

                      rdma://HOST[:PORT]/ENDPOINT    a store endpoint of the daemon's rdma: section (port 4791)
                    """ + SESSION_OPTIONS + "\n" + EXIT),
            Map.entry("read", """
                    usage: jtarget-initiator read URL --lba N --blocks N [--out FILE] [options]
                    Reads the range: a hex dump on stdout, or the bytes into FILE.
                    """ + URL + """

                      rdma://HOST[:PORT]/ENDPOINT    a store endpoint of the daemon's rdma: section (port 4791)
                    """ + RANGE + """

                      --out FILE              write the data to FILE instead of a hex dump
                    """ + SESSION_OPTIONS + "\n" + EXIT),
            Map.entry("write", """
                    usage: jtarget-initiator write URL --lba N --blocks N (--in FILE | --pattern P) [--fua] [options]
                    Writes the range. It overwrites data: never point it at data you keep.
                    """ + URL + """

                      rdma://HOST[:PORT]/ENDPOINT    a store endpoint of the daemon's rdma: section (port 4791)
                    """ + RANGE + "\n" + DATA + """

                      --fua                   force unit access: each WRITE is durable when acknowledged
                    """ + SESSION_OPTIONS + "\n" + EXIT),
            Map.entry("verify", """
                    usage: jtarget-initiator verify URL --lba N --blocks N (--in FILE | --pattern P) [options]
                    Reads the range and compares it; the first differing byte's offset on stderr, exit 1.
                    """ + URL + """

                      rdma://HOST[:PORT]/ENDPOINT    a store endpoint of the daemon's rdma: section (port 4791)
                    """ + RANGE + "\n" + DATA + "\n" + SESSION_OPTIONS + "\n" + EXIT),
            Map.entry("crashcheck", """
                    usage: jtarget-initiator crashcheck write  --url URL [--url URL...] --journal FILE [--seconds N]
                                                  [--mode fua|sync|none] [--lba N --blocks N] [options]
                           jtarget-initiator crashcheck verify --url URL [--url URL...] --journal FILE [options]
                    write: numbered, checksummed blocks over the region, each acknowledged one appended to the
                    journal (fsynced per record); kill or restart the target meanwhile. verify: every journaled
                    block must hold its newest acknowledged write; prints 'verified N blocks, M lost', exit 1 if M > 0.
                      --url URL               the LU (iscsi://, iser:// or srp://); given again: more paths to the
                                              same LU, write moves to the next on a lost connection, a refused
                                              login or ALUA NOT READY (04/0A-0C) and sends the write again
                      --journal FILE          the journal of acknowledged writes
                      --seconds N             write: stop after N seconds (default: until killed)
                      --mode fua|sync|none    write: WRITE with FUA (default), WRITE then SYNCHRONIZE CACHE, or
                                              plain WRITEs (refused unless the LU's write cache is off)
                    """ + RANGE.replace("first logical block", "write: first block of the region (default: the whole LU)")
                    + "\n" + SESSION_OPTIONS + "\n" + EXIT),
            Map.entry("bench", """
                    usage: jtarget-initiator bench --url URL [options]
                    A load generator in the manner of fio: IOPS, MiB/s and latency percentiles per direction.
                    It writes over the region for write workloads: never point it at data you keep.
                      --url URL               the LU (iscsi://, iser:// or srp://)
                      --sessions N            sessions, one connection and thread each (default 1)
                      --qd N                  commands kept outstanding per session (default 1)
                      --rw WORKLOAD           read, write, rw, randread, randwrite or randrw (default read)
                      --rwmixread PCT         percent reads for rw and randrw (default 50)
                      --bs SIZE               bytes per command, 512 to 16m, suffixes k and m (default 4k)
                      --seconds N             measured seconds (default 10)
                      --ramp SECONDS          unmeasured seconds before them (default 0)
                      --lba N                 first block of the region (default: the whole LU)
                      --blocks N              blocks in the region
                    """ + SESSION_OPTIONS + """

                    Exit status: 0 ok, 2 bad option, 3 login failed, 4 a command ended in CHECK CONDITION,
                    5 a connection was lost (the numbers are printed first)."""),
            Map.entry("rdma-bench", """
                    usage: jtarget-initiator rdma-bench [options]
                    Measures the emulated RDMA providers (no daemon needed): RDMA WRITE and READ next to a plain
                    TCP stream of the same size, medians of three rounds; one line per case, in megabits/s.
                      --seconds N             seconds per case, split into three rounds (default 2)
                      --provider P            loopback, iwarp or all (default all)
                      --op OP                 write, read or all (default all)
                      --size BYTES            one transfer size (default 4096, 65536 and 1048576)
                      --buffers one|per-request
                                              one buffer per side for every request (default, as perftest does)
                                              or one per request in flight (32 MiB in all)
                    Exit status: 0 ok, 2 bad option, 5 a failed measurement."""),
            Map.entry("rping", """
                    usage: jtarget-initiator rping -s [-vVP] [-a ADDR] [-p PORT] [-S SIZE] [--crc]
                           jtarget-initiator rping -c [-vV] -a ADDR [-p PORT] [-C COUNT] [-S SIZE] [--crc]
                                                  [--p2p[=write,read,send]]
                    rdma-core's rping over the emulated iWARP provider: faces Linux's rping (siw) either way.
                      -s                      server: serves one client, until it disconnects
                      -c                      client
                      -P                      server: one client after another
                      -a ADDR                 the server's address (the server: all addresses by default)
                      -p PORT                 port (default 7174; the server with 0 picks one and prints it)
                      -C COUNT                pings (default 0: for ever)
                      -S SIZE                 bytes per ping, 26 to 65535 (default 64)
                      -v                      print each ping's data
                      -V                      check each ping's data
                      --crc                   ask for MPA CRC32C on every FPDU (RFC 5044)
                      --p2p[=write,read,send] client: ask for RFC 6581 peer-to-peer mode with these
                                              ready-to-receive messages (default all three)
                    Exit status: 0 ok, 1 data mismatch, 2 bad option, 3 the client cannot connect, 5 a failed
                    work completion, a lost connection or 30 s without a completion."""));

    private CommandHelp() {
    }

    /** The commands that have a help text of their own. */
    public static List<String> commands() {
        return TEXTS.keySet().stream().sorted().toList();
    }

    /** The help of {@code command}, or null when there is no such command. */
    public static String of(String command) {
        return TEXTS.get(command);
    }

    /** True when {@code args} ask for a command's help: {@code SUB ... --help} (or {@code -h}, but not for rping). */
    public static boolean asked(String[] args) {
        if (args.length < 2 || of(args[0]) == null) {
            return false;
        }
        for (String a : args) {
            // rping's options are rdma-core's, which have no -h
            if (a.equals("--help") || a.equals("-h") && !args[0].equals("rping")) {
                return true;
            }
        }
        return false;
    }
}
