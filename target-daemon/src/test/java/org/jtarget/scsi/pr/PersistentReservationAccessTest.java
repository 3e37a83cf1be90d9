package org.jtarget.scsi.pr;

import org.jtarget.scsi.lun.CoreHarness;
import org.jtarget.scsi.lun.TestStore;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.jtarget.scsi.lun.CoreHarness.NEXUS_A;
import static org.jtarget.scsi.lun.CoreHarness.NEXUS_B;
import static org.jtarget.scsi.pr.PrTestSupport.*;

/**
 * The conflict matrix per reservation type (SPC-4 table 72, SBC-4 4.17), as libiscsi's
 * test_prout_reserve_access.c checks it: the holder reads and writes; a registered and an
 * unregistered other nexus read / write as the type allows.
 */
class PersistentReservationAccessTest {

    private final CoreHarness h = CoreHarness.of(new TestStore(512, 64, true, false), false);
    private final PrTestSupport pr = new PrTestSupport(h);

    @BeforeEach
    void login() {
        h.core.nexusLoggedIn(NEXUS_A);
        h.core.nexusLoggedIn(NEXUS_B);
    }

    private static int expect(boolean allowed) {
        return allowed ? GOOD : RESERVATION_CONFLICT;
    }

    @ParameterizedTest(name = "type {0}")
    @CsvSource({
            // type, registered B reads, registered B writes, unregistered B reads, unregistered B writes
            "3, false, false, false, false", // EXCLUSIVE ACCESS
            "1, true, false, true, false",   // WRITE EXCLUSIVE
            "6, true, true, false, false",   // EXCLUSIVE ACCESS - REGISTRANTS ONLY
            "5, true, true, true, false",    // WRITE EXCLUSIVE - REGISTRANTS ONLY
            "8, true, true, false, false",   // EXCLUSIVE ACCESS - ALL REGISTRANTS
            "7, true, true, true, false"})   // WRITE EXCLUSIVE - ALL REGISTRANTS
    void accessMatchesTheType(int type, boolean regRead, boolean regWrite, boolean unregRead, boolean unregWrite) {
        assertThat(pr.register(NEXUS_A, 0xA).status()).isEqualTo(GOOD);
        assertThat(pr.register(NEXUS_B, 0xB).status()).isEqualTo(GOOD);
        assertThat(pr.reserve(NEXUS_A, 0xA, type).status()).isEqualTo(GOOD);
        assertThat(pr.read10(NEXUS_A).status()).isEqualTo(GOOD);
        assertThat(pr.write10(NEXUS_A).status()).isEqualTo(GOOD);
        assertThat(pr.read10(NEXUS_B).status()).isEqualTo(expect(regRead));
        assertThat(pr.write10(NEXUS_B).status()).isEqualTo(expect(regWrite));
        assertThat(pr.tur(NEXUS_B).status()).isEqualTo(GOOD); // TEST UNIT READY passes every type
        assertThat(pr.out(NEXUS_B, 0, 0, 0xB, 0, 0).status()).isEqualTo(GOOD); // unregister
        assertThat(pr.read10(NEXUS_B).status()).isEqualTo(expect(unregRead));
        assertThat(pr.write10(NEXUS_B).status()).isEqualTo(expect(unregWrite));
        assertThat(pr.in(NEXUS_B, 0).status()).isEqualTo(GOOD); // PERSISTENT RESERVE IN always
        assertThat(pr.out(NEXUS_A, 2, type, 0xA, 0, 0).status()).isEqualTo(GOOD);
        assertThat(pr.write10(NEXUS_B).status()).isEqualTo(GOOD);
    }

    @ParameterizedTest(name = "type {0}")
    @CsvSource({"1", "3"})
    void modeSenseAndSynchronizeCacheConflictForOthers(int type) {
        pr.register(NEXUS_A, 0xA);
        pr.reserve(NEXUS_A, 0xA, type);
        assertThat(h.run(NEXUS_B, new byte[] {0x1A, 0, 0x3F, 0, (byte) 0xFF, 0}, 255, null).status())
                .isEqualTo(RESERVATION_CONFLICT);
        assertThat(h.run(NEXUS_B, new byte[] {0x35, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 0, null).status())
                .isEqualTo(RESERVATION_CONFLICT);
        assertThat(h.run(NEXUS_B, new byte[] {0x25, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 8, null).status())
                .isEqualTo(GOOD); // READ CAPACITY is allowed
        assertThat(h.run(NEXUS_B, new byte[] {0x1B, 0, 0, 0, 0x01, 0}, 0, null).status())
                .isEqualTo(GOOD); // START STOP UNIT START=1
        assertThat(h.run(NEXUS_B, new byte[] {0x1B, 0, 0, 0, 0x00, 0}, 0, null).status())
                .isEqualTo(RESERVATION_CONFLICT);
    }
}
