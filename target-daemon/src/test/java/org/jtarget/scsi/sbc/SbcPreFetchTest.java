package org.jtarget.scsi.sbc;

import org.jtarget.scsi.lun.CoreHarness;
import org.jtarget.scsi.lun.CoreHarness.Result;
import org.jtarget.scsi.lun.TestStore;
import org.jtarget.scsi.spi.ScsiStatus;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.jtarget.scsi.lun.Cdbs.*;

class SbcPreFetchTest {

    private static final int BLOCKS = 300;
    private final TestStore store = new TestStore(512, BLOCKS, false, false);
    private final CoreHarness h = CoreHarness.of(store, false);

    static Stream<Arguments> good() {
        return Stream.of(
                Arguments.of("10: 256 blocks at the start", rw10(0x34, 0, 0, 256)),
                Arguments.of("10: last block, IMMED", rw10(0x34, 0x02, BLOCKS - 1, 1)),
                Arguments.of("10: 0 blocks at LBA 0", rw10(0x34, 0, 0, 0)),
                Arguments.of("16: 256 blocks at the end", rw16(0x90, 0, BLOCKS - 256, 256)),
                Arguments.of("16: 0 blocks at LBA 0", rw16(0x90, 0, 0, 0)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("good")
    void inRangePrefetchIsGoodNotConditionMetAndDoesNoIo(String name, byte[] cdb) {
        Result r = h.run(cdb, 0, null);
        assertThat(r.status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(store.calls).isEmpty();
        assertThat(h.io).isEmpty();
    }

    static Stream<Arguments> outOfRange() {
        return Stream.of(
                Arguments.of("10: past the end", rw10(0x34, 0, BLOCKS - 1, 2)),
                Arguments.of("10: 0 blocks one past the end", rw10(0x34, 0, BLOCKS + 1, 0)),
                Arguments.of("10: LBA 2^31", rw10(0x34, 0, 0x80000000L, 0)),
                Arguments.of("10: LBA -1", rw10(0x34, 0, 0xFFFFFFFFL, 0)),
                Arguments.of("16: LBA 2^63", rw16(0x90, 0, Long.MIN_VALUE, 1)),
                Arguments.of("16: LBA -1", rw16(0x90, 0, -1L, 0)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("outOfRange")
    void lbaOutOfRangeGivesIllegalRequest(String name, byte[] cdb) {
        Result r = h.run(cdb, 0, null);
        assertThat(r.status()).isEqualTo(ScsiStatus.CHECK_CONDITION);
        assertThat(new int[]{r.senseKey(), r.asc()}).containsExactly(5, 0x21);
    }
}
