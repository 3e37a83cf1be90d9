package org.jtarget.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import org.jtarget.it.ConformanceScore.Status;
import org.junit.jupiter.api.Test;

/** {@link ConformanceScore} on output captured from iscsi-test-cu 1.19 (trimmed). */
class ConformanceScoreTest {

    /** Two families running the same suites; the second one's GetLBAStatus.UnmapSingle fails. */
    private static final String SAMPLE = """
            found matching LU device identifier for all (2) paths



                 CUnit - A unit testing framework for C - Version 2.1-3
                 http://cunit.sourceforge.net/


            Suite: CompareAndWrite
              Test: Simple ...passed
              Test: InvalidDataOutSize ...    [SKIPPED] LBPPB < 2. Skipping test
            passed
            Suite: GetLBAStatus
              Test: UnmapSingle ...passed
            Suite: ModeSense6
              Test: Residuals ...passed    [FAILED] PRIN command: failed with sense. SENSE KEY:UNIT_ATTENTION(6) \
            ASCQ:MODE PARAMETERS CHANGED(0x2a01)

            Suite: iSCSIResets
              Test: TargetWarmReset ...    [FAILED] RESERVE6 command: failed with sense. SENSE KEY:UNIT_ATTENTION(6) \
            ASCQ:BUS_DEVICE_RESET_FUNCTION_OCCURED(0x2903)
            passed
            Suite: WriteSame10
              Test: InvalidDataOutSize ...    [FAILED] WRITESAME10 successful but should have failed with \
            ILLEGAL_REQUEST(0x05)/NO ASCQ(0x0000)
            FAILED
                1. test_writesame10_invalid_dataout_size.c:51  - CU_ASSERT_EQUAL(_r,0)
            Suite: CompareAndWrite
              Test: Simple ...passed
              Test: InvalidDataOutSize ...passed
            Suite: GetLBAStatus
              Test: UnmapSingle ...FAILED
                1. test_get_lba_status_unmap_single.c:135  - CU_FAIL("[FAILED] GETLBASTATUS command: " "lba offset \
            in first descriptor does not " "match request.")    Send PRIN/READ_KEYS
            Suite: PersistentReserveIn
              Test: ReadKeysSimple ...passed    Send PRIN/READ_KEYS

            Run Summary:    Type  Total    Ran Passed Failed Inactive
                          suites    134    134    n/a      0        0
                           tests     10     10      8      2        0

            Elapsed time =    5.781 seconds
            Tests completed with return value: 0
            """;

    @Test
    void scoresEachTestOnceAtItsWorst() {
        ConformanceScore s = ConformanceScore.parse(SAMPLE);

        assertThat(s.results()).containsOnly(
                entry("CompareAndWrite.Simple", Status.PASS),
                entry("CompareAndWrite.InvalidDataOutSize", Status.SKIP), // skipped once, passed once
                entry("GetLBAStatus.UnmapSingle", Status.FAIL), // passed once, failed once
                entry("ModeSense6.Residuals", Status.PASS), // the [FAILED] after "passed" is the next setup's
                entry("iSCSIResets.TargetWarmReset", Status.PASS), // a logged [FAILED] is no verdict
                entry("WriteSame10.InvalidDataOutSize", Status.FAIL),
                entry("PersistentReserveIn.ReadKeysSimple", Status.PASS)); // text after "passed" on its line
        assertThat(s.scoreLine()).isEqualTo("conformance tests=7 pass=4 skip=1 fail=2");
        assertThat(s.completed()).isTrue();
        assertThat(s.suiteFailures()).isEmpty();
    }

    @Test
    void keepsTheFailingRunsOutputWithCunitsFailureRecords() {
        ConformanceScore s = ConformanceScore.parse(SAMPLE);

        assertThat(s.failures()).containsExactly("GetLBAStatus.UnmapSingle", "WriteSame10.InvalidDataOutSize");
        assertThat(s.failureOutput("WriteSame10.InvalidDataOutSize"))
                .contains("WRITESAME10 successful but should have failed")
                .contains("test_writesame10_invalid_dataout_size.c:51");
        assertThat(s.describeFailures(2))
                .contains("--- FAIL GetLBAStatus.UnmapSingle")
                .contains("test_get_lba_status_unmap_single.c:135")
                .doesNotContain("WRITESAME10 successful"); // only the last 2 lines
        assertThat(s.failureOutput("CompareAndWrite.Simple")).isEmpty();
    }

    @Test
    void aSkippedTestIsOnlyOneThatSaidSoBeforeItsVerdict() {
        ConformanceScore s = ConformanceScore.parse("""
                Suite: A
                  Test: X ...passed    [SKIPPED] printed by the next suite's setup
                Suite: B
                  Test: Y ...    [SKIPPED] no such feature. Skipping test
                passed
                Run Summary:
                """);

        assertThat(s.results()).containsOnly(entry("A.X", Status.PASS), entry("B.Y", Status.SKIP));
    }

    @Test
    void aTestWithoutVerdictFailsAndAnUnfinishedRunIsNotCompleted() {
        ConformanceScore s = ConformanceScore.parse("""
                Suite: Read10
                  Test: Simple ...passed
                  Test: BeyondEol ...    [FAILED] READ10 command failed with status 251658241
                """);

        assertThat(s.results()).containsOnly(entry("Read10.Simple", Status.PASS),
                entry("Read10.BeyondEol", Status.FAIL));
        assertThat(s.failureOutput("Read10.BeyondEol")).contains("[no verdict");
        assertThat(s.completed()).isFalse();
    }

    @Test
    void reportsCunitSuiteFailuresApart() {
        ConformanceScore s = ConformanceScore.parse("""
                Suite: Read10
                  Test: Simple ...passed
                WARNING - Suite cleanup failed for 'Read10'.
                Run Summary:
                """);

        assertThat(s.results()).containsOnly(entry("Read10.Simple", Status.PASS));
        assertThat(s.suiteFailures()).containsExactly("WARNING - Suite cleanup failed for 'Read10'.");
    }

    @Test
    void emptyOutputScoresNothing() {
        ConformanceScore s = ConformanceScore.parse("iscsi_connect failed. connection refused\n");

        assertThat(s.results()).isEmpty();
        assertThat(s.scoreLine()).isEqualTo("conformance tests=0 pass=0 skip=0 fail=0");
        assertThat(s.completed()).isFalse();
    }
}
