package org.jtarget.scsi.pr;

import org.jtarget.scsi.lun.CoreHarness;
import org.jtarget.scsi.lun.CoreHarness.Result;
import org.jtarget.scsi.lun.TestStore;
import org.jtarget.scsi.spi.TmfRequest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.jtarget.scsi.lun.CoreHarness.NEXUS_A;
import static org.jtarget.scsi.lun.CoreHarness.NEXUS_B;
import static org.jtarget.scsi.pr.PrTestSupport.*;

class SpcReserveReleaseTest {

    private static final byte[] RESERVE_6 = {0x16, 0, 0, 0, 0, 0};
    private static final byte[] RELEASE_6 = {0x17, 0, 0, 0, 0, 0};
    private static final byte[] RESERVE_10 = {0x56, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    private static final byte[] RELEASE_10 = {0x57, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    private static final byte[] MODE_SENSE_6 = {0x1A, 0, 0x3F, 0, (byte) 0xFF, 0};
    private static final byte[] INQUIRY = {0x12, 0, 0, 0, (byte) 0xFF, 0};

    private final CoreHarness h = CoreHarness.of(new TestStore(512, 64, true, false), false);
    private final PrTestSupport pr = new PrTestSupport(h);

    @BeforeEach
    void login() {
        h.core.nexusLoggedIn(NEXUS_A);
        h.core.nexusLoggedIn(NEXUS_B);
    }

    private Result run(org.jtarget.scsi.spi.ITNexus n, byte[] cdb) {
        return h.run(n, cdb, 255, null);
    }

    @Test
    void secondInitiatorConflictsUntilRelease() {
        assertThat(run(NEXUS_A, RESERVE_6).status()).isEqualTo(GOOD);
        assertThat(run(NEXUS_A, RESERVE_6).status()).isEqualTo(GOOD); // re-reserve by the holder
        assertThat(run(NEXUS_B, RESERVE_6).status()).isEqualTo(RESERVATION_CONFLICT);
        assertThat(run(NEXUS_B, RELEASE_6).status()).isEqualTo(GOOD); // no-op from a non-holder
        assertThat(run(NEXUS_A, MODE_SENSE_6).status()).isEqualTo(GOOD);
        assertThat(run(NEXUS_B, MODE_SENSE_6).status()).isEqualTo(RESERVATION_CONFLICT);
        assertThat(pr.tur(NEXUS_B).status()).isEqualTo(RESERVATION_CONFLICT);
        assertThat(pr.read10(NEXUS_B).status()).isEqualTo(RESERVATION_CONFLICT);
        assertThat(run(NEXUS_B, INQUIRY).status()).isEqualTo(GOOD);
        assertThat(pr.in(NEXUS_B, 0).status()).isEqualTo(GOOD);
        assertThat(run(NEXUS_A, RELEASE_6).status()).isEqualTo(GOOD);
        assertThat(run(NEXUS_B, RESERVE_10).status()).isEqualTo(GOOD);
        assertThat(pr.read10(NEXUS_A).status()).isEqualTo(RESERVATION_CONFLICT);
        assertThat(run(NEXUS_B, RELEASE_10).status()).isEqualTo(GOOD);
        assertThat(pr.read10(NEXUS_A).status()).isEqualTo(GOOD);
    }

    @Test
    void conflictHasNoSense() {
        run(NEXUS_A, RESERVE_6);
        Result r = pr.write10(NEXUS_B);
        assertThat(r.status()).isEqualTo(RESERVATION_CONFLICT);
        assertThat(r.sense()).isEmpty();
        assertThat(h.events).doesNotContain("writePending 512"); // refused before any data moves
    }

    @Test
    void nexusLossReleases() {
        run(NEXUS_A, RESERVE_6);
        h.core.nexusLoggedOut(NEXUS_A);
        assertThat(run(NEXUS_B, RESERVE_6).status()).isEqualTo(GOOD);
    }

    @Test
    void logicalUnitResetReleases() {
        run(NEXUS_A, RESERVE_10);
        h.tmf(TmfRequest.Function.LOGICAL_UNIT_RESET, NEXUS_B, 0, 0);
        run(NEXUS_B, INQUIRY);
        pr.tur(NEXUS_B); // the reset's unit attention
        assertThat(run(NEXUS_B, RESERVE_6).status()).isEqualTo(GOOD);
    }

    @Test
    void targetResetReleases() {
        run(NEXUS_A, RESERVE_6);
        h.tmf(TmfRequest.Function.TARGET_WARM_RESET, NEXUS_B, 0, 0);
        pr.tur(NEXUS_B);
        assertThat(run(NEXUS_B, RESERVE_6).status()).isEqualTo(GOOD);
    }

    @Test
    void thirdPartyAndExtentFieldsAreInvalid() {
        Result r = run(NEXUS_A, new byte[] {0x16, 0x01, 0, 0, 0, 0});
        assertThat(r.status()).isEqualTo(CHECK_CONDITION);
        assertThat(new int[] {r.senseKey(), r.asc()}).containsExactly(5, 0x24);
        r = run(NEXUS_A, new byte[] {0x56, 0x10, 0, 7, 0, 0, 0, 0, 0, 0});
        assertThat(new int[] {r.senseKey(), r.asc()}).containsExactly(5, 0x24);
        r = run(NEXUS_A, new byte[] {0x57, 0x02, 0, 0, 0, 0, 0, 0, 0, 0});
        assertThat(new int[] {r.senseKey(), r.asc()}).containsExactly(5, 0x24);
    }

    @Test
    void reserveConflictsWithPersistentRegistrations() {
        pr.register(NEXUS_B, 0x1234);
        assertThat(run(NEXUS_A, RESERVE_6).status()).isEqualTo(RESERVATION_CONFLICT);
        assertThat(run(NEXUS_B, RELEASE_6).status()).isEqualTo(RESERVATION_CONFLICT);
    }

    @Test
    void persistentReserveOutConflictsWithAnotherNexussReservation() {
        run(NEXUS_A, RESERVE_6);
        assertThat(pr.register(NEXUS_B, 0x55).status()).isEqualTo(RESERVATION_CONFLICT);
    }
}
