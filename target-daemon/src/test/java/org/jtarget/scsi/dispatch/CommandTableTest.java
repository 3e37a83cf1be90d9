package org.jtarget.scsi.dispatch;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.jtarget.scsi.lun.Cdbs.of;

class CommandTableTest {

    private final CommandTable table = new CommandTable();

    @Test
    void everyRowHasAUsageMapOfItsCdbLengthStartingWithItsOpcode() {
        // OpcodeEntry's constructor enforces it; building the table is the check
        for (int op = 0; op < 256; op++) {
            OpcodeEntry row = table.row(op);
            if (row != null && row.serviceActions() == null) {
                assertThat(row.cdbUsage()).hasSize(row.cdbLength());
                assertThat(row.cdbUsage()[0] & 0xFF).isEqualTo(op);
            }
        }
    }

    @Test
    void readAndWriteRowsHonourDpoAndFua() {
        for (int op : new int[]{0x28, 0x2A, 0x88, 0x8A, 0xA8, 0xAA}) {
            assertThat(table.row(op).cdbUsage()[1] & 0x18).as("opcode %x", op).isEqualTo(0x18);
            assertThat(table.row(op).cdbUsage()[1] & 0xE0).as("no protection info").isZero();
        }
    }

    @Test
    void newCommandsAreInTheTableWithTheirLockMode() {
        assertThat(table.row(0x89).has(OpcodeEntry.RANGE_EXCLUSIVE)).isTrue();
        assertThat(table.row(0x8B).has(OpcodeEntry.RANGE_EXCLUSIVE)).isTrue();
        assertThat(table.row(0x2A).has(OpcodeEntry.RANGE_SHARED)).isTrue();
        assertThat(table.row(0x28).has(OpcodeEntry.RANGE_SHARED)).isTrue();
        for (int op : new int[]{0x2E, 0xAE, 0x8E}) {
            assertThat(table.row(op).has(OpcodeEntry.WRITES_MEDIUM)).isTrue();
        }
        assertThat(table.row(0x34)).isNotNull();
        assertThat(table.row(0x90)).isNotNull();
        assertThat(table.lookup(of(0xA3, 0x0C)).name()).isEqualTo("REPORT SUPPORTED OPERATION CODES");
        assertThat(table.lookup(of(0xA3, 0x0D)).name()).isEqualTo("REPORT SUPPORTED TASK MANAGEMENT FUNCTIONS");
        assertThat(table.lookup(of(0xA3, 0x05))).isNull();
    }
}
