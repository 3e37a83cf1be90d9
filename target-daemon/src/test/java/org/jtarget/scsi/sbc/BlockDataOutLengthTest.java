package org.jtarget.scsi.sbc;

import org.jtarget.scsi.lun.CoreHarness;
import org.jtarget.scsi.lun.CoreHarness.Result;
import org.jtarget.scsi.lun.TestStore;
import org.jtarget.scsi.spi.ScsiCommand;
import org.jtarget.scsi.spi.ScsiStatus;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Arrays;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.jtarget.scsi.lun.Cdbs.filled;
import static org.jtarget.scsi.lun.Cdbs.rw10;
import static org.jtarget.scsi.lun.Cdbs.rw12;
import static org.jtarget.scsi.lun.Cdbs.rw16;

/**
 * The expected data transfer length against the CDB's transfer length for commands whose
 * data-out is logical blocks (CommandContext.blockDataOut, FCP-4 9.4.2): a shorter EDTL writes
 * (or compares) exactly the bytes sent and leaves the medium beyond them as it was, also inside a
 * block; WRITE ATOMIC refuses any shortfall with 05/0E/03; a longer EDTL writes what the CDB asks for.
 */
class BlockDataOutLengthTest {

    private static final int BS = 512;
    private static final int BLOCKS = 64;
    private static final byte OLD = 'a';
    private static final byte NEW = 'b';
    private final TestStore store = new TestStore(BS, BLOCKS, true, false);
    private final CoreHarness h = CoreHarness.of(store, false);

    @BeforeEach
    void fillWithOldContent() {
        Arrays.fill(store.data, 0, 4 * BS, OLD);
    }

    static Stream<Arguments> writesEndingInsideABlock() {
        return Stream.of(
                Arguments.of("WRITE(10) of 1 block, EDTL 200", rw10(0x2A, 0, 0, 1), 200),
                Arguments.of("WRITE(12) of 2 blocks, EDTL 700", rw12(0xAA, 0, 0, 2), 700),
                Arguments.of("WRITE(16) of 1 block, EDTL 511", rw16(0x8A, 0, 0, 1), BS - 1),
                Arguments.of("WRITE AND VERIFY(10) of 2 blocks, EDTL 600", rw10(0x2E, 0, 0, 2), 600));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("writesEndingInsideABlock")
    void theBytesSentAreWrittenAndTheRestOfTheBlockKeepsItsData(String name, byte[] cdb, int edtl) {
        Result r = h.run(cdb, edtl, filled(edtl, NEW));

        assertThat(r.status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(Arrays.copyOfRange(store.data, 0, edtl)).as("the bytes sent").containsOnly(NEW);
        assertThat(Arrays.copyOfRange(store.data, edtl, 4 * BS)).as("the rest").containsOnly(OLD);
    }

    @Test
    void orwriteEndingInsideABlockOrsTheBytesSentOnly() {
        Result r = h.run(rw16(0x8B, 0, 0, 1), 200, filled(200, NEW));

        assertThat(r.status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(Arrays.copyOfRange(store.data, 0, 200)).containsOnly((byte) (OLD | NEW));
        assertThat(Arrays.copyOfRange(store.data, 200, 4 * BS)).containsOnly(OLD);
    }

    @Test
    void verifyEndingInsideABlockComparesTheBytesSent() {
        store.data[300] = NEW; // past the 200 bytes sent
        assertThat(h.run(rw10(0x2F, 0x02, 0, 1), 200, filled(200, OLD)).status()).isEqualTo(ScsiStatus.GOOD);

        store.data[100] = NEW; // inside them
        Result r = h.run(rw10(0x2F, 0x02, 0, 1), 200, filled(200, OLD));
        assertThat(r.status()).isEqualTo(ScsiStatus.CHECK_CONDITION);
        assertThat(new int[]{r.senseKey(), r.asc()}).containsExactly(0x0E, 0x1D); // MISCOMPARE DURING VERIFY
    }

    @Test
    void aWriteEndingInsideABlockHoldsItsRangeExclusively() {
        TestStore deferred = new TestStore(BS, BLOCKS, false, false); // store I/O waits in h.io
        Arrays.fill(deferred.data, 0, BS, OLD);
        CoreHarness core = CoreHarness.of(deferred, false);
        core.submit(CoreHarness.NEXUS_A, 0, 1, rw10(0x2A, 0, 0, 1), 200, filled(200, NEW));
        core.submit(CoreHarness.NEXUS_B, 0, 2, rw10(0x2A, 0, 0, 1), BS, filled(BS, (byte) 'c'));

        assertThat(core.io).as("the whole-block WRITE waits for the read-modify-write").hasSize(1);
        core.runIo();
        assertThat(Arrays.copyOfRange(deferred.data, 0, BS)).containsOnly((byte) 'c');
    }

    @ParameterizedTest(name = "WRITE ATOMIC(16) of 2 blocks, EDTL {0}")
    @ValueSource(ints = {0, 200, BS, BS + 100})
    void writeAtomicWithAShorterExpectedLengthIsRefusedBeforeDataMoves(int edtl) {
        ScsiCommand cmd = h.submit(CoreHarness.NEXUS_A, 0, 1, writeAtomic16(0, 2), edtl, filled(edtl, NEW));
        h.runIo();
        Result r = h.results.get(cmd);

        assertThat(r.status()).isEqualTo(ScsiStatus.CHECK_CONDITION);
        assertThat(new int[]{r.senseKey(), r.asc(), r.ascq()}).containsExactly(0x05, 0x0E, 0x03);
        assertThat(h.events).noneMatch(e -> e.startsWith("writePending"));
        assertThat(store.data).startsWith(filled(4 * BS, OLD));
        // the fabric reports the overflow residual from the CDB's length (RFC 7143 11.4.5.2)
        assertThat(cmd.dataOutLength()).isEqualTo(2 * BS);
    }

    static Stream<Arguments> expectedLengthOfWholeBlocks() {
        return Stream.of(
                Arguments.of("WRITE(10)", rw10(0x2A, 0, 0, 2)),
                Arguments.of("WRITE(16)", rw16(0x8A, 0, 0, 2)),
                Arguments.of("WRITE AND VERIFY(10)", rw10(0x2E, 0, 0, 2)),
                Arguments.of("ORWRITE(16)", rw16(0x8B, 0, 0, 2)));
    }

    @ParameterizedTest(name = "{0} of 2 blocks, EDTL 1 block")
    @MethodSource("expectedLengthOfWholeBlocks")
    void wholeBlocksThatFitAreWrittenAndTheRestIsUntouched(String name, byte[] cdb) {
        Result r = h.run(cdb, BS, filled(BS, NEW));

        assertThat(r.status()).isEqualTo(ScsiStatus.GOOD);
        byte[] expected = name.startsWith("ORWRITE") ? filled(BS, OLD | NEW) : filled(BS, NEW);
        assertThat(Arrays.copyOfRange(store.data, 0, BS)).isEqualTo(expected);
        assertThat(Arrays.copyOfRange(store.data, BS, 4 * BS)).containsOnly(OLD);
    }

    @Test
    void zeroExpectedLengthWritesNothingAndIsGood() {
        Result r = h.run(rw10(0x2A, 0, 0, 1), 0, null);

        assertThat(r.status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(store.data).startsWith(filled(4 * BS, OLD));
    }

    @Test
    void verifyComparesTheBlocksThatWereSent() {
        Arrays.fill(store.data, BS, 2 * BS, NEW); // block 1 differs from the data; only block 0 is sent
        Result r = h.run(rw10(0x2F, 0x02, 0, 2), BS, filled(BS, OLD));

        assertThat(r.status()).isEqualTo(ScsiStatus.GOOD);
    }

    @Test
    void longerExpectedLengthWritesTheBlocksTheCdbNames() {
        Result r = h.run(rw10(0x2A, 0, 1, 1), 10000, filled(10000, NEW));

        assertThat(r.status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(Arrays.copyOfRange(store.data, BS, 2 * BS)).containsOnly(NEW);
        assertThat(Arrays.copyOfRange(store.data, 0, BS)).containsOnly(OLD);
        assertThat(Arrays.copyOfRange(store.data, 2 * BS, 4 * BS)).containsOnly(OLD);
    }

    @Test
    void exactExpectedLengthWritesEveryBlock() {
        Result r = h.run(rw10(0x2A, 0, 0, 2), 2 * BS, filled(2 * BS, NEW));

        assertThat(r.status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(Arrays.copyOfRange(store.data, 0, 2 * BS)).containsOnly(NEW);
    }

    @Test
    void dataOutEndingEarlyFailsWithNothingWritten() {
        h.holdDataOut = true;
        ScsiCommand cmd = h.submit(CoreHarness.NEXUS_A, 0, 1, rw10(0x2A, 0, 0, 2), 2 * BS, filled(600, NEW));
        h.deliver(cmd); // the fabric's transfer ended after 600 of 1024 bytes
        h.runIo();
        Result r = h.results.get(cmd);

        assertThat(r.status()).isEqualTo(ScsiStatus.CHECK_CONDITION);
        assertThat(new int[]{r.senseKey(), r.asc(), r.ascq()}).containsExactly(0x05, 0x0E, 0x03);
        assertThat(store.data).startsWith(filled(4 * BS, OLD));
    }

    @Test
    void readWithShorterExpectedLengthReturnsTheCdbsBlocksForTheFabricToTrim() {
        Arrays.fill(store.data, 0, BS, NEW);
        Result r = h.run(rw10(0x28, 0, 0, 1), 200, null);

        assertThat(r.status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(r.dataIn()).hasSize(BS).containsOnly(NEW);
    }

    /** SBC-4 5.48: WRITE ATOMIC(16): LBA in bytes 2-9, ATOMIC BOUNDARY 10-11, TRANSFER LENGTH 12-13. */
    private static byte[] writeAtomic16(long lba, int blocks) {
        byte[] c = rw16(0x9C, 0, lba, 0);
        c[12] = (byte) (blocks >>> 8);
        c[13] = (byte) blocks;
        return c;
    }
}
