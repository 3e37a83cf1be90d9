package org.jtarget.scsi.lun;

import org.jtarget.scsi.lun.LuStatistics.Op;
import org.jtarget.scsi.spi.ScsiCommand;
import org.jtarget.scsi.spi.ScsiStatus;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** What a session's or portal's counters count: commands by kind, bytes of GOOD reads and writes, failures. */
class TransferCountersTest {

    private final TransferCounters c = new TransferCounters();

    private static ScsiCommand command(int opcode, int status) {
        ScsiCommand cmd = new ScsiCommand();
        cmd.cdb(new byte[] {(byte) opcode, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 0, 10);
        cmd.status(status);
        return cmd;
    }

    @Test
    void goodReadsAndWritesCountTheirBytesAndOtherCommandsNone() {
        c.record(command(0x28, ScsiStatus.GOOD), 4096);
        c.record(command(0x88, ScsiStatus.GOOD), 8192);
        c.record(command(0x2A, ScsiStatus.GOOD), 512);
        c.record(command(0x12, ScsiStatus.GOOD), 36); // INQUIRY: its data is not READ data
        assertThat(c.commands(Op.READ)).isEqualTo(2);
        assertThat(c.bytes(Op.READ)).isEqualTo(12288);
        assertThat(c.commands(Op.WRITE)).isEqualTo(1);
        assertThat(c.bytes(Op.WRITE)).isEqualTo(512);
        assertThat(c.commands(Op.OTHER)).isEqualTo(1);
        assertThat(c.bytes(Op.OTHER)).isZero();
        assertThat(c.failed()).isZero();
    }

    @Test
    void aStatusOtherThanGoodOrConditionMetIsAFailureWithoutBytes() {
        c.record(command(0x28, ScsiStatus.CHECK_CONDITION), 4096);
        c.record(command(0x2A, 0x28), 4096); // TASK SET FULL
        c.record(command(0x34, ScsiStatus.CONDITION_MET), 0); // PRE-FETCH(10) that fits the cache
        assertThat(c.commands(Op.READ)).isEqualTo(1);
        assertThat(c.bytes(Op.READ)).isZero();
        assertThat(c.bytes(Op.WRITE)).isZero();
        assertThat(c.failed()).isEqualTo(2);
    }
}
