package org.jtarget.scsi.pr;

import org.jtarget.scsi.lun.CoreHarness;
import org.jtarget.scsi.lun.CoreHarness.Result;
import org.jtarget.scsi.lun.TestStore;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;
import static org.jtarget.scsi.lun.CoreHarness.NEXUS_A;
import static org.jtarget.scsi.lun.CoreHarness.NEXUS_B;
import static org.jtarget.scsi.pr.PrTestSupport.*;

class SpcPersistentReserveInTest {

    private final CoreHarness h = CoreHarness.of(new TestStore(512, 64, true, false), false);
    private final PrTestSupport pr = new PrTestSupport(h);

    @BeforeEach
    void login() {
        h.core.nexusLoggedIn(NEXUS_A);
        h.core.nexusLoggedIn(NEXUS_B);
    }

    @Test
    void serviceActionsZeroToThreeWorkOthersAreInvalid() {
        for (int sa = 0; sa < 4; sa++) {
            assertThat(pr.in(NEXUS_A, sa).status()).isEqualTo(GOOD);
        }
        for (int sa = 4; sa < 0x20; sa++) {
            Result r = pr.in(NEXUS_A, sa);
            assertThat(r.status()).isEqualTo(CHECK_CONDITION);
            assertThat(new int[] {r.senseKey(), r.asc()}).containsExactly(5, 0x24);
        }
    }

    @Test
    void readKeysIsCutToTheAllocationLengthButReportsTheFullLength() {
        pr.register(NEXUS_A, 1);
        pr.register(NEXUS_B, 2);
        Result r = h.run(NEXUS_A, prInCdb(0, 12), 12, null);
        assertThat(r.dataIn()).hasSize(12);
        assertThat(u32(r.dataIn(), 4)).isEqualTo(16);
    }

    @Test
    void reportCapabilitiesSaysWhatIsImplemented() {
        byte[] d = pr.in(NEXUS_A, 2).dataIn();
        assertThat(d).hasSize(8);
        assertThat(d[1]).isEqualTo((byte) 8);
        assertThat(d[2]).isEqualTo((byte) 0x0C); // SIP_C, ATP_C; CRH 0; PTPL_C 0 (no state dir)
        assertThat(d[3] & 0xF0).isEqualTo(0xA0); // TMV, ALLOW COMMANDS 010b
        assertThat(d[4] & 0xFF).isEqualTo(0xEA);
        assertThat(d[5] & 0xFF).isEqualTo(0x01);
    }

    @Test
    void readReservationReportsKeyScopeAndType() {
        pr.register(NEXUS_A, 0x1122334455667788L);
        assertThat(u32(pr.in(NEXUS_A, 1).dataIn(), 4)).isZero();
        pr.reserve(NEXUS_A, 0x1122334455667788L, 6);
        byte[] d = pr.in(NEXUS_B, 1).dataIn();
        assertThat(d).hasSize(24);
        assertThat(u64(d, 8)).isEqualTo(0x1122334455667788L);
        assertThat(d[21]).isEqualTo((byte) 0x06);
    }

    @Test
    void readFullStatusListsEachRegistrantWithItsTransportId() {
        pr.register(NEXUS_A, 1);
        pr.out(NEXUS_B, 6, 0, 0, 2, 0x04); // ALL_TG_PT
        pr.reserve(NEXUS_A, 1, 1);
        byte[] d = pr.in(NEXUS_A, 3).dataIn();
        int total = u32(d, 4);
        assertThat(d).hasSize(8 + total);
        int p = 8;
        assertThat(u64(d, p)).isEqualTo(1);
        assertThat(d[p + 12]).isEqualTo((byte) 0x01); // R_HOLDER
        assertThat(d[p + 13]).isEqualTo((byte) 0x01);
        assertThat(((d[p + 18] & 0xFF) << 8) | (d[p + 19] & 0xFF)).isEqualTo(1);
        int idLen = u32(d, p + 20);
        assertThat(idLen % 4).isZero();
        assertThat(d[p + 24]).isEqualTo((byte) 0x45); // format 01b, iSCSI
        String name = new String(d, p + 28, idLen - 4, StandardCharsets.US_ASCII);
        assertThat(name).startsWith("iqn.a,i,0x1\0");
        p += 24 + idLen;
        assertThat(u64(d, p)).isEqualTo(2);
        assertThat(d[p + 12]).isEqualTo((byte) 0x02); // ALL_TG_PT, not a holder
        assertThat(Arrays.copyOfRange(d, p + 28, p + 28 + 11)).asString().isEqualTo("iqn.b,i,0x2");
    }
}
