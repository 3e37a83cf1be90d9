package org.jtarget.initiator.crashcheck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ExpectationsTest {

    private static final int BL = 512;
    private static final long RUN_A = 0xaaL;
    private static final long RUN_B = 0xbbL;

    /** Run A over LBAs 100..101, acknowledged seq 0..{@code lastSeq} (LBA 100 + seq mod 2). */
    private static List<JournalRecord> runA(int lastSeq) {
        List<JournalRecord> r = new ArrayList<>();
        r.add(JournalRecord.run(RUN_A, 100, 2, BL, WriteMode.FUA));
        for (int s = 0; s <= lastSeq; s++) {
            r.add(JournalRecord.ack(RUN_A, s, 100 + s % 2));
        }
        return r;
    }

    private static Verdict check(Expectations e, long lba, byte[] block) {
        return e.check(lba, block, 0);
    }

    @Test
    void theNewestAcknowledgedVersionPassesAndSupersedesOlderOnes() throws Exception {
        Expectations e = Expectations.of(runA(4)); // LBA 100: seq 0, 2, 4; LBA 101: seq 1, 3
        assertThat(e.lbas()).containsExactly(100, 101);
        assertThat(e.acknowledged()).isEqualTo(5);
        assertThat(check(e, 100, BlockImage.render(BL, RUN_A, 4, 100)).kind()).isEqualTo(Verdict.Kind.NEWEST);
        assertThat(check(e, 101, BlockImage.render(BL, RUN_A, 3, 101)).kind()).isEqualTo(Verdict.Kind.NEWEST);
        Verdict older = check(e, 100, BlockImage.render(BL, RUN_A, 2, 100));
        assertThat(older.lost()).isTrue();
        assertThat(older.detail()).contains("expected run #1").contains("seq 4").contains("an older version");
    }

    @Test
    void theWriteInFlightWhenTheRunEndedIsAllowed() throws Exception {
        Expectations e = Expectations.of(runA(4)); // seq 5 (LBA 101) was sent, never acknowledged
        assertThat(check(e, 101, BlockImage.render(BL, RUN_A, 5, 101)).kind()).isEqualTo(Verdict.Kind.IN_FLIGHT);
        assertThat(check(e, 100, BlockImage.render(BL, RUN_A, 6, 100)).lost()).as("seq 6 was never sent").isTrue();
    }

    @Test
    void anEarlierRunsInFlightWriteCannotStandInForALaterRunsAcknowledgedOne() throws Exception {
        List<JournalRecord> r = runA(0); // A: seq 0 at LBA 100 acknowledged, seq 1 at LBA 101 in flight
        r.add(JournalRecord.run(RUN_B, 101, 1, BL, WriteMode.SYNC));
        r.add(JournalRecord.ack(RUN_B, 0, 101)); // B supersedes LBA 101
        Expectations e = Expectations.of(r);
        assertThat(e.runCount()).isEqualTo(2);
        assertThat(check(e, 101, BlockImage.render(BL, RUN_A, 1, 101)).lost()).isTrue();
        assertThat(check(e, 101, BlockImage.render(BL, RUN_B, 0, 101)).kind()).isEqualTo(Verdict.Kind.NEWEST);
        assertThat(check(e, 101, BlockImage.render(BL, RUN_B, 1, 101)).kind()).as("B's own in-flight write")
                .isEqualTo(Verdict.Kind.IN_FLIGHT);
    }

    @Test
    void aChecksumMismatchIsLost() throws Exception {
        Expectations e = Expectations.of(runA(0));
        byte[] b = BlockImage.render(BL, RUN_A, 0, 100);
        b[BL - 1] ^= 0x01; // a torn block: the tail did not make it
        Verdict v = check(e, 100, b);
        assertThat(v.lost()).isTrue();
        assertThat(v.detail()).contains("checksum mismatch");
    }

    @Test
    void zerosForeignDataAndMisdirectedBlocksAreLost() throws Exception {
        Expectations e = Expectations.of(runA(1));
        assertThat(check(e, 100, new byte[BL]).detail()).contains("all zeros");
        byte[] foreign = new byte[BL];
        java.util.Arrays.fill(foreign, (byte) 0x55);
        assertThat(check(e, 100, foreign).detail()).contains("foreign data");
        assertThat(check(e, 100, BlockImage.render(BL, RUN_A, 1, 101)).detail()).contains("misdirected");
    }

    @Test
    void inconsistentJournalsAreRejected() {
        List<JournalRecord> orphan = List.of(JournalRecord.ack(RUN_A, 0, 100));
        assertThatThrownBy(() -> Expectations.of(orphan)).isInstanceOf(CorruptJournalException.class)
                .hasMessageContaining("unknown run");
        List<JournalRecord> gap = new ArrayList<>(runA(0));
        gap.add(JournalRecord.ack(RUN_A, 2, 100));
        assertThatThrownBy(() -> Expectations.of(gap)).isInstanceOf(CorruptJournalException.class)
                .hasMessageContaining("out of order");
        List<JournalRecord> wrongLba = new ArrayList<>(runA(0));
        wrongLba.add(JournalRecord.ack(RUN_A, 1, 100));
        assertThatThrownBy(() -> Expectations.of(wrongLba)).isInstanceOf(CorruptJournalException.class);
        List<JournalRecord> twice = new ArrayList<>(runA(0));
        twice.add(JournalRecord.run(RUN_A, 0, 1, BL, WriteMode.FUA));
        assertThatThrownBy(() -> Expectations.of(twice)).isInstanceOf(CorruptJournalException.class)
                .hasMessageContaining("starts twice");
    }

    @Test
    void regionsWrapAround() {
        Region r = new Region(10, 3);
        assertThat(new long[] {r.lbaOf(0), r.lbaOf(2), r.lbaOf(3), r.lbaOf(7)}).containsExactly(10, 12, 10, 11);
    }
}
