package org.jtarget.scsi.sbc;

import org.jtarget.backstore.spi.StoreException;
import org.jtarget.scsi.lun.CoreHarness;
import org.jtarget.scsi.lun.CoreHarness.Result;
import org.jtarget.scsi.lun.TestStore;
import org.jtarget.scsi.spi.ScsiStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.jtarget.scsi.lun.Cdbs.*;

class SbcReadWriteTest {

    private static final int BS = 512;
    private static final int BLOCKS = 300;
    private final TestStore store = new TestStore(BS, BLOCKS, true, false);
    private final CoreHarness h = CoreHarness.of(store, false);

    private static void assertSense(Result r, int key, int asc, int ascq) {
        assertThat(r.status()).isEqualTo(ScsiStatus.CHECK_CONDITION);
        assertThat(new int[]{r.senseKey(), r.asc(), r.ascq()}).containsExactly(key, asc, ascq);
    }

    static Stream<Arguments> outOfRange() {
        return Stream.of(
                Arguments.of("read10 past end", rw10(0x28, 0, BLOCKS - 1, 2)),
                Arguments.of("read10 zero blocks beyond end", rw10(0x28, 0, BLOCKS + 1, 0)),
                Arguments.of("read16 lba 2^63", rw16(0x88, 0, Long.MIN_VALUE, 1)),
                Arguments.of("read16 lba -1", rw16(0x88, 0, -1L, 1)),
                Arguments.of("write10 past end", rw10(0x2A, 0, BLOCKS, 1)),
                Arguments.of("read6 256 blocks past end", rw6(0x08, 100, 0)),
                Arguments.of("verify10 past end", rw10(0x2F, 0, BLOCKS, 1)),
                Arguments.of("sync cache past end", rw10(0x35, 0, BLOCKS, 2)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("outOfRange")
    void lbaOutOfRangeGivesIllegalRequest(String name, byte[] cdb) {
        assertSense(h.run(cdb, 1 << 20, new byte[BS]), 5, 0x21, 0);
        assertThat(h.events).doesNotContain("writePending " + BS);
    }

    /** A store that notes the address of every buffer it reads into. */
    private static final class AddressStore extends TestStore {
        final java.util.List<Long> addresses = new java.util.ArrayList<>();

        AddressStore() {
            super(BS, BLOCKS, true, false);
        }

        @Override
        public void read(long lba, int blocks, io.netty.buffer.ByteBuf dst) throws java.io.IOException {
            addresses.add(dst.memoryAddress() + dst.writerIndex());
            super.read(lba, blocks, dst);
        }
    }

    @Test
    void readBuffersComeFromTheLusIoAllocatorWhenItHasOne() throws Exception {
        try (org.jtarget.buffer.BufferPool pool = org.jtarget.buffer.BufferPool.create(1, 1 << 20, false)) {
            AddressStore arenaStore = new AddressStore();
            store.data[0] = 7;
            System.arraycopy(store.data, 0, arenaStore.data, 0, BS);
            CoreHarness arena = new CoreHarness(java.util.List.of(new org.jtarget.scsi.lun.LogicalUnitDefinition(
                    0, arenaStore, false, false, 0, pool.ioAllocator())));
            Result r = arena.run(rw10(0x28, 0, 0, 8), 8 * BS, null);
            assertThat(r.status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(r.dataIn()[0]).isEqualTo((byte) 7);
            long address = arenaStore.addresses.getFirst();
            assertThat(pool.pinnedArena().contains(address, 8 * BS)).as("READ read into the arena").isTrue();
            assertThat(address % 4096).isZero();
            assertThat(pool.arenaStats().inUseBytes()).as("the command released it").isZero();

            AddressStore plainStore = new AddressStore();
            CoreHarness plain = new CoreHarness(java.util.List.of(
                    new org.jtarget.scsi.lun.LogicalUnitDefinition(0, plainStore, false, false)));
            assertThat(plain.run(rw10(0x28, 0, 0, 8), 8 * BS, null).status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(pool.pinnedArena().contains(plainStore.addresses.getFirst(), 1))
                    .as("without an I/O allocator the command's allocator serves").isFalse();
        }
    }

    @Test
    void read6ZeroLengthMeans256Blocks() {
        Result r = h.run(rw6(0x08, 0, 0), 256 * BS, null);
        assertThat(r.dataIn()).hasSize(256 * BS);
        assertThat(store.calls).containsExactly("read 0 256");
    }

    @Test
    void read10ZeroLengthIsGoodWithoutData() {
        Result r = h.run(rw10(0x28, 0, BLOCKS, 0), 0, null);
        assertThat(r.status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(r.end()).isEqualTo("status");
        assertThat(store.calls).isEmpty();
    }

    @Test
    void rdprotectGivesInvalidFieldInCdb() {
        Result r = h.run(rw10(0x28, 0x20, 0, 1), BS, null);
        assertSense(r, 5, 0x24, 0);
        assertThat(r.sense()[17]).isEqualTo((byte) 1);
    }

    @Test
    void writeOnReadOnlyLuGivesWriteProtectedBeforeDataMoves() {
        CoreHarness ro = CoreHarness.of(new TestStore(BS, BLOCKS, true, false), true);
        assertSense(ro.run(rw10(0x2A, 0, 0, 1), BS, new byte[BS]), 7, 0x27, 0);
        assertThat(ro.events).containsExactly("status");
    }

    @Test
    void writeThenReadRoundTripsAndPassesFua() {
        Result w = h.run(rw16(0x8A, 0x08, 5, 2), 2 * BS, filled(2 * BS, 0x5A));
        assertThat(w.status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(h.events).startsWith("writePending " + 2 * BS);
        Result r = h.run(rw10(0x28, 0, 5, 2), 2 * BS, null);
        assertThat(r.dataIn()).isEqualTo(filled(2 * BS, 0x5A));
        assertThat(store.calls).containsExactly("write 5 2 fua", "read 5 2");
    }

    @Test
    void writeWithShortEdtlWritesTheBytesSentAndNoMore() {
        Result w = h.run(rw10(0x2A, 0, 0, 4), BS + 100, filled(4 * BS, 1));
        assertThat(w.status()).isEqualTo(ScsiStatus.GOOD); // more cases in BlockDataOutLengthTest
        assertThat(java.util.Arrays.copyOfRange(store.data, 0, BS + 100)).containsOnly(1);
        assertThat(java.util.Arrays.copyOfRange(store.data, BS + 100, 4 * BS)).containsOnly(0);
    }

    @Test
    void readReturnsFullCdbLengthEvenWhenEdtlIsSmaller() {
        assertThat(h.run(rw10(0x28, 0, 0, 4), BS, null).dataIn()).hasSize(4 * BS);
    }

    @Test
    void verifyWithByteCheckReportsMiscompareOffset() {
        store.data[3 * BS + 7] = 9;
        byte[] cdb = rw10(0x2F, 0x02, 2, 2);
        Result r = h.run(cdb, 2 * BS, new byte[2 * BS]);
        assertSense(r, 0xE, 0x1D, 0);
        assertThat(r.sense()[0] & 0x80).isEqualTo(0x80); // VALID
        assertThat(((r.sense()[5] & 0xFF) << 8) | (r.sense()[6] & 0xFF)).isEqualTo(BS + 7);
    }

    @Test
    void verifyWithoutByteCheckReadsMediumAndSucceeds() {
        assertThat(h.run(rw10(0x2F, 0, 0, 3), 0, null).status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(store.calls).containsExactly("read 0 3");
        assertThat(h.events).doesNotContain("writePending 0");
    }

    static Stream<Arguments> storeErrors() {
        return Stream.of(
                Arguments.of(StoreException.Kind.READ_ERROR, rw10(0x28, 0, 0, 1), 3, 0x11, 0),
                Arguments.of(StoreException.Kind.WRITE_ERROR, rw10(0x2A, 0, 0, 1), 3, 0x0C, 0),
                Arguments.of(StoreException.Kind.SPACE_EXHAUSTED, rw10(0x2A, 0, 0, 1), 3, 0x0C, 0),
                Arguments.of(StoreException.Kind.MEDIUM_GONE, rw10(0x28, 0, 0, 1), 2, 0x04, 0));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("storeErrors")
    void storeErrorKindMapsToSense(StoreException.Kind kind, byte[] cdb, int key, int asc, int ascq) {
        store.failNext = TestStore.error(kind);
        Result r = h.run(cdb, BS, new byte[BS]);
        assertSense(r, key, asc, ascq);
        assertThat(r.dataIn()).isNull();
    }

    @Test
    void spaceExhaustedOnThinStoreGivesSpaceAllocationFailed() {
        TestStore thin = new TestStore(BS, BLOCKS, true, true);
        CoreHarness t = CoreHarness.of(thin, false);
        thin.failNext = TestStore.error(StoreException.Kind.SPACE_EXHAUSTED);
        assertSense(t.run(rw10(0x2A, 0, 0, 1), BS, new byte[BS]), 7, 0x27, 7);
    }

    @Test
    void plainIoExceptionOnReadGivesUnrecoveredReadError() {
        store.failNext = new java.io.IOException("eio");
        assertSense(h.run(rw10(0x28, 0, 0, 1), BS, null), 3, 0x11, 0);
    }

    @Test
    void synchronizeCacheFlushesTheRange() {
        assertThat(h.run(rw10(0x35, 0x02, 4, 8), 0, null).status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(store.calls).containsExactly("flush 4 8");
    }

    @Test
    void writeCacheDisabledForcesFua() {
        // caching page with WCE=0 through MODE SELECT(6)
        byte[] list = new byte[4 + 20];
        list[4] = 0x08;
        list[5] = 0x12;
        assertThat(h.run(of(0x15, 0x10, 0, 0, list.length, 0), list.length, list).status()).isEqualTo(ScsiStatus.GOOD);
        h.run(rw10(0x2A, 0, 0, 1), BS, new byte[BS]);
        assertThat(store.calls).containsExactly("write 0 1 fua");
    }

    @Test
    void readCapacity10And16ReportLastLbaAndBlockSize() {
        Result r10 = h.run(of(0x25, 0, 0, 0, 0, 0, 0, 0, 0, 0));
        assertThat(r10.dataIn()).containsExactly(0, 0, 0x01, 0x2B, 0, 0, 0x02, 0);
        Result r16 = h.run(of(0x9E, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 12, 0, 0));
        assertThat(r16.dataIn()).hasSize(12);
        assertThat(r16.dataIn()[7]).isEqualTo((byte) 0x2B);
    }

    @Test
    void readCapacity10WithNonZeroLbaGivesInvalidField() {
        assertSense(h.run(of(0x25, 0, 0, 0, 0, 1, 0, 0, 0, 0)), 5, 0x24, 0);
    }

    @Test
    void writeAndVerifyWritesToTheMediumThenReadsItBack() {
        for (byte[] cdb : new byte[][]{rw10(0x2E, 0x10, 7, 2), rw16(0x8E, 0, 7, 2)}) {
            store.calls.clear();
            Result r = h.run(cdb, 2 * BS, filled(2 * BS, 0x33));
            assertThat(r.status()).isEqualTo(ScsiStatus.GOOD);
            assertThat(store.calls).containsExactly("write 7 2 fua", "read 7 2");
        }
        assertThat(store.data[8 * BS]).isEqualTo((byte) 0x33);
    }

    @Test
    void writeAndVerify12WithByteCheckComparesWhatWasWritten() {
        byte[] cdb = of(0xAE, 0x02, 0, 0, 0, 3, 0, 0, 0, 1, 0, 0);
        assertThat(h.run(cdb, BS, filled(BS, 0x44)).status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(store.calls).containsExactly("write 3 1 fua", "read 3 1");
    }

    @Test
    void writeAndVerifyReservedByteCheckGivesInvalidFieldInCdb() {
        Result r = h.run(rw10(0x2E, 0x04, 0, 1), BS, new byte[BS]);
        assertSense(r, 5, 0x24, 0);
        assertThat(h.events).doesNotContain("writePending " + BS);
    }

    @Test
    void writeAndVerifyWrprotectGivesInvalidFieldInCdb() {
        assertSense(h.run(rw10(0x2E, 0x20, 0, 1), BS, new byte[BS]), 5, 0x24, 0);
    }

    @Test
    void writeAndVerifyBeyondEndGivesLbaOutOfRange() {
        assertSense(h.run(rw16(0x8E, 0, BLOCKS, 1), BS, new byte[BS]), 5, 0x21, 0);
    }

    @Test
    void writeAndVerifyZeroBlocksIsGoodWithoutIo() {
        assertThat(h.run(rw10(0x2E, 0, 0, 0), 0, null).status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(store.calls).isEmpty();
    }

    @Test
    void writeAndVerifyOnReadOnlyLuGivesWriteProtected() {
        CoreHarness ro = CoreHarness.of(new TestStore(BS, BLOCKS, true, false), true);
        assertSense(ro.run(rw10(0x2E, 0, 0, 1), BS, new byte[BS]), 7, 0x27, 0);
    }
}
