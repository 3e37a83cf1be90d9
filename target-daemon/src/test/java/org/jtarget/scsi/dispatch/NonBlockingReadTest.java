package org.jtarget.scsi.dispatch;

import org.jtarget.scsi.lun.CoreHarness;
import org.jtarget.scsi.lun.TestStore;
import org.jtarget.scsi.spi.ScsiCommand;
import org.jtarget.scsi.spi.ScsiStatus;
import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A READ on a blocking store whose blocks are in memory (a page cache) completes on the event loop
 * with no I/O executor round trip; anything else still goes through the executor.
 */
class NonBlockingReadTest {

    private static final byte[] READ_10_LBA_4_TWO_BLOCKS = {0x28, 0, 0, 0, 0, 4, 0, 0, 2, 0};
    private static final byte[] WRITE_10_LBA_4_ONE_BLOCK = {0x2a, 0, 0, 0, 0, 4, 0, 0, 1, 0};

    private final TestStore store = new TestStore(512, 64, false, false);
    private final CoreHarness h = CoreHarness.of(store, false);

    {
        for (int i = 0; i < store.data.length; i++) {
            store.data[i] = (byte) (i * 3);
        }
    }

    @Test
    void aCachedReadCompletesAtOnceWithTheRightBlocks() {
        store.cached = true;
        ScsiCommand cmd = h.submit(CoreHarness.NEXUS_A, 0, 1, READ_10_LBA_4_TWO_BLOCKS, 1024, null);
        assertThat(h.io).as("no I/O thread needed").isEmpty();
        CoreHarness.Result r = h.results.get(cmd);
        assertThat(r.status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(r.dataIn()).isEqualTo(Arrays.copyOfRange(store.data, 4 * 512, 6 * 512));
        assertThat(store.calls).containsExactly("cached read 4 2");
    }

    @Test
    void anUncachedReadGoesThroughTheIoExecutor() {
        ScsiCommand cmd = h.submit(CoreHarness.NEXUS_A, 0, 1, READ_10_LBA_4_TWO_BLOCKS, 1024, null);
        assertThat(h.results).doesNotContainKey(cmd);
        assertThat(h.io).hasSize(1);
        h.runIo();
        assertThat(h.results.get(cmd).dataIn()).isEqualTo(Arrays.copyOfRange(store.data, 4 * 512, 6 * 512));
        assertThat(store.calls).containsExactly("read 4 2");
    }

    @Test
    void writesNeverTakeTheNonBlockingPath() {
        store.cached = true;
        CoreHarness.Result r = h.run(WRITE_10_LBA_4_ONE_BLOCK, 512, new byte[512]);
        assertThat(r.status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(store.calls).containsExactly("write 4 1");
    }
}
