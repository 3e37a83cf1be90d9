package org.jtarget.scsi.pr;

import org.jtarget.scsi.lun.CoreHarness;
import org.jtarget.scsi.lun.LogicalUnitDefinition;
import org.jtarget.scsi.lun.TestStore;
import org.jtarget.scsi.spi.ITNexus;
import org.jtarget.scsi.spi.ProtocolId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.jtarget.scsi.lun.CoreHarness.NEXUS_A;
import static org.jtarget.scsi.lun.CoreHarness.NEXUS_B;
import static org.jtarget.scsi.pr.PrTestSupport.*;

class PrStateFileTest {

    private static final String SRP_PORT = "0x00112233445566778899aabbccddeeff";

    @TempDir
    Path stateDir;

    private final TestStore store = new TestStore(512, 64, true, false);

    private CoreHarness start() {
        CoreHarness h = new CoreHarness(List.of(new LogicalUnitDefinition(0, store, false, false)), stateDir);
        h.core.nexusLoggedIn(NEXUS_A);
        h.core.nexusLoggedIn(NEXUS_B);
        return h;
    }

    private Path file() {
        return stateDir.resolve("pr").resolve("iqn.t").resolve("lun0.pr");
    }

    @Test
    void aptplStateSurvivesARestart() {
        PrTestSupport pr = new PrTestSupport(start());
        assertThat(pr.out(NEXUS_A, 6, 0, 0, 0xAA, 0x01).status()).isEqualTo(GOOD);
        assertThat(pr.out(NEXUS_B, 6, 0, 0, 0xBB, 0x05).status()).isEqualTo(GOOD); // ALL_TG_PT + APTPL
        assertThat(pr.reserve(NEXUS_A, 0xAA, 3).status()).isEqualTo(GOOD);
        assertThat(file()).exists();
        assertThat(file().resolveSibling("lun0.pr.tmp")).doesNotExist();

        PrTestSupport after = new PrTestSupport(start());
        byte[] keys = after.in(NEXUS_A, 0).dataIn();
        assertThat(u32(keys, 0)).isZero(); // PRgeneration restarts at zero
        assertThat(u32(keys, 4)).isEqualTo(16);
        assertThat(u64(keys, 8)).isEqualTo(0xAA);
        assertThat(u64(keys, 16)).isEqualTo(0xBB);
        byte[] res = after.in(NEXUS_B, 1).dataIn();
        assertThat(u64(res, 8)).isEqualTo(0xAA);
        assertThat(res[21]).isEqualTo((byte) 3);
        assertThat(after.read10(NEXUS_B).status()).isEqualTo(RESERVATION_CONFLICT);
        byte[] caps = after.in(NEXUS_A, 2).dataIn();
        assertThat(caps[2] & 0x01).isEqualTo(1); // PTPL_C
        assertThat(caps[3] & 0x01).isEqualTo(1); // PTPL_A
    }

    @Test
    void withoutAptplNothingIsKept() {
        PrTestSupport pr = new PrTestSupport(start());
        pr.out(NEXUS_A, 6, 0, 0, 0xAA, 0);
        assertThat(file()).doesNotExist();
        assertThat(u32(new PrTestSupport(start()).in(NEXUS_A, 0).dataIn(), 4)).isZero();
    }

    @Test
    void aptplOffDeletesTheFile() throws Exception {
        PrTestSupport pr = new PrTestSupport(start());
        pr.out(NEXUS_A, 6, 0, 0, 0xAA, 0x01);
        assertThat(file()).exists();
        pr.out(NEXUS_A, 0, 0, 0xAA, 0xAB, 0);
        assertThat(file()).doesNotExist();
        Files.createDirectories(stateDir);
    }

    @Test
    void anSrpRegistrationSurvivesARestartWithItsProtocol() throws Exception {
        ITNexus srp = new ITNexus(ProtocolId.SRP, SRP_PORT, SRP_PORT, "0xfe,t,0x1", 1, 1);
        CoreHarness h = start();
        h.core.nexusLoggedIn(srp);
        PrTestSupport pr = new PrTestSupport(h);
        assertThat(pr.out(NEXUS_A, 6, 0, 0, 0xAA, 0x01).status()).isEqualTo(GOOD);
        assertThat(pr.out(srp, 6, 0, 0, 0xCC, 0x01).status()).isEqualTo(GOOD);
        assertThat(Files.readAllLines(file())).contains("reg aa 1 0 iqn.a,i,0x1", "reg/srp cc 1 0 " + SRP_PORT);

        CoreHarness after = start();
        after.core.nexusLoggedIn(srp);
        byte[] d = new PrTestSupport(after).in(NEXUS_A, 3).dataIn(); // READ FULL STATUS
        int second = 8 + 24 + u32(d, 8 + 20);
        assertThat(u64(d, second)).isEqualTo(0xCC);
        assertThat(u32(d, second + 20)).isEqualTo(24);
        assertThat(java.util.Arrays.copyOfRange(d, second + 24, second + 48)).isEqualTo(srp.initiatorTransportId());
        // the restored registration covers the SRP nexus, not an iSCSI one of the same name
        assertThat(new PrTestSupport(after).out(srp, 6, 0, 0xCC, 0, 0x00).status()).isEqualTo(GOOD);
    }

    @Test
    void aCorruptFileStartsEmpty() throws Exception {
        Files.createDirectories(file().getParent());
        Files.writeString(file(), "garbage\n");
        assertThat(u32(new PrTestSupport(start()).in(NEXUS_A, 0).dataIn(), 4)).isZero();
    }
}
