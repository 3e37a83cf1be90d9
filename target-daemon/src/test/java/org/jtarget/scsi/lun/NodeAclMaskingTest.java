package org.jtarget.scsi.lun;

import org.jtarget.scsi.lun.CoreHarness.Result;
import org.jtarget.scsi.spi.ITNexus;
import org.jtarget.scsi.spi.ProtocolId;
import org.jtarget.scsi.spi.ScsiCommand;
import org.jtarget.scsi.spi.TmfRequest;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.jtarget.scsi.lun.CoreHarness.NEXUS_A;
import static org.jtarget.scsi.lun.CoreHarness.NEXUS_B;

/**
 * Per-initiator LUN masking and read-only mappings, enforced by the core's gate from the nexus's
 * initiator name: iqn.a sees LUNs 0 and 2, LUN 2 read-only; iqn.b sees everything; anyone else
 * sees LUN 1 only (the "*" entry).
 */
class NodeAclMaskingTest {

    private static final int BS = 512;
    private static final ITNexus NEXUS_C = new ITNexus(ProtocolId.ISCSI, "iqn.c", "iqn.c,i,0x3", "iqn.t,t,0x1", 1, 1);
    private static final byte[] TEST_UNIT_READY = new byte[6];
    private static final byte[] REPORT_LUNS = Cdbs.of(0xA0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0);

    private final TestStore[] stores = {store(), store(), store()};
    private final CoreHarness h = new CoreHarness(List.of(lun(0), lun(1), lun(2)), new NodeAcl(List.of(
            new NodeAcl.Entry("IQN.A", new TreeSet<>(List.of(0, 2)), new TreeSet<>(List.of(2))),
            NodeAcl.Entry.allLuns("iqn.b"),
            new NodeAcl.Entry("*", new TreeSet<>(List.of(1)), new TreeSet<>()))));

    private static TestStore store() {
        return new TestStore(BS, 64, true, false);
    }

    private LogicalUnitDefinition lun(int n) {
        return new LogicalUnitDefinition(n, stores[n], false, false);
    }

    private Result run(ITNexus nexus, int lun, byte[] cdb, int edtl, byte[] out) {
        ScsiCommand cmd = h.submit(nexus, lun, 1, cdb, edtl, out);
        h.runIo();
        return h.results.get(cmd);
    }

    private List<Integer> reportLuns(ITNexus nexus) {
        byte[] d = run(nexus, 0, REPORT_LUNS, 256, null).dataIn();
        List<Integer> luns = new ArrayList<>();
        for (int i = 8; i < d.length; i += 8) {
            luns.add(((d[i] & 0x3F) << 8) | (d[i + 1] & 0xFF));
        }
        return luns;
    }

    private static String sense(Result r) {
        return r.status() == 0 ? "GOOD" : String.format("%02X/%02X/%02X", r.senseKey(), r.asc(), r.ascq());
    }

    @Test
    void reportLunsListsOnlyWhatTheInitiatorsEntryMaps() {
        assertThat(reportLuns(NEXUS_A)).containsExactly(0, 2); // the entry's name matched case-insensitively
        assertThat(reportLuns(NEXUS_B)).containsExactly(0, 1, 2);
        assertThat(reportLuns(NEXUS_C)).containsExactly(1);
    }

    @Test
    void aMaskedLunIsNotSupportedForThatInitiatorOnly() {
        assertThat(sense(run(NEXUS_A, 1, TEST_UNIT_READY, 0, null))).isEqualTo("05/25/00");
        assertThat(sense(run(NEXUS_C, 0, TEST_UNIT_READY, 0, null))).isEqualTo("05/25/00");
        assertThat(sense(run(NEXUS_B, 1, TEST_UNIT_READY, 0, null))).isEqualTo("GOOD");
        assertThat(sense(run(NEXUS_C, 1, TEST_UNIT_READY, 0, null))).isEqualTo("GOOD");
        TmfRequest reset = h.tmf(TmfRequest.Function.LOGICAL_UNIT_RESET, NEXUS_A, 1, 0);
        assertThat(reset.response()).isEqualTo(TmfRequest.Response.LUN_DOES_NOT_EXIST);
    }

    @Test
    void aReadOnlyMappingRefusesWritesWithDataProtectAndLeavesTheDataAlone() {
        byte[] data = Cdbs.filled(BS, 0x5A);
        assertThat(sense(run(NEXUS_A, 2, Cdbs.rw10(0x2A, 0, 0, 1), BS, data))).isEqualTo("07/27/00");
        assertThat(sense(run(NEXUS_A, 2, Cdbs.rw16(0x8A, 0, 3, 1), BS, data))).isEqualTo("07/27/00");
        assertThat(sense(run(NEXUS_A, 2, writeSame10(), BS, data))).isEqualTo("07/27/00");
        assertThat(Arrays.copyOf(stores[2].data, 4 * BS)).containsOnly(0);
        assertThat(sense(run(NEXUS_A, 2, Cdbs.rw10(0x28, 0, 0, 1), BS, null))).isEqualTo("GOOD"); // reads work
        assertThat(sense(run(NEXUS_A, 0, Cdbs.rw10(0x2A, 0, 0, 1), BS, data))).isEqualTo("GOOD"); // LUN 0 is writable
        assertThat(sense(run(NEXUS_B, 2, Cdbs.rw10(0x2A, 0, 0, 1), BS, data))).isEqualTo("GOOD"); // for B LUN 2 is too
        assertThat(stores[2].data[0]).isEqualTo((byte) 0x5A);
    }

    @Test
    void modeSenseShowsTheInitiatorsWriteProtect() {
        byte[] modeSense6 = Cdbs.of(0x1A, 0x08, 0x3F, 0, 255, 0);
        assertThat(run(NEXUS_A, 2, modeSense6, 255, null).dataIn()[2] & 0x80).isEqualTo(0x80);
        assertThat(run(NEXUS_B, 2, modeSense6, 255, null).dataIn()[2] & 0x80).isZero();
    }

    @Test
    void anAclChangeAppliesToTheNextCommand() {
        h.core.changeAcl(NodeAcl.ofInitiators(List.of("iqn.a")));
        assertThat(reportLuns(NEXUS_A)).containsExactly(0, 1, 2);
        assertThat(sense(run(NEXUS_A, 2, Cdbs.rw10(0x2A, 0, 0, 1), BS, Cdbs.filled(BS, 1)))).isEqualTo("GOOD");
    }

    private static byte[] writeSame10() {
        return Cdbs.of(0x41, 0, 0, 0, 0, 0, 0, 0, 1, 0);
    }
}
