package org.jtarget.scsi.sbc;

import org.jtarget.scsi.lun.CoreHarness;
import org.jtarget.scsi.lun.CoreHarness.Result;
import org.jtarget.scsi.lun.TestStore;
import org.jtarget.scsi.spi.ScsiCommand;
import org.jtarget.scsi.spi.ScsiStatus;
import org.jtarget.scsi.spi.TmfRequest;
import org.junit.jupiter.api.Test;

import java.io.IOException;

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
}
