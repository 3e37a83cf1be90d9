package org.jtarget.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Random;
import java.util.function.Function;
import org.jtarget.initiator.raw.ScsiCdbs;
import org.jtarget.initiator.raw.ScsiResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A 1 TiB thin memory LUN (issue 4): the daemon starts without touching the terabyte (it listens
 * within {@link DaemonProcess#START_TIMEOUT}, like every other suite, and its resident set stays
 * small), READ CAPACITY reports 1 TiB, 64 MiB written in 1 MiB pieces spread over the whole LUN
 * read back with the same SHA-256 while the daemon's VmRSS grows by about the data written, and
 * UNMAP makes the pieces read as zeros again. A thin store larger than the default
 * {@code daemon.memory-limit} (half the RAM) is accepted too: only writes past the limit would fail.
 *
 * <p>Each test starts its own daemon (two configs), in a folder of its own, with a TCP, an iSER and
 * an SRP portal; the terabyte case runs over each ({@link ScsiTransport}): over iSER and SRP the
 * daemon copies the memory store's Data-In into its pinned arena for the RDMA WRITEs, and the
 * resident set must still grow by about the data written only.
 */
class MemoryStoreIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final int BLOCK = 512;
    private static final long TIB_BLOCKS = (1L << 40) / BLOCK;
    private static final int MIB = 1 << 20;
    private static final int PIECE_BLOCKS = MIB / BLOCK;
    private static final int PIECES = 64;
    /** Budget for the daemon's resident set growth: 64 MiB of data (96 MiB of 1 MiB chunks) + JVM noise. */
    private static final long RSS_GROWTH_LIMIT = 400L * MIB;
    /** The resident set of a daemon that did not touch its terabyte (a JVM with Netty: well under this). */
    private static final long RSS_AT_START_LIMIT = 1L << 30;

    private static String yaml(Portals portals, String... daemonSettings) {
        return portals.yaml(daemonSettings) + """
                backstores:
                  - { name: big, type: memory, size: 1TiB, thin: true }
                targets:
                  - iqn: %s
                    portals: [%s]
                    luns:
                      - { lun: 0, backstore: big }
                    acl: ["*"]
                %s""".formatted(DaemonConfig.IQN, Portals.TARGET_PORTALS, Portals.TARGET_SRP);
    }

    /** Piece {@code i}: 1 MiB at a scattered LBA in the i-th 1/64 of the LUN; odd ones straddle two chunks; the last ends the LUN. */
    private static long lbaOf(int i) {
        if (i == PIECES - 1) {
            return TIB_BLOCKS - PIECE_BLOCKS;
        }
        long slice = TIB_BLOCKS / PIECES;
        long inSlice = (i * 7919L % (slice / PIECE_BLOCKS - 1)) * PIECE_BLOCKS;
        return i * slice + inSlice + (i % 2) * (PIECE_BLOCKS / 2);
    }

    private static byte[] piece(int i) {
        byte[] b = new byte[MIB];
        new Random(1000 + i).nextBytes(b);
        return b;
    }

    /** VmRSS of the daemon's JVM (the launcher script execs java, so the process is the JVM), in bytes. */
    private static long vmRss(DaemonProcess d) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(d.pid()), "status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.substring(6).trim().split("\\s+")[0]) * 1024;
            }
        }
        throw new AssertionError("no VmRSS in /proc/" + d.pid() + "/status");
    }

    private static ScsiClient login(int port, ScsiTransport transport, String initiator) throws IOException {
        ScsiClient c = transport.login(port, "iqn.2026-11.org.jtarget:" + initiator, TIMEOUT);
        assertThat(c.testUnitReadyClearingUnitAttention(0).good()).isTrue();
        return c;
    }

    /** READ CAPACITY (16): {RETURNED LOGICAL BLOCK ADDRESS, LOGICAL BLOCK LENGTH IN BYTES}. */
    private static long[] readCapacity16(ScsiClient c, DaemonProcess d) throws IOException {
        ScsiResult r = c.execute(0, ScsiCdbs.readCapacity16(32), 32);
        assertThat(r.good()).as("READ CAPACITY (16): " + r + "\n" + d.describe()).isTrue();
        ByteBuffer b = ByteBuffer.wrap(r.data());
        return new long[] {b.getLong(0), b.getInt(8) & 0xFFFF_FFFFL};
    }

    /**
     * Starts a daemon on {@code yaml} (given the three portals' ports), runs {@code body} with the
     * port of {@code transport}'s portal, stops it and keeps its log as {@code <name>.log}.
     */
    private static void withDaemon(String name, ScsiTransport transport, Function<Portals, String> yaml,
                                   DaemonBody body) throws Exception {
        Path dir = Files.createTempDirectory("jtarget-it-MemoryStoreIT-");
        Portals portals = Portals.free();
        long t0 = System.nanoTime();
        DaemonProcess d = DaemonProcess.start(DaemonConfig.write(dir, yaml.apply(portals)), portals.tcp());
        System.out.printf("MemoryStoreIT %s: listening after %d ms%n", name, (System.nanoTime() - t0) / 1_000_000);
        try {
            body.run(d, portals.port(transport));
            d.stopCleanly();
        } finally {
            if (d.isAlive()) {
                d.kill();
            }
            Path logs = Files.createDirectories(Path.of("target", "daemon-logs"));
            Files.writeString(logs.resolve("MemoryStoreIT-" + name + ".log"), d.log());
            DaemonExtension.deleteTree(dir);
        }
    }

    @FunctionalInterface
    private interface DaemonBody {
        void run(DaemonProcess d, int port) throws Exception;
    }

    @ParameterizedTest(name = "[{0}] a tebibyte thin memory LUN starts at once and holds only what is written")
    @EnumSource(ScsiTransport.class)
    void aTebibyteThinMemoryLunStartsAtOnceAndHoldsOnlyWhatIsWritten(ScsiTransport transport) throws Exception {
        withDaemon("unlimited-" + transport, transport, portals -> yaml(portals, "memory-limit: unlimited"), (d, port) -> {
            long atStart = vmRss(d);
            assertThat(atStart).as("VmRSS right after start: the terabyte is not allocated").isLessThan(RSS_AT_START_LIMIT);
            try (ScsiClient c = login(port, transport, "bigmem")) {
                assertThat(readCapacity16(c, d)).as("READ CAPACITY (16): last LBA, block length")
                        .containsExactly(TIB_BLOCKS - 1, BLOCK);
                assertThat(c.read10(0, lbaOf(5), PIECE_BLOCKS, BLOCK).data()).as("never written: zeros")
                        .hasSize(MIB).containsOnly((byte) 0);
                long before = vmRss(d);

                MessageDigest written = sha256();
                for (int i = 0; i < PIECES; i++) {
                    byte[] data = piece(i);
                    ScsiResult w = c.write10(0, lbaOf(i), data, BLOCK);
                    assertThat(w.good()).as("WRITE(10) of piece %d at LBA %d: %s\n%s", i, lbaOf(i), w, d.describe())
                            .isTrue();
                    written.update(data);
                }
                MessageDigest read = sha256();
                for (int i = 0; i < PIECES; i++) {
                    ScsiResult r = c.read10(0, lbaOf(i), PIECE_BLOCKS, BLOCK);
                    assertThat(r.good()).as("READ(10) of piece %d: %s", i, r).isTrue();
                    read.update(r.data());
                }
                assertThat(hex(read)).as("SHA-256 of the 64 pieces read back").isEqualTo(hex(written));

                long after = vmRss(d);
                System.out.printf("MemoryStoreIT [" + transport + "]: VmRSS at start %d MiB, before writing %d MiB, after 64 MiB written"
                        + " and read %d MiB (growth %d MiB)%n", atStart / MIB, before / MIB, after / MIB,
                        (after - before) / MIB);
                assertThat(after - before).as("VmRSS growth for 64 MiB written (before %d, after %d)", before, after)
                        .isLessThan(RSS_GROWTH_LIMIT);

                for (int i = 0; i < PIECES; i++) {
                    assertThat(c.unmap(0, lbaOf(i), PIECE_BLOCKS).good()).as("UNMAP piece %d", i).isTrue();
                }
                for (int i = 0; i < PIECES; i++) {
                    assertThat(c.read10(0, lbaOf(i), PIECE_BLOCKS, BLOCK).data()).as("piece %d after UNMAP", i)
                            .containsOnly((byte) 0);
                }
                System.out.printf("MemoryStoreIT [" + transport + "]: VmRSS after UNMAP %d MiB%n", vmRss(d) / MIB);
                c.logout();
            }
        });
    }

    @Test
    void aThinStoreLargerThanTheDefaultMemoryLimitIsAccepted() throws Exception {
        withDaemon("default-limit", ScsiTransport.TCP, MemoryStoreIT::yaml, (d, port) -> {
            assertThat(d.log()).as("the default limit is finite").contains("(daemon.memory-limit)");
            try (ScsiClient c = login(port, ScsiTransport.TCP, "bigmem-default")) {
                assertThat(readCapacity16(c, d)).containsExactly(TIB_BLOCKS - 1, BLOCK);
                for (int i : new int[] {0, 31, PIECES - 1}) {
                    assertThat(c.write10(0, lbaOf(i), piece(i), BLOCK).good()).as("WRITE piece %d", i).isTrue();
                    assertThat(c.read10(0, lbaOf(i), PIECE_BLOCKS, BLOCK).data()).isEqualTo(piece(i));
                }
                c.logout();
            }
        });
    }

    private static MessageDigest sha256() throws NoSuchAlgorithmException {
        return MessageDigest.getInstance("SHA-256");
    }

    private static String hex(MessageDigest md) {
        return HexFormat.of().formatHex(md.digest());
    }
}
