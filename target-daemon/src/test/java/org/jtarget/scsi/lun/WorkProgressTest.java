package org.jtarget.scsi.lun;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** A long operation's progress as people read it: percent, average rate, time left at that rate. */
class WorkProgressTest {

    private static final long SECOND = 1_000_000_000L;

    @Test
    void percentRateAndTimeLeftFollowFromTheBytesDoneSinceTheStart() {
        WorkProgress w = new WorkProgress("sanitize-overwrite", 100L << 20, 5 * SECOND);
        w.advance(10L << 20);
        w.advance(15L << 20);
        WorkProgress.Snapshot s = w.snapshot(10 * SECOND); // 25 MiB in 5 s
        assertThat(s.kind()).isEqualTo("sanitize-overwrite");
        assertThat(s.doneBytes()).isEqualTo(25L << 20);
        assertThat(s.percent()).isEqualTo(25.0);
        assertThat(s.bytesPerSecond()).isEqualTo(5L << 20);
        assertThat(s.secondsLeft()).isEqualTo(15);
        assertThat(s.runningSeconds()).isEqualTo(5.0);
    }

    @Test
    void beforeTheFirstBytesTheTimeLeftIsUnknown() {
        WorkProgress.Snapshot s = new WorkProgress("extended-copy", 4096, 0).snapshot(SECOND);
        assertThat(s.percent()).isZero();
        assertThat(s.bytesPerSecond()).isZero();
        assertThat(s.secondsLeft()).isEqualTo(-1);
    }

    @Test
    void percentIsRoundedDownSoThatOnlyTheEndReadsAHundred() {
        WorkProgress w = new WorkProgress("extended-copy", 10_000, 0);
        w.advance(9_999);
        assertThat(w.snapshot(SECOND).percent()).isEqualTo(99.9);
        w.advance(1);
        assertThat(w.snapshot(SECOND).percent()).isEqualTo(100.0);
        assertThat(w.snapshot(SECOND).secondsLeft()).isZero();
        assertThat(new WorkProgress("sanitize-crypto-erase", 0, 0).snapshot(0).percent()).as("nothing to do").isEqualTo(100.0);
    }
}
