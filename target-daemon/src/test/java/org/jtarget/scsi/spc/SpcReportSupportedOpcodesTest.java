package org.jtarget.scsi.spc;

import org.jtarget.scsi.lun.CoreHarness;
import org.jtarget.scsi.lun.CoreHarness.Result;
import org.jtarget.scsi.lun.TestStore;
import org.jtarget.scsi.spi.ScsiStatus;
import org.jtarget.scsi.dispatch.CommandTable;
import org.jtarget.scsi.dispatch.OpcodeEntry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.jtarget.scsi.lun.Cdbs.of;

class SpcReportSupportedOpcodesTest {

    private final CoreHarness h = CoreHarness.of(new TestStore(512, 64, true, false), false);

    private Result rsoc(int rctd, int options, int opcode, int sa) {
        return h.run(of(0xA3, 0x0C, rctd << 7 | options, opcode, sa >>> 8, sa, 0, 0, 0xFF, 0xFF, 0, 0));
    }

    private static void assertInvalidFieldInCdb(Result r) {
        assertThat(r.status()).isEqualTo(ScsiStatus.CHECK_CONDITION);
        assertThat(new int[]{r.senseKey(), r.asc()}).containsExactly(5, 0x24);
    }

    /** (opcode, service action, servactv, cdb length) of every descriptor of an "all" report. */
    private List<int[]> all(byte[] d, int descriptorLength) {
        int length = ((d[0] & 0xFF) << 24) | ((d[1] & 0xFF) << 16) | ((d[2] & 0xFF) << 8) | (d[3] & 0xFF);
        assertThat(length + 4).isEqualTo(d.length);
        List<int[]> out = new ArrayList<>();
        for (int p = 4; p < d.length; p += descriptorLength) {
            out.add(new int[]{d[p] & 0xFF, ((d[p + 2] & 0xFF) << 8) | (d[p + 3] & 0xFF), d[p + 5] & 0xFF,
                    ((d[p + 6] & 0xFF) << 8) | (d[p + 7] & 0xFF)});
        }
        return out;
    }

    @Test
    void allCommandsListsEveryTableRowWithServiceActions() {
        List<int[]> rows = all(rsoc(0, 0, 0, 0).dataIn(), 8);
        assertThat(rows).anySatisfy(r -> assertThat(r).containsExactly(0x28, 0, 0, 10));
        assertThat(rows).anySatisfy(r -> assertThat(r).containsExactly(0x89, 0, 0, 16));
        assertThat(rows).anySatisfy(r -> assertThat(r).containsExactly(0x8B, 0, 0, 16));
        assertThat(rows).anySatisfy(r -> assertThat(r).containsExactly(0x2E, 0, 0, 10));
        assertThat(rows).anySatisfy(r -> assertThat(r).containsExactly(0x90, 0, 0, 16));
        assertThat(rows).anySatisfy(r -> assertThat(r).containsExactly(0x9E, 0x10, 1, 16));
        assertThat(rows).anySatisfy(r -> assertThat(r).containsExactly(0x9E, 0x12, 1, 16));
        assertThat(rows).anySatisfy(r -> assertThat(r).containsExactly(0x41, 0, 0, 10));
        assertThat(rows).anySatisfy(r -> assertThat(r).containsExactly(0x93, 0, 0, 16));
        assertThat(rows).anySatisfy(r -> assertThat(r).containsExactly(0x37, 0, 0, 10));
        assertThat(rows).anySatisfy(r -> assertThat(r).containsExactly(0xB7, 0, 0, 12));
        assertThat(rows).anySatisfy(r -> assertThat(r).containsExactly(0xA3, 0x0C, 1, 12));
        assertThat(rows).anySatisfy(r -> assertThat(r).containsExactly(0xA3, 0x0D, 1, 12));
        assertThat(rows.stream().filter(r -> r[0] == 0xA3).map(r -> r[1])).containsExactly(0x0A, 0x0C, 0x0D);
    }

    /**
     * The acceptance rule of the command set: the "all commands" report lists exactly the
     * (opcode, service action) pairs the dispatcher executes. Every one of the 256 opcodes (and, for
     * opcodes with service actions, all 32 service actions) is sent to a fresh LU; the dispatcher
     * refuses an unsupported one with INVALID COMMAND OPERATION CODE, or INVALID FIELD IN CDB
     * pointing at the SERVICE ACTION field (SPC-4 4.2.5.x). Whatever else it answers means it
     * implements the command, and then the report must list it with the table's CDB length.
     */
    @ParameterizedTest(name = "thin={0}")
    @ValueSource(booleans = {false, true})
    void allCommandsReportListsExactlyWhatTheDispatcherExecutes(boolean thin) {
        Map<Integer, Integer> reported = new TreeMap<>();
        for (int[] r : all(harness(thin).run(of(0xA3, 0x0C, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0, 0)).dataIn(), 8)) {
            reported.put(r[0] << 8 | r[1], r[3]);
        }
        Map<Integer, Integer> executed = new TreeMap<>();
        for (int opcode = 0; opcode < 256; opcode++) {
            OpcodeEntry row = new CommandTable().row(opcode);
            int serviceActions = row != null && row.serviceActions() != null ? 32 : 1;
            for (int sa = 0; sa < serviceActions; sa++) {
                if (dispatcherExecutes(thin, opcode, serviceActions > 1 ? sa : -1)) {
                    executed.put(opcode << 8 | (serviceActions > 1 ? sa : 0),
                            new CommandTable().lookup(cdbOf(opcode, sa)).cdbLength());
                }
            }
        }
        assertThat(executed).as("the probe finds READ(10) and, on a thin LU only, UNMAP")
                .containsKey(0x28 << 8).hasSizeGreaterThan(50);
        assertThat(executed.containsKey(0x42 << 8)).isEqualTo(thin);
        assertThat(reported).isEqualTo(executed);
    }

    private static CoreHarness harness(boolean thin) {
        return CoreHarness.of(new TestStore(512, 64, true, thin), false);
    }

    private static byte[] cdbOf(int opcode, int serviceAction) {
        byte[] cdb = new byte[16];
        cdb[0] = (byte) opcode;
        cdb[1] = (byte) Math.max(serviceAction, 0);
        return cdb;
    }

    /** False if the dispatcher refuses this opcode/service action as unsupported. */
    private static boolean dispatcherExecutes(boolean thin, int opcode, int serviceAction) {
        CoreHarness fresh = harness(thin);
        Result r = fresh.run(cdbOf(opcode, serviceAction));
        if (r != null && r.status() == ScsiStatus.CHECK_CONDITION && r.senseKey() == 6) {
            r = fresh.run(cdbOf(opcode, serviceAction)); // the power-on UNIT ATTENTION came first
        }
        if (r == null || r.status() != ScsiStatus.CHECK_CONDITION || r.senseKey() != 5) {
            return true;
        }
        boolean invalidOpcode = r.asc() == 0x20 && r.ascq() == 0;
        boolean invalidServiceAction = serviceAction >= 0 && r.asc() == 0x24 && fieldPointer(r.sense()) == 1;
        return !invalidOpcode && !invalidServiceAction;
    }

    /** The SENSE KEY SPECIFIC field pointer (SPC-4 4.5.2.4.2), fixed or descriptor format; -1 if none. */
    private static int fieldPointer(byte[] sense) {
        int sks = -1;
        if ((sense[0] & 0x7F) == 0x72) {
            for (int p = 8; p + 1 < sense.length; p += 2 + (sense[p + 1] & 0xFF)) {
                if (sense[p] == 0x02) {
                    sks = p + 4;
                }
            }
        } else if (sense.length >= 18) {
            sks = 15;
        }
        if (sks < 0 || (sense[sks] & 0x80) == 0) {
            return -1;
        }
        return (sense[sks + 1] & 0xFF) << 8 | (sense[sks + 2] & 0xFF);
    }

    @Test
    void everyListedCommandAnswersTheOneCommandFormLikeLibiscsiChecks() {
        for (int[] r : all(rsoc(0, 0, 0, 0).dataIn(), 8)) {
            boolean servactv = r[2] == 1;
            assertInvalidFieldInCdbOrGood(rsoc(0, 1, r[0], r[1]), !servactv);
            assertInvalidFieldInCdbOrGood(rsoc(0, 2, r[0], r[1]), servactv);
            byte[] one = rsoc(0, servactv ? 2 : 1, r[0], r[1]).dataIn();
            assertThat(one[1] & 0x07).isEqualTo(3); // supported, standard
            int cdbSize = ((one[2] & 0xFF) << 8) | (one[3] & 0xFF);
            assertThat(cdbSize).isEqualTo(r[3]);
            assertThat(one).hasSize(4 + cdbSize);
            assertThat(one[4] & 0xFF).isEqualTo(r[0]);
            if (servactv) {
                assertThat(one[5] & 0x1F).isEqualTo(r[1]);
            }
        }
    }

    private static void assertInvalidFieldInCdbOrGood(Result r, boolean good) {
        if (good) {
            assertThat(r.status()).isEqualTo(ScsiStatus.GOOD);
        } else {
            assertInvalidFieldInCdb(r);
        }
    }

    @Test
    void read10UsageDataShowsDpoAndFuaLikeModeSenseDpofua() {
        byte[] one = rsoc(0, 1, 0x28, 0).dataIn();
        assertThat(one[5] & 0x18).isEqualTo(0x18);
        assertThat(one).containsExactly(0, 3, 0, 10, 0x28, 0x18, 0xFF - 256, 0xFF - 256, 0xFF - 256, 0xFF - 256,
                0, 0xFF - 256, 0xFF - 256, 0);
    }

    @Test
    void unmapIsListedOnlyOnAThinLu() {
        assertThat(all(rsoc(0, 0, 0, 0).dataIn(), 8)).noneSatisfy(r -> assertThat(r[0]).isEqualTo(0x42));
        assertThat(rsoc(0, 1, 0x42, 0).dataIn()).containsExactly(0, 1, 0, 0);
        CoreHarness thin = CoreHarness.of(new TestStore(512, 64, true, true), false);
        byte[] d = thin.run(of(0xA3, 0x0C, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0, 0)).dataIn();
        assertThat(all(d, 8)).anySatisfy(r -> assertThat(r).containsExactly(0x42, 0, 0, 10));
        assertThat(thin.run(of(0xA3, 0x0C, 1, 0x42, 0, 0, 0, 0, 0xFF, 0xFF, 0, 0)).dataIn()[1]).isEqualTo((byte) 3);
    }

    @Test
    void unsupportedOpcodeReportsSupport001() {
        assertThat(rsoc(0, 1, 0xC0, 0).dataIn()).containsExactly(0, 1, 0, 0);
        assertThat(rsoc(0, 2, 0xA3, 0x05).dataIn()).containsExactly(0, 1, 0, 0);
    }

    @Test
    void option011ReportsEitherFormAndNeedsServiceActionZeroForPlainCommands() {
        assertThat(rsoc(0, 3, 0x9E, 0x10).dataIn()[1]).isEqualTo((byte) 3);
        assertThat(rsoc(0, 3, 0x28, 0).dataIn()[1]).isEqualTo((byte) 3);
        assertThat(rsoc(0, 3, 0x28, 1).dataIn()[1]).isEqualTo((byte) 1);
    }

    @Test
    void reservedReportingOptionsGiveInvalidFieldInCdb() {
        assertInvalidFieldInCdb(rsoc(0, 4, 0, 0));
    }

    @Test
    void rctdAddsATimeoutsDescriptorToEveryCommand() {
        byte[] d = rsoc(1, 0, 0, 0).dataIn();
        for (int p = 4; p < d.length; p += 20) {
            assertThat(d[p + 5] & 0x02).as("CTDP").isEqualTo(2);
            assertThat(((d[p + 8] & 0xFF) << 8) | (d[p + 9] & 0xFF)).isEqualTo(0x0A);
            assertThat(d[p + 15]).as("nominal timeout").isPositive();
        }
        byte[] one = rsoc(1, 1, 0x2A, 0).dataIn();
        assertThat(one[1] & 0xFF).isEqualTo(0x83);
        assertThat(one).hasSize(4 + 10 + 12);
        assertThat(one[4 + 10 + 1]).isEqualTo((byte) 0x0A);
    }

    @Test
    void allocationLengthTruncates() {
        assertThat(h.run(of(0xA3, 0x0C, 0, 0, 0, 0, 0, 0, 0, 6, 0, 0)).dataIn()).hasSize(6);
    }

    @Test
    void supportedTaskManagementFunctionsMatchTheCore() {
        byte[] d = h.run(of(0xA3, 0x0D, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0)).dataIn();
        // ATS ATSS CTSS LURS TRS; no CLEAR ACA, QUERY TASK, WAKEUP, I_T NEXUS RESET
        assertThat(d).containsExactly(0xDA - 256, 0, 0, 0);
    }

    @Test
    void supportedTaskManagementFunctionsWithRepdReturnsExtendedData() {
        byte[] d = h.run(of(0xA3, 0x0D, 0x80, 0, 0, 0, 0, 0, 0, 0xFF, 0, 0)).dataIn();
        assertThat(d).hasSize(16);
        assertThat(d[3]).isEqualTo((byte) 0x0C);
        assertThat(d[4] & 1).as("TMFTMOV").isZero();
    }
}
