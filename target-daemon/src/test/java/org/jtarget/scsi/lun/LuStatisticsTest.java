package org.jtarget.scsi.lun;

import org.jtarget.scsi.lun.LuStatistics.Op;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What an LU's statistics count: commands by kind, bytes and latency of GOOD reads and writes, failures. */
class LuStatisticsTest {

    private final LuStatistics s = new LuStatistics();

    @Test
    void readsAndWritesOfEverySizeAreTheirOwnKindAndTheRestIsOther() {
        for (int opcode : new int[] {0x08, 0x28, 0xA8, 0x88}) {
            assertThat(LuStatistics.op(opcode)).isEqualTo(Op.READ);
        }
        for (int opcode : new int[] {0x0A, 0x2A, 0xAA, 0x8A}) {
            assertThat(LuStatistics.op(opcode)).isEqualTo(Op.WRITE);
        }
        assertThat(LuStatistics.op(0x00)).as("TEST UNIT READY").isEqualTo(Op.OTHER);
        assertThat(LuStatistics.op(0x89)).as("COMPARE AND WRITE").isEqualTo(Op.OTHER);
    }

    @Test
    void goodCommandsCountBytesAndLatencyInTheirBucket() {
        s.record(Op.READ, 0, 0, 4096, 30_000); // 30 us: the 50 us bucket
        s.record(Op.READ, 0, 0, 8192, 20_000_000_000L); // beyond the last bound: +Inf
        s.record(Op.WRITE, 0, 0, 512, 25_000); // exactly a bound: that bucket
        s.record(Op.OTHER, 0, 0, 0, 1_000);
        assertThat(s.commands(Op.READ)).isEqualTo(2);
        assertThat(s.bytes(Op.READ)).isEqualTo(12288);
        assertThat(s.commands(Op.OTHER)).isEqualTo(1);
        assertThat(s.bytes(Op.OTHER)).isZero();

        LuStatistics.LatencySnapshot reads = s.latency(Op.READ);
        assertThat(reads.count()).isEqualTo(2);
        assertThat(reads.sumNanos()).isEqualTo(20_000_030_000L);
        assertThat(reads.cumulativeCounts()[0]).as("<= 25 us").isZero();
        assertThat(reads.cumulativeCounts()[1]).as("<= 50 us").isEqualTo(1);
        assertThat(reads.cumulativeCounts()[reads.boundsNanos().length - 1]).as("<= 10 s").isEqualTo(1);
        assertThat(reads.cumulativeCounts()[reads.boundsNanos().length]).as("+Inf").isEqualTo(2);
        assertThat(s.latency(Op.WRITE).cumulativeCounts()[0]).isEqualTo(1);
        assertThatThrownBy(() -> s.latency(Op.OTHER)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void failuresCountBySenseKeyOrStatusAndNotAsData() {
        s.record(Op.READ, 0x02, 0x5, 4096, 1_000); // CHECK CONDITION, ILLEGAL REQUEST
        s.record(Op.WRITE, 0x02, 0x7, 4096, 1_000); // DATA PROTECT
        s.record(Op.WRITE, 0x18, 0, 4096, 1_000); // RESERVATION CONFLICT
        s.record(Op.WRITE, 0x28, 0, 4096, 1_000); // TASK SET FULL
        assertThat(s.commands(Op.READ)).isEqualTo(1);
        assertThat(s.commands(Op.WRITE)).isEqualTo(3);
        assertThat(s.bytes(Op.READ) + s.bytes(Op.WRITE)).isZero();
        assertThat(s.latency(Op.WRITE).count()).isZero();
        assertThat(s.checkConditions(0x5)).isEqualTo(1);
        assertThat(s.checkConditions(0x7)).isEqualTo(1);
        assertThat(s.statusCount(0x18)).isEqualTo(1);
        assertThat(s.statusCount(0x28)).isEqualTo(1);
        assertThat(s.statusCount(0x08)).isZero();
        assertThatThrownBy(() -> s.statusCount(0x02)).isInstanceOf(IllegalArgumentException.class);
    }
}
