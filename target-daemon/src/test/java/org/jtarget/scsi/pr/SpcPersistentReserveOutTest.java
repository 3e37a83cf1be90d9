package org.jtarget.scsi.pr;

import org.jtarget.scsi.lun.CoreHarness;
import org.jtarget.scsi.lun.CoreHarness.Result;
import org.jtarget.scsi.lun.TestStore;
import org.jtarget.scsi.spi.ITNexus;
import org.jtarget.scsi.spi.ProtocolId;
import org.jtarget.scsi.spi.ScsiCommand;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.ByteBuffer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.jtarget.scsi.lun.CoreHarness.NEXUS_A;
import static org.jtarget.scsi.lun.CoreHarness.NEXUS_B;
import static org.jtarget.scsi.pr.PrTestSupport.*;

class SpcPersistentReserveOutTest {

    private static final ITNexus NEXUS_C = new ITNexus(ProtocolId.ISCSI, "iqn.c", "iqn.c,i,0x3", "iqn.t,t,0x1", 1, 1);
    private static final int WE = 1;
    private static final int EA = 3;
    private static final int WE_RO = 5;
    private static final int EA_AR = 8;

    private final TestStore store = new TestStore(512, 64, false, false); // blocking: reads queue as I/O
    private final CoreHarness h = CoreHarness.of(store, false);
    private final PrTestSupport pr = new PrTestSupport(h);

    @BeforeEach
    void login() {
        h.core.nexusLoggedIn(NEXUS_A);
        h.core.nexusLoggedIn(NEXUS_B);
        h.core.nexusLoggedIn(NEXUS_C);
    }

    private static void assertSense(Result r, int key, int asc, int ascq) {
        assertThat(r.status()).isEqualTo(CHECK_CONDITION);
        assertThat(new int[] {r.senseKey(), r.asc(), r.ascq()}).containsExactly(key, asc, ascq);
    }

    private long[] keys() {
        byte[] d = pr.in(NEXUS_C, 0).dataIn(); // C is never registered: no unit attention
        long[] k = new long[u32(d, 4) / 8];
        for (int i = 0; i < k.length; i++) {
            k[i] = u64(d, 8 + 8 * i);
        }
        return k;
    }

    private int generation() {
        return u32(pr.in(NEXUS_C, 0).dataIn(), 0);
    }

    @Test
    void registerShowsInReadKeysAndBumpsGeneration() {
        assertThat(pr.out(NEXUS_A, 0, 0, 0, 0xABCD, 0).status()).isEqualTo(GOOD);
        assertThat(keys()).containsExactly(0xABCD);
        assertThat(generation()).isEqualTo(1);
    }

    @Test
    void reregisterWithWrongKeyConflicts() {
        pr.out(NEXUS_A, 0, 0, 0, 0x10, 0);
        assertThat(pr.out(NEXUS_A, 0, 0, 0x11, 0x12, 0).status()).isEqualTo(RESERVATION_CONFLICT);
        assertThat(pr.out(NEXUS_A, 0, 0, 0x10, 0x12, 0).status()).isEqualTo(GOOD);
        assertThat(keys()).containsExactly(0x12);
        assertThat(pr.out(NEXUS_A, 0, 0, 0x12, 0, 0).status()).isEqualTo(GOOD); // unregister
        assertThat(keys()).isEmpty();
    }

    @Test
    void unregisteredNexusWithNonZeroKeyConflicts() {
        assertThat(pr.out(NEXUS_A, 0, 0, 0x99, 0x10, 0).status()).isEqualTo(RESERVATION_CONFLICT);
        assertThat(pr.out(NEXUS_A, 6, 0, 0x99, 0x10, 0).status()).isEqualTo(GOOD); // ignore existing key
    }

    @Test
    void unregisteredReserveConflicts() {
        assertThat(pr.reserve(NEXUS_A, 0, WE).status()).isEqualTo(RESERVATION_CONFLICT);
    }

    @Test
    void reserveWithWrongKeyConflicts() {
        pr.register(NEXUS_A, 1);
        assertThat(pr.reserve(NEXUS_A, 2, WE).status()).isEqualTo(RESERVATION_CONFLICT);
    }

    @Test
    void typeChangeByHolderConflictsSameTypeIsGood() {
        pr.register(NEXUS_A, 1);
        assertThat(pr.reserve(NEXUS_A, 1, WE).status()).isEqualTo(GOOD);
        assertThat(pr.reserve(NEXUS_A, 1, WE).status()).isEqualTo(GOOD);
        assertThat(pr.reserve(NEXUS_A, 1, EA).status()).isEqualTo(RESERVATION_CONFLICT);
        pr.register(NEXUS_B, 2);
        assertThat(pr.reserve(NEXUS_B, 2, WE).status()).isEqualTo(RESERVATION_CONFLICT);
    }

    @Test
    void releaseWithOtherTypeIsInvalidRelease() {
        pr.register(NEXUS_A, 1);
        pr.reserve(NEXUS_A, 1, WE);
        assertSense(pr.out(NEXUS_A, 2, EA, 1, 0, 0), 5, 0x26, 0x04);
        assertThat(pr.out(NEXUS_A, 2, WE, 1, 0, 0).status()).isEqualTo(GOOD);
        assertThat(u32(pr.in(NEXUS_A, 1).dataIn(), 4)).isZero();
    }

    @Test
    void releaseOfRegistrantsOnlyTellsOtherRegistrants() {
        pr.register(NEXUS_A, 1);
        pr.register(NEXUS_B, 2);
        pr.reserve(NEXUS_A, 1, WE_RO);
        pr.out(NEXUS_A, 2, WE_RO, 1, 0, 0);
        assertSense(pr.tur(NEXUS_B), 6, 0x2A, 0x04);
        assertThat(pr.tur(NEXUS_C).status()).isEqualTo(GOOD); // not registered
        assertThat(pr.tur(NEXUS_A).status()).isEqualTo(GOOD);
    }

    @Test
    void nonHolderReleaseIsGoodAndKeepsReservation() {
        pr.register(NEXUS_A, 1);
        pr.register(NEXUS_B, 2);
        pr.reserve(NEXUS_A, 1, EA);
        assertThat(pr.out(NEXUS_B, 2, EA, 2, 0, 0).status()).isEqualTo(GOOD);
        assertThat(u32(pr.in(NEXUS_A, 1).dataIn(), 4)).isEqualTo(16);
    }

    @Test
    void clearRemovesEverythingAndRaisesReservationsPreempted() {
        pr.register(NEXUS_A, 1);
        pr.register(NEXUS_B, 2);
        pr.reserve(NEXUS_A, 1, EA);
        int gen = generation();
        assertThat(pr.out(NEXUS_B, 3, 0, 2, 0, 0).status()).isEqualTo(GOOD);
        assertThat(keys()).isEmpty();
        assertThat(generation()).isEqualTo(gen + 1);
        assertSense(pr.tur(NEXUS_A), 6, 0x2A, 0x03);
        assertThat(pr.tur(NEXUS_B).status()).isEqualTo(GOOD);
    }

    @Test
    void preemptRemovesRegistrationLikeLibiscsi() {
        pr.register(NEXUS_A, 1);
        pr.register(NEXUS_B, 2);
        int gen = generation();
        assertThat(pr.out(NEXUS_B, 4, EA, 2, 1, 0).status()).isEqualTo(GOOD);
        assertThat(keys()).containsExactly(2);
        assertThat(generation()).isEqualTo(gen + 1);
        assertSense(pr.tur(NEXUS_A), 6, 0x2A, 0x05);
    }

    @Test
    void preemptOfHolderTakesTheReservation() {
        pr.register(NEXUS_A, 1);
        pr.register(NEXUS_B, 2);
        pr.reserve(NEXUS_A, 1, WE);
        assertThat(pr.out(NEXUS_B, 4, EA, 2, 1, 0).status()).isEqualTo(GOOD);
        byte[] res = pr.in(NEXUS_B, 1).dataIn();
        assertThat(u64(res, 8)).isEqualTo(2);
        assertThat(res[21]).isEqualTo((byte) EA);
        assertSense(pr.tur(NEXUS_A), 6, 0x2A, 0x05);
        assertThat(pr.read10(NEXUS_A).status()).isEqualTo(RESERVATION_CONFLICT);
    }

    @Test
    void preemptWithUnknownKeyConflictsAndZeroKeyIsInvalid() {
        pr.register(NEXUS_A, 1);
        assertThat(pr.out(NEXUS_A, 4, EA, 1, 77, 0).status()).isEqualTo(RESERVATION_CONFLICT);
        assertSense(pr.out(NEXUS_A, 4, EA, 1, 0, 0), 5, 0x26, 0x00);
    }

    @Test
    void preemptAllRegistrantsWithZeroKeyRemovesOthers() {
        pr.register(NEXUS_A, 1);
        pr.register(NEXUS_B, 2);
        pr.reserve(NEXUS_A, 1, EA_AR);
        assertThat(pr.out(NEXUS_B, 4, WE, 2, 0, 0).status()).isEqualTo(GOOD);
        assertThat(keys()).containsExactly(2);
        assertThat(pr.in(NEXUS_B, 1).dataIn()[21]).isEqualTo((byte) WE);
    }

    @Test
    void preemptAndAbortAbortsThePreemptedNexussTasks() {
        pr.register(NEXUS_A, 1);
        pr.register(NEXUS_B, 2);
        pr.reserve(NEXUS_A, 1, WE);
        h.holdDataOut = true;
        ScsiCommand pending = h.submit(NEXUS_A, 0, 7, new byte[] {0x2A, 0, 0, 0, 0, 0, 0, 0, 1, 0}, 512,
                new byte[512]);
        ScsiCommand preempt = h.submit(NEXUS_B, 0, 8, prOutCdb(5, EA, 24), 24, params(2, 1, 0));
        h.deliver(preempt);
        h.runIo();
        h.holdDataOut = false;
        assertThat(h.results.get(preempt).status()).isEqualTo(GOOD);
        assertThat(h.results.get(pending).end()).isEqualTo("aborted");
        assertSense(pr.tur(NEXUS_A), 6, 0x2A, 0x05);
    }

    @Test
    void registerAndMoveHandsTheReservationOver() {
        pr.register(NEXUS_A, 1);
        pr.reserve(NEXUS_A, 1, WE);
        byte[] id = NEXUS_B.initiatorTransportId();
        ByteBuffer b = ByteBuffer.allocate(24 + id.length).putLong(1).putLong(9);
        b.put(16, (byte) 0).put(17, (byte) 0x02).putShort(18, (short) 1).putInt(20, id.length).put(24, id);
        assertThat(pr.out(NEXUS_A, 7, WE, b.array()).status()).isEqualTo(GOOD);
        assertThat(keys()).containsExactly(9); // UNREG removed the source
        assertThat(u64(pr.in(NEXUS_B, 1).dataIn(), 8)).isEqualTo(9);
        assertThat(pr.write10(NEXUS_B).status()).isEqualTo(GOOD);
        assertThat(pr.write10(NEXUS_A).status()).isEqualTo(RESERVATION_CONFLICT);
    }

    @Test
    void specIPtRegistersTheListedInitiatorPorts() {
        byte[] id = NEXUS_B.initiatorTransportId();
        ByteBuffer b = ByteBuffer.allocate(28 + id.length).putLong(0).putLong(5);
        b.put(20, (byte) 0x08).putInt(24, id.length).put(28, id);
        assertThat(pr.out(NEXUS_A, 0, 0, b.array()).status()).isEqualTo(GOOD);
        assertThat(keys()).containsExactly(5, 5);
        assertThat(pr.out(NEXUS_B, 0, 0, 5, 0, 0).status()).isEqualTo(GOOD); // B is registered with key 5
    }

    @Test
    void specIPtWithRegisterAndIgnoreIsInvalid() {
        byte[] p = params(0, 5, 0x08);
        assertSense(pr.out(NEXUS_A, 6, 0, p), 5, 0x26, 0x00);
    }

    @Test
    void allTargetPortsRegistersEveryTargetPort() {
        ITNexus otherPort = new ITNexus(ProtocolId.ISCSI, "iqn.a", "iqn.a,i,0x1", "iqn.t,t,0x2", 2, 2);
        h.core.nexusLoggedIn(otherPort);
        pr.out(NEXUS_A, 6, 0, 0, 3, 0x04);
        assertThat(pr.out(otherPort, 0, 0, 3, 4, 0).status()).isEqualTo(GOOD);
        ITNexus thirdPort = new ITNexus(ProtocolId.ISCSI, "iqn.c", "iqn.c,i,0x3", "iqn.t,t,0x2", 2, 2);
        pr.out(NEXUS_C, 6, 0, 0, 8, 0);
        assertThat(pr.out(thirdPort, 0, 0, 8, 9, 0).status()).isEqualTo(RESERVATION_CONFLICT);
    }

    @Test
    void aptplWithoutPersistenceIsInvalidFieldInParameterList() {
        assertSense(pr.out(NEXUS_A, 6, 0, 0, 5, 0x01), 5, 0x26, 0x00);
    }

    @ParameterizedTest
    @CsvSource({"0", "23"})
    void shortParameterListIsALengthError(int length) {
        Result r = h.run(NEXUS_A, prOutCdb(6, 0, length), 24, new byte[24]);
        assertSense(r, 5, 0x1A, 0x00);
        assertThat(h.events).doesNotContain("writePending " + length);
    }

    @Test
    void longerBasicListIsALengthError() {
        assertSense(pr.out(NEXUS_A, 6, 0, new byte[32]), 5, 0x1A, 0x00);
    }

    @Test
    void badScopeOrTypeIsInvalidFieldInCdb() {
        pr.register(NEXUS_A, 1);
        assertSense(pr.out(NEXUS_A, 1, 0x11, 1, 0, 0), 5, 0x24, 0x00);
        assertSense(pr.out(NEXUS_A, 1, 0x02, 1, 0, 0), 5, 0x24, 0x00);
    }

    @Test
    void unknownServiceActionIsInvalidFieldInCdb() {
        assertSense(pr.out(NEXUS_A, 8, 0, 0, 0, 0), 5, 0x24, 0x00);
    }

    @Test
    void unregisteringTheHolderReleasesExceptForAllRegistrants() {
        pr.register(NEXUS_A, 1);
        pr.register(NEXUS_B, 2);
        pr.reserve(NEXUS_A, 1, EA);
        pr.out(NEXUS_A, 0, 0, 1, 0, 0);
        assertThat(u32(pr.in(NEXUS_B, 1).dataIn(), 4)).isZero();
        pr.register(NEXUS_A, 1);
        pr.reserve(NEXUS_A, 1, EA_AR);
        pr.out(NEXUS_A, 0, 0, 1, 0, 0);
        byte[] res = pr.in(NEXUS_B, 1).dataIn();
        assertThat(u32(res, 4)).isEqualTo(16);
        assertThat(u64(res, 8)).isZero(); // all registrants: key zero
        assertThat(pr.out(NEXUS_B, 2, EA_AR, 2, 0, 0).status()).isEqualTo(GOOD);
    }
}
