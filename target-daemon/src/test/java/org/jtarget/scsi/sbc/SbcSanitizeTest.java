package org.jtarget.scsi.sbc;

import org.jtarget.scsi.lun.CoreHarness;
import org.jtarget.scsi.lun.CoreHarness.Result;
import org.jtarget.scsi.lun.TestStore;
import org.jtarget.scsi.lun.WorkProgress;
import org.jtarget.scsi.spi.ScsiCommand;
import org.jtarget.scsi.spi.ScsiStatus;
import org.jtarget.scsi.spi.TmfRequest;
import org.junit.jupiter.api.Test;
import io.netty.buffer.ByteBuf;

import io.netty.buffer.PooledByteBufAllocator;
import org.jtarget.backstore.crypt.EncryptingBackstore;
import org.jtarget.backstore.crypt.XtsKey;
import org.jtarget.scsi.lun.LogicalUnitDefinition;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.jtarget.scsi.lun.CoreHarness.NEXUS_A;
import static org.jtarget.scsi.lun.CoreHarness.NEXUS_B;
import static org.jtarget.scsi.lun.Cdbs.of;
import static org.jtarget.scsi.lun.Cdbs.rw10;

/** SANITIZE (SBC-4 5.30). */
class SbcSanitizeTest {

    private static final byte[] TUR = of(0x00, 0, 0, 0, 0, 0);

    static byte[] sanitize(int byte1, int paramLength) {
        return of(0x48, byte1, 0, 0, 0, 0, 0, paramLength >>> 8, paramLength, 0);
    }

    static byte[] overwriteList(int b0, int patternLength, int value) {
        byte[] p = new byte[4 + patternLength];
        p[0] = (byte) b0;
        p[2] = (byte) (patternLength >>> 8);
        p[3] = (byte) patternLength;
        for (int i = 4; i < p.length; i++) {
            p[i] = (byte) value;
        }
        return p;
    }

    private static void assertSense(Result r, int key, int asc, int ascq) {
        assertThat(r.status()).isEqualTo(ScsiStatus.CHECK_CONDITION);
        assertThat(new int[] {r.senseKey(), r.asc(), r.ascq()}).containsExactly(key, asc, ascq);
    }

    @Test
    void overwriteWritesThePatternEverywhere() {
        TestStore store = new TestStore(512, 4096, false, false);
        CoreHarness h = CoreHarness.of(store, false);
        Result r = h.run(sanitize(0x01, 8), 8, overwriteList(0x01, 4, 0xAA));
        assertThat(r.status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(store.data).containsOnly((byte) 0xAA);
    }

    @Test
    void overwriteWithInvertEndsWithThePatternAsGiven() {
        TestStore store = new TestStore(512, 64, false, false);
        CoreHarness h = CoreHarness.of(store, false);
        assertThat(h.run(sanitize(0x01, 5), 5, overwriteList(0x80 | 2, 1, 0x0F)).status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(store.data).containsOnly((byte) 0x0F);
    }

    @Test
    void overwriteParameterListLengthOutsideFiveToBlockSizePlusFourIsInvalidFieldInCdb() {
        CoreHarness h = CoreHarness.of(new TestStore(512, 64, false, false), false);
        assertSense(h.run(sanitize(0x01, 4), 4, new byte[4]), 0x05, 0x24, 0x00);
        assertSense(h.run(sanitize(0x01, 517), 517, new byte[517]), 0x05, 0x24, 0x00);
        assertThat(h.events).noneMatch(e -> e.startsWith("writePending"));
    }

    @Test
    void overwriteCountZeroIsInvalidFieldInParameterList() {
        CoreHarness h = CoreHarness.of(new TestStore(512, 64, false, false), false);
        assertSense(h.run(sanitize(0x01, 8), 8, overwriteList(0x00, 4, 1)), 0x05, 0x26, 0x00);
    }

    @Test
    void patternLongerThanBlockIsInvalidFieldInParameterList() {
        CoreHarness h = CoreHarness.of(new TestStore(512, 64, false, false), false);
        byte[] list = overwriteList(0x01, 512, 1);
        list[2] = 0x02;
        list[3] = 0x04; // 516 > block size
        assertSense(h.run(sanitize(0x01, 516), 516, list), 0x05, 0x26, 0x00);
    }

    @Test
    void blockEraseDeallocatesOnThinLu() {
        TestStore store = new TestStore(512, 64, false, true);
        java.util.Arrays.fill(store.data, (byte) 'a');
        CoreHarness h = CoreHarness.of(store, false);
        assertThat(h.run(sanitize(0x02, 0), 0, null).status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(store.data).containsOnly((byte) 0);
        assertThat(store.calls).anyMatch(c -> c.startsWith("unmap"));
    }

    @Test
    void blockEraseOnFullyProvisionedLuIsNotOffered() {
        CoreHarness h = CoreHarness.of(new TestStore(512, 64, false, false), false);
        assertSense(h.run(sanitize(0x02, 0), 0, null), 0x05, 0x24, 0x00);
    }

    @Test
    void cryptographicEraseAndUnknownServiceActionsAreInvalidFieldInCdb() {
        CoreHarness h = CoreHarness.of(new TestStore(512, 64, false, true), false);
        assertSense(h.run(sanitize(0x03, 0), 0, null), 0x05, 0x24, 0x00);
        assertSense(h.run(sanitize(0x00, 0), 0, null), 0x05, 0x24, 0x00);
    }

    @Test
    void reservedBitsAndNonZeroListForEraseAreInvalidFieldInCdb() {
        CoreHarness h = CoreHarness.of(new TestStore(512, 64, false, true), false);
        assertSense(h.run(sanitize(0x42, 0), 0, null), 0x05, 0x24, 0x00);
        byte[] cdb = sanitize(0x02, 0);
        cdb[4] = 1;
        assertSense(h.run(cdb, 0, null), 0x05, 0x24, 0x00);
        assertSense(h.run(sanitize(0x02, 8), 8, new byte[8]), 0x05, 0x24, 0x00);
        assertSense(h.run(sanitize(0x1F, 8), 8, new byte[8]), 0x05, 0x24, 0x00);
    }

    @Test
    void readOnlyIsWriteProtected() {
        CoreHarness h = CoreHarness.of(new TestStore(512, 64, false, false), true);
        assertSense(h.run(sanitize(0x01, 8), 8, overwriteList(1, 4, 1)), 0x07, 0x27, 0x00);
    }

    @Test
    void reservationHeldByOtherNexusConflicts() {
        CoreHarness h = CoreHarness.of(new TestStore(512, 64, false, false), false);
        h.run(NEXUS_B, of(0x16, 0, 0, 0, 0, 0), 0, null);
        assertThat(h.run(sanitize(0x01, 8), 8, overwriteList(1, 4, 1)).status())
                .isEqualTo(ScsiStatus.RESERVATION_CONFLICT);
    }

    @Test
    void immediateSanitizeBlocksMediumAccessAndReportsProgressUntilDone() {
        TestStore store = new TestStore(512, 64, false, false);
        CoreHarness h = CoreHarness.of(store, false);
        ScsiCommand cmd = h.submit(NEXUS_A, 0, 1, sanitize(0x81, 8), 8, overwriteList(1, 4, 0x5A));
        h.io.poll().run(); // the command's execute: starts the background job and answers
        assertThat(h.results.get(cmd).status()).isEqualTo(ScsiStatus.GOOD);
        // submitted without running the queued I/O: the sanitize job is still pending
        assertSense(h.results.get(h.submit(NEXUS_A, 0, 2, TUR, 0, null)), 0x02, 0x04, 0x1B);
        assertSense(h.results.get(h.submit(NEXUS_B, 0, 3, rw10(0x28, 0, 0, 1), 512, null)), 0x02, 0x04, 0x1B);
        byte[] sense = h.results.get(h.submit(NEXUS_A, 0, 4, of(0x03, 0, 0, 0, 252, 0), 252, null)).dataIn();
        assertThat(new int[] {sense[2] & 0xF, sense[12], sense[13], sense[15] & 0x80})
                .containsExactly(0x02, 0x04, 0x1B, 0x80);
        assertThat(h.results.get(h.submit(NEXUS_A, 0, 5, of(0x12, 0, 0, 0, 96, 0), 96, null)).status())
                .isEqualTo(ScsiStatus.GOOD);
        h.runIo(); // the job
        assertThat(h.run(TUR).status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(store.data).containsOnly((byte) 0x5A);
    }

    @Test
    void abortingAWaitingSanitizeEndsTheCommandButNotTheOperation() {
        TestStore store = new TestStore(512, 4096, false, false); // two 1 MiB chunks
        CoreHarness h = CoreHarness.of(store, false);
        ScsiCommand cmd = h.submit(NEXUS_A, 0, 7, sanitize(0x01, 8), 8, overwriteList(1, 4, 0x3C)); // IMMED = 0
        h.io.poll().run(); // execute: the operation is queued, the command waits for it
        assertThat(h.results.get(cmd)).isNull();
        h.tmf(TmfRequest.Function.ABORT_TASK, NEXUS_A, 0, 7);
        assertThat(h.tmfResponses).isEmpty(); // SAM-5: the TMF answers once the task has ended
        h.runIo(); // the operation: the command ends (aborted) at its first chunk, the rest goes on
        assertThat(h.results.get(cmd).end()).isEqualTo("aborted");
        assertThat(h.tmfResponses).hasSize(1);
        assertThat(store.data).containsOnly((byte) 0x3C);
        h.run(TUR); // the LUN's unit attentions, if any
        assertThat(h.run(TUR).status()).isEqualTo(ScsiStatus.GOOD);
    }

    @Test
    void failedSanitizeEntersFailureModeAndExitFailureModeLeavesIt() {
        TestStore store = new TestStore(512, 64, false, false);
        CoreHarness h = CoreHarness.of(store, false);
        store.failNext = new IOException("boom");
        assertSense(h.run(sanitize(0x21, 8), 8, overwriteList(1, 4, 1)), 0x03, 0x31, 0x03); // AUSE = 1
        assertSense(h.run(rw10(0x28, 0, 0, 1), 512, null), 0x03, 0x31, 0x03);
        assertThat(h.run(sanitize(0x1F, 0), 0, null).status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(h.run(rw10(0x28, 0, 0, 1), 512, null).status()).isEqualTo(ScsiStatus.GOOD);
    }

    @Test
    void restrictedFailureModeRefusesExitFailureMode() {
        TestStore store = new TestStore(512, 64, false, false);
        CoreHarness h = CoreHarness.of(store, false);
        store.failNext = new IOException("boom");
        h.run(sanitize(0x01, 8), 8, overwriteList(1, 4, 1)); // AUSE = 0
        assertSense(h.run(sanitize(0x1F, 0), 0, null), 0x05, 0x24, 0x00);
        assertSense(h.run(sanitize(0x21, 8), 8, overwriteList(1, 4, 1)), 0x05, 0x24, 0x00);
        assertThat(h.run(sanitize(0x01, 8), 8, overwriteList(1, 4, 1)).status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(h.run(TUR).status()).isEqualTo(ScsiStatus.GOOD);
    }

    // ---- CRYPTOGRAPHIC ERASE (SBC-4 5.30.3), as libiscsi's Sanitize.CryptoErase checks it ----

    @TempDir
    Path keys;

    private static final int BLOCKS = 1024;

    private EncryptingBackstore encrypting(TestStore inner) {
        return new EncryptingBackstore(inner, keys.resolve("keys/enc.key"), XtsKey.generate(new SecureRandom()),
                PooledByteBufAllocator.DEFAULT, new SecureRandom());
    }

    private static CoreHarness harness(EncryptingBackstore store) {
        return new CoreHarness(List.of(new LogicalUnitDefinition(0, store, false, false)));
    }

    /** libiscsi init_lun_with_data: 'a' in the first and the last 256 blocks. */
    private static void writeA(CoreHarness h) {
        for (long lba : new long[] {0, BLOCKS - 256}) {
            byte[] a = new byte[256 * 512];
            Arrays.fill(a, (byte) 'a');
            assertThat(h.run(rw10(0x2A, 0, lba, 256), a.length, a).status()).isEqualTo(ScsiStatus.GOOD);
        }
    }

    /** libiscsi check_lun_is_wiped: the blocks read with GOOD status and are no longer 'a'. */
    private static byte[] readWiped(CoreHarness h, long lba) {
        Result r = h.run(rw10(0x28, 0, lba, 256), 256 * 512, null);
        assertThat(r.status()).isEqualTo(ScsiStatus.GOOD);
        byte[] a = new byte[256 * 512];
        Arrays.fill(a, (byte) 'a');
        assertThat(r.dataIn()).hasSize(a.length).isNotEqualTo(a);
        return r.dataIn();
    }

    @Test
    void cryptographicEraseOnEncryptedThinLuReplacesTheKeyAndReadsReturnZeros() throws IOException {
        TestStore inner = new TestStore(512, BLOCKS, false, true);
        CoreHarness h = harness(encrypting(inner));
        writeA(h);
        byte[] a = new byte[512];
        Arrays.fill(a, (byte) 'a');
        assertThat(Arrays.copyOf(inner.data, 512)).isNotEqualTo(a); // ciphertext in the store
        assertThat(h.run(sanitize(0x03, 0), 0, null).status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(readWiped(h, 0)).containsOnly((byte) 0);
        assertThat(readWiped(h, BLOCKS - 256)).containsOnly((byte) 0);
        assertThat(inner.calls).anyMatch(c -> c.startsWith("unmap"));
        assertThat(Files.size(keys.resolve("keys/enc.key"))).isEqualTo(64);
    }

    @Test
    void cryptographicEraseOnEncryptedFullyProvisionedLuLeavesNoiseThatReadsWithGoodStatus() {
        TestStore inner = new TestStore(512, BLOCKS, false, false);
        CoreHarness h = harness(encrypting(inner));
        writeA(h);
        byte[] cipherText = inner.data.clone();
        assertThat(h.run(sanitize(0x80 | 0x03, 0), 0, null).status()).isEqualTo(ScsiStatus.GOOD); // IMMED
        h.runIo();
        assertThat(inner.data).isEqualTo(cipherText);
        assertThat(readWiped(h, 0)).isNotEqualTo(new byte[256 * 512]);
        readWiped(h, BLOCKS - 256);
        assertThat(inner.calls).noneMatch(c -> c.startsWith("unmap"));
    }

    @Test
    void cryptographicEraseWithAParameterListIsInvalidFieldInCdb() {
        CoreHarness h = harness(encrypting(new TestStore(512, BLOCKS, false, true)));
        assertSense(h.run(sanitize(0x03, 8), 8, new byte[8]), 0x05, 0x24, 0x00);
    }

    @Test
    void cryptographicEraseIsReportedAndWacereqIsOneOnlyWhereTheStoreEncrypts() {
        CoreHarness enc = harness(encrypting(new TestStore(512, BLOCKS, false, false)));
        CoreHarness plain = CoreHarness.of(new TestStore(512, BLOCKS, false, false), false);
        // REPORT SUPPORTED OPERATION CODES, options 010b (opcode and service action): SUPPORT 011b or 001b
        byte[] rsoc = of(0xA3, 0x0C, 2, 0x48, 0, 0x03, 0, 0, 0xFF, 0xFF, 0, 0);
        assertThat(enc.run(rsoc).dataIn()[1] & 0x07).isEqualTo(3);
        assertThat(plain.run(rsoc).dataIn()[1] & 0x07).isEqualTo(1);
        // Block Device Characteristics VPD byte 7: WACEREQ (bits 5..4) 01b
        byte[] b1 = of(0x12, 0x01, 0xB1, 0, 0xFF, 0);
        assertThat(enc.run(b1).dataIn()[7] & 0x30).isEqualTo(0x10);
        assertThat(plain.run(b1).dataIn()[7] & 0x30).isZero();
    }

    @Test
    void aRunningOverwriteShowsItsProgressAsWorkOfItsLuUntilItEnds() {
        List<WorkProgress.Snapshot> seen = new ArrayList<>();
        CoreHarness[] h = new CoreHarness[1];
        TestStore store = new TestStore(512, 4096, false, false) { // 2 MiB: two 1 MiB chunks a pass
            @Override
            public void write(long lba, ByteBuf src, boolean fua) throws IOException {
                super.write(lba, src, fua);
                h[0].core.logicalUnit(0).work().forEach(w -> seen.add(w.snapshot(System.nanoTime())));
            }
        };
        h[0] = CoreHarness.of(store, false);
        assertThat(h[0].run(sanitize(0x01, 8), 8, overwriteList(2, 4, 0xAA)).status()).isEqualTo(ScsiStatus.GOOD);
        // each reading is taken as a chunk's write returns, before the job counts it
        assertThat(seen).extracting(WorkProgress.Snapshot::kind).containsOnly("sanitize-overwrite");
        assertThat(seen).extracting(WorkProgress.Snapshot::totalBytes).containsOnly(4L << 20); // two passes
        assertThat(seen).extracting(WorkProgress.Snapshot::doneBytes).containsExactly(0L, 1L << 20, 2L << 20, 3L << 20);
        assertThat(seen).extracting(WorkProgress.Snapshot::percent).containsExactly(0.0, 25.0, 50.0, 75.0);
        assertThat(h[0].core.logicalUnit(0).work()).as("ended: no longer listed").isEmpty();
    }

    @Test
    void blockEraseCountsTheBytesItDeallocates() {
        List<WorkProgress.Snapshot> seen = new ArrayList<>();
        CoreHarness[] h = new CoreHarness[1];
        TestStore store = new TestStore(512, 64, false, true) {
            @Override
            public void unmap(long lba, long blocks) throws IOException {
                super.unmap(lba, blocks);
                h[0].core.logicalUnit(0).work().forEach(w -> seen.add(w.snapshot(System.nanoTime())));
            }
        };
        h[0] = CoreHarness.of(store, false);
        assertThat(h[0].run(sanitize(0x02, 0), 0, null).status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(seen).singleElement().satisfies(w -> {
            assertThat(w.kind()).isEqualTo("sanitize-block-erase");
            assertThat(w.totalBytes()).isEqualTo(64 * 512);
        });
        assertThat(h[0].core.logicalUnit(0).work()).isEmpty();
    }
}
