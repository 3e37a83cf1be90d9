package org.jtarget.initiator.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class LatencyHistogramTest {

    private static final double RESOLUTION = 1.0 / LatencyHistogram.SUB_BUCKETS;

    @Test
    void bucketsCoverEveryValueContiguouslyAndEachHoldsItsOwnBounds() {
        int last = LatencyHistogram.index(LatencyHistogram.MAX_TRACKABLE);
        for (int i = 0; i <= last; i++) {
            long lo = LatencyHistogram.lowestInBucket(i);
            long hi = LatencyHistogram.highestInBucket(i);
            assertThat(LatencyHistogram.index(lo)).as("bucket %d lowest %d", i, lo).isEqualTo(i);
            assertThat(LatencyHistogram.index(hi)).as("bucket %d highest %d", i, hi).isEqualTo(i);
            if (i > 0) {
                assertThat(LatencyHistogram.highestInBucket(i - 1) + 1).isEqualTo(lo);
            }
            assertThat((double) (hi - lo)).as("bucket %d width", i).isLessThanOrEqualTo(Math.max(0, lo * RESOLUTION));
        }
        assertThat(LatencyHistogram.highestInBucket(last)).isEqualTo(LatencyHistogram.MAX_TRACKABLE);
    }

    @Test
    void smallValuesAreExact() {
        LatencyHistogram h = new LatencyHistogram();
        for (long v = 1; v <= 100; v++) {
            h.record(v);
        }
        assertThat(h.percentile(50)).isEqualTo(50);
        assertThat(h.percentile(99)).isEqualTo(99);
        assertThat(h.percentile(100)).isEqualTo(100);
        assertThat(h.min()).isEqualTo(1);
        assertThat(h.max()).isEqualTo(100);
        assertThat(h.mean()).isEqualTo(50.5);
    }

    @Test
    void percentilesOfALogNormalSampleAreWithinTheResolutionOfTheExactOnes() {
        SplittableRandom r = new SplittableRandom(42);
        long[] values = new long[200_000];
        LatencyHistogram h = new LatencyHistogram();
        for (int i = 0; i < values.length; i++) {
            values[i] = (long) Math.exp(11 + 1.5 * gaussian(r)); // ~60 us median, tails into seconds
            h.record(values[i]);
        }
        Arrays.sort(values);
        for (double p : new double[] {1, 10, 50, 90, 99, 99.9, 99.99, 100}) {
            long exact = values[(int) Math.ceil(p / 100 * values.length) - 1];
            assertThat((double) h.percentile(p)).as("p%s", p).isCloseTo(exact, within(exact * RESOLUTION + 1));
            assertThat(h.percentile(p)).as("never below the exact value: the bucket's top is reported")
                    .isGreaterThanOrEqualTo(exact);
        }
        assertThat(h.min()).isEqualTo(values[0]);
        assertThat(h.max()).isEqualTo(values[values.length - 1]);
        assertThat(h.count()).isEqualTo(values.length);
    }

    private static double gaussian(SplittableRandom r) {
        return Math.sqrt(-2 * Math.log(1 - r.nextDouble())) * Math.cos(2 * Math.PI * r.nextDouble());
    }

    @Test
    void percentilesAreOrderedAndNeverPastMax() {
        LatencyHistogram h = new LatencyHistogram();
        h.record(1_000_001);
        h.record(1_000_003);
        h.record(5_000_000_000L);
        assertThat(h.percentile(50)).isBetween(1_000_003L, 1_000_003L + 1_000_003L / LatencyHistogram.SUB_BUCKETS);
        assertThat(h.percentile(99)).isEqualTo(5_000_000_000L).isEqualTo(h.max());
        assertThat(h.percentile(1)).isGreaterThanOrEqualTo(h.min());
    }

    @Test
    void aSingleValueIsReportedExactly() {
        LatencyHistogram h = new LatencyHistogram();
        h.record(123_456_789);
        assertThat(h.percentile(50)).isEqualTo(123_456_789);
        assertThat(h.percentile(99.9)).isEqualTo(123_456_789);
    }

    @Test
    void mergingAddsCountsAndKeepsExtremes() {
        LatencyHistogram a = new LatencyHistogram();
        LatencyHistogram b = new LatencyHistogram();
        for (int i = 0; i < 99; i++) {
            a.record(10_000);
        }
        b.record(2_000_000);
        b.record(5);
        a.add(b);
        assertThat(a.count()).isEqualTo(101);
        assertThat(a.min()).isEqualTo(5);
        assertThat(a.max()).isEqualTo(2_000_000);
        assertThat(a.percentile(50)).isBetween(10_000L, 10_000L + 10_000L / LatencyHistogram.SUB_BUCKETS);
        assertThat(a.percentile(100)).isEqualTo(2_000_000);
    }

    @Test
    void emptyHistogramReportsZeros() {
        LatencyHistogram h = new LatencyHistogram();
        assertThat(h.percentile(99)).isZero();
        assertThat(h.min()).isZero();
        assertThat(h.max()).isZero();
        assertThat(h.mean()).isZero();
    }

    @Test
    void outOfRangeValuesAreClampedAndBadPercentilesRefused() {
        LatencyHistogram h = new LatencyHistogram();
        h.record(-5);
        h.record(Long.MAX_VALUE);
        assertThat(h.min()).isZero();
        assertThat(h.max()).isEqualTo(LatencyHistogram.MAX_TRACKABLE);
        assertThatThrownBy(() -> h.percentile(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> h.percentile(100.1)).isInstanceOf(IllegalArgumentException.class);
    }
}
