package org.jtarget.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.time.Duration;
import java.util.Arrays;
import java.util.stream.Stream;
import org.jtarget.initiator.raw.ScsiCdbs;
import org.jtarget.initiator.raw.ScsiResult;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * iSCSI residuals on the wire (RFC 7143 11.4.5), on the memory and the file LUN, as a raw PDU
 * client sees them. A WRITE whose Expected Data Transfer Length is shorter than its CDB's transfer
 * length (SPDTL > EDTL) writes exactly the bytes sent, also when they end inside a block, and
 * leaves the medium beyond them as it was (FCP-4 9.4.2 choice a), with the overflow residual. A
 * longer EDTL writes the CDB's blocks with an underflow residual. READs return what fits in the
 * EDTL with the residual either way.
 *
 * <p>Every case runs over TCP, over iSER and over SRP ({@link ScsiTransport}), one session each:
 * over iSER and SRP a write of at most 8 KiB goes as immediate data, a longer one is fetched by RDMA
 * READ, and a READ's data is placed by RDMA WRITE, so the residuals come from the SCSI Response
 * (SRP_RSP: DIUNDER/DIOVER, DOUNDER/DOOVER) alone.
 */
class ResidualIT {

    @RegisterExtension
    static final DaemonExtension DAEMON = DaemonExtension.withRdmaPortals();

    private static final Duration IO_TIMEOUT = Duration.ofSeconds(10);
    private static final int BLOCK = 512;
    private static final byte OLD = 'a';
    private static final byte NEW = 'b';

    /**
     * The session of the transport the running case uses; each method's cases come grouped by transport, and
     * the other transport's session is closed first (the daemon's arena has room for one iSER
     * connection, and an idle session would only collect NOP-Ins).
     */
    private static ScsiTransport sessionTransport;
    private static ScsiClient session;

    private static ScsiClient client(ScsiTransport wanted) throws IOException {
        if (wanted == sessionTransport) {
            return session;
        }
        logout();
        session = wanted.login(DAEMON, "iqn.2026-11.org.jtarget:residuals", IO_TIMEOUT);
        sessionTransport = wanted;
        for (int lun : new int[]{DaemonConfig.MEMORY_LUN, DaemonConfig.FILE_LUN}) {
            assertThat(session.testUnitReadyClearingUnitAttention(lun).good()).isTrue();
        }
        return session;
    }

    @AfterAll
    static void logout() throws IOException {
        if (session != null) {
            session.close();
            session = null;
            sessionTransport = null;
        }
    }

    static Stream<Arguments> writes() {
        return ScsiTransport.crossedWith(Stream.of(DaemonConfig.MEMORY_LUN, DaemonConfig.FILE_LUN).flatMap(lun -> Stream.of(
                Arguments.of(lun, "WRITE(10)", 10),
                Arguments.of(lun, "WRITE(12)", 12),
                Arguments.of(lun, "WRITE(16)", 16))));
    }

    @ParameterizedTest(name = "[{0}] LUN {1} {2}: EDTL ending inside the block")
    @MethodSource("writes")
    void partialBlockOverflowWritesTheBytesSentAndKeepsTheRest(ScsiTransport transport, int lun, String name, int cdbSize)
            throws IOException {
        long lba = fillOld(transport, lun, cdbSize, 2);

        ScsiResult r = client(transport).execute(lun, writeCdb(cdbSize, lba, 1), filled(200, NEW));

        assertThat(r.good()).as(r.toString()).isTrue();
        assertThat(r.residual()).as("overflow residual").isEqualTo(-(BLOCK - 200));
        byte[] back = read(transport, lun, lba, 2);
        assertThat(Arrays.copyOfRange(back, 0, 200)).as("the bytes sent").containsOnly(NEW);
        assertThat(Arrays.copyOfRange(back, 200, 2 * BLOCK)).as("the rest").containsOnly(OLD);
    }

    @ParameterizedTest(name = "[{0}] LUN {1} {2}: EDTL of one of two blocks")
    @MethodSource("writes")
    void wholeBlockOverflowWritesTheBlocksSentAndNoOther(ScsiTransport transport, int lun, String name, int cdbSize)
            throws IOException {
        long lba = fillOld(transport, lun, cdbSize, 2);

        ScsiResult r = client(transport).execute(lun, writeCdb(cdbSize, lba, 2), filled(BLOCK, NEW));

        assertThat(r.good()).as(r.toString()).isTrue();
        assertThat(r.residual()).as("overflow residual").isEqualTo(-BLOCK);
        byte[] back = read(transport, lun, lba, 2);
        assertThat(Arrays.copyOfRange(back, 0, BLOCK)).as("the block sent").containsOnly(NEW);
        assertThat(Arrays.copyOfRange(back, BLOCK, 2 * BLOCK)).as("the block not sent").containsOnly(OLD);
    }

    @ParameterizedTest(name = "[{0}] LUN {1} {2}: EDTL 0")
    @MethodSource("writes")
    void noDataSentWritesNothing(ScsiTransport transport, int lun, String name, int cdbSize)
            throws IOException {
        long lba = fillOld(transport, lun, cdbSize, 2);

        ScsiResult r = client(transport).execute(lun, writeCdb(cdbSize, lba, 1), new byte[0]);

        assertThat(r.good()).as(r.toString()).isTrue();
        assertThat(r.residual()).as("overflow residual").isEqualTo(-BLOCK);
        assertThat(read(transport, lun, lba, 2)).as("nothing written").containsOnly(OLD);
    }

    @ParameterizedTest(name = "[{0}] LUN {1} {2}: EDTL longer than the block")
    @MethodSource("writes")
    void underflowWritesTheCdbsBlocks(ScsiTransport transport, int lun, String name, int cdbSize)
            throws IOException {
        long lba = fillOld(transport, lun, cdbSize, 2);

        ScsiResult r = client(transport).execute(lun, writeCdb(cdbSize, lba, 1), filled(10000, NEW));

        assertThat(r.good()).as(r.toString()).isTrue();
        assertThat(r.residual()).as("underflow residual").isEqualTo(10000 - BLOCK);
        byte[] back = read(transport, lun, lba, 2);
        assertThat(Arrays.copyOfRange(back, 0, BLOCK)).containsOnly(NEW);
        assertThat(Arrays.copyOfRange(back, BLOCK, 2 * BLOCK)).as("the block after").containsOnly(OLD);
    }

    static Stream<Arguments> reads() {
        return ScsiTransport.crossedWith(Stream.of(DaemonConfig.MEMORY_LUN, DaemonConfig.FILE_LUN).flatMap(lun -> Stream.of(
                Arguments.of(lun, 1, 200, -(BLOCK - 200)),
                Arguments.of(lun, 2, BLOCK, -BLOCK),
                Arguments.of(lun, 1, 2 * BLOCK, BLOCK),
                Arguments.of(lun, 1, BLOCK + 100, 100))));
    }

    @ParameterizedTest(name = "[{0}] LUN {1}: READ(10) of {2} block(s) with EDTL {3}")
    @MethodSource("reads")
    void readReturnsWhatFitsWithTheResidual(ScsiTransport transport, int lun, int blocks, int edtl, int residual)
            throws IOException {
        long lba = fillOld(transport, lun, 10, 2);

        ScsiResult r = client(transport).execute(lun, ScsiCdbs.read10(lba, blocks), edtl);

        assertThat(r.good()).as(r.toString()).isTrue();
        assertThat(r.residual()).as("residual (negative: overflow)").isEqualTo(residual);
        assertThat(r.data()).hasSize(Math.min(edtl, blocks * BLOCK)).containsOnly(OLD);
    }

    /** Writes OLD into two blocks at an address of this case's own; returns the address. */
    private static long fillOld(ScsiTransport transport, int lun, int cdbSize, int blocks) throws IOException {
        long lba = 64L * cdbSize + 8L * blocks;
        ScsiResult w = client(transport).write10(lun, lba, filled(blocks * BLOCK, OLD), BLOCK);
        assertThat(w.good()).as("WRITE(10) of the old content: " + w).isTrue();
        return lba;
    }

    private static byte[] read(ScsiTransport transport, int lun, long lba, int blocks) throws IOException {
        ScsiResult r = client(transport).read10(lun, lba, blocks, BLOCK);
        assertThat(r.good()).as("READ(10): " + r).isTrue();
        return r.data();
    }

    private static byte[] writeCdb(int cdbSize, long lba, int blocks) {
        return switch (cdbSize) {
            case 10 -> ScsiCdbs.write10(lba, blocks);
            case 12 -> ScsiCdbs.write12(lba, blocks);
            default -> ScsiCdbs.write16(lba, blocks, false);
        };
    }

    private static byte[] filled(int n, byte value) {
        byte[] b = new byte[n];
        Arrays.fill(b, value);
        return b;
    }
}
