package org.jtarget.scsi.sbc;

import io.netty.buffer.ByteBuf;
import org.jtarget.backstore.spi.Backstore;
import org.jtarget.backstore.spi.BackstoreInfo;
import org.jtarget.scsi.lun.CoreHarness;
import org.jtarget.scsi.lun.LogicalUnitDefinition;
import org.jtarget.scsi.spi.ScsiStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.jtarget.scsi.lun.Cdbs.of;
import static org.jtarget.scsi.lun.Cdbs.rw10;
import static org.jtarget.scsi.lun.Cdbs.rw16;
import static org.jtarget.scsi.lun.Cdbs.rw6;

/**
 * Write cache semantics (SBC-4 6.5.5 caching mode page, 5.22 SYNCHRONIZE CACHE, 4.15 FUA): a
 * recording blocking store logs every durable call in the same list as the command's end, so
 * each test shows what reached stable storage <em>before</em> the status.
 * <ul>
 *   <li>WCE=0: every write is durable (write with fua) before GOOD.</li>
 *   <li>WCE=1: writes are not forced; FUA=1 forces that write; SYNCHRONIZE CACHE flushes.</li>
 *   <li>WCE starts from the store's {@code write-cache} and MODE SELECT changes it for the next write.</li>
 * </ul>
 */
class WriteCacheSemanticsTest {

    private static final int BS = 512;

    /** A blocking store (runs on the LU's executor, as files and devices do) that logs into {@code log}. */
    static final class RecordingStore implements Backstore {
        final BackstoreInfo info;
        List<String> log = new ArrayList<>();

        RecordingStore(boolean writeCache) {
            this.info = new BackstoreInfo(BS, 128, writeCache, false, false, 0, 0, "wce-store");
        }

        @Override public BackstoreInfo info() { return info; }
        @Override public String name() { return "recording"; }
        @Override public boolean isNonBlocking() { return false; }
        @Override public void read(long lba, int blocks, ByteBuf dst) { dst.writeZero(blocks * BS); }
        @Override public void write(long lba, ByteBuf src, boolean fua) {
            log.add("write " + lba + (fua ? " fua" : ""));
        }
        @Override public void flush(long lba, long blocks) { log.add("flush " + lba + " " + blocks); }
        @Override public void close() { }
    }

    /** One LU on a {@link RecordingStore}, with the commands the tests send. */
    static final class Lu {
        final RecordingStore store;
        final CoreHarness h;

        Lu(boolean writeCache) {
            store = new RecordingStore(writeCache);
            h = new CoreHarness(List.of(new LogicalUnitDefinition(0, store, false, false)));
            store.log = h.events; // one ordered log: store calls, then "status"
        }

        int write(byte[] cdb, int blocks) {
            h.events.clear();
            return h.run(cdb, blocks * BS, new byte[blocks * BS]).status();
        }

        List<String> durableCalls() {
            return h.events.stream().filter(e -> !e.startsWith("writePending")).toList();
        }

        /** MODE SENSE(6), caching page (08h), current values, no block descriptors: WCE. */
        boolean wceShown() {
            byte[] d = h.run(of(0x1A, 0x08, 0x08, 0, 255, 0)).dataIn();
            assertThat(d[4] & 0x3F).isEqualTo(0x08);
            return (d[6] & 0x04) != 0;
        }

        /** MODE SELECT(6) of the caching page with WCE as given. */
        void selectWce(boolean wce) {
            byte[] list = new byte[4 + 20];
            list[4] = 0x08;
            list[5] = 0x12;
            list[6] = (byte) (wce ? 0x04 : 0);
            assertThat(h.run(of(0x15, 0x10, 0, 0, list.length, 0), list.length, list).status())
                    .isEqualTo(ScsiStatus.GOOD);
        }
    }

    private final Lu cached = new Lu(true);
    private final CoreHarness h = cached.h;

    private int write(byte[] cdb, int blocks) {
        return cached.write(cdb, blocks);
    }

    private List<String> durableCalls() {
        return cached.durableCalls();
    }

    private boolean wceShown() {
        return cached.wceShown();
    }

    private void selectWce(boolean wce) {
        cached.selectWce(wce);
    }

    @Test
    void wce0FromTheStoreMakesEveryWriteDurableBeforeStatus() {
        Lu t = new Lu(false);
        assertThat(t.wceShown()).isFalse();
        assertThat(t.write(rw10(0x2A, 0, 3, 2), 2)).isEqualTo(ScsiStatus.GOOD);
        assertThat(t.durableCalls()).containsExactly("write 3 fua", "status");
        assertThat(t.write(rw6(0x0A, 4, 1), 1)).isEqualTo(ScsiStatus.GOOD); // WRITE(6) has no FUA bit
        assertThat(t.durableCalls()).containsExactly("write 4 fua", "status");
        assertThat(t.write(rw16(0x8A, 0, 5, 1), 1)).isEqualTo(ScsiStatus.GOOD);
        assertThat(t.durableCalls()).containsExactly("write 5 fua", "status");
    }

    @Test
    void wce1WriteIsNotForced() {
        assertThat(wceShown()).isTrue();
        assertThat(write(rw10(0x2A, 0, 3, 2), 2)).isEqualTo(ScsiStatus.GOOD);
        assertThat(durableCalls()).containsExactly("write 3", "status");
    }

    @ParameterizedTest(name = "opcode {0}")
    @ValueSource(ints = {0x2A, 0xAA, 0x8A})
    void fuaWriteIsDurableEvenWithTheCacheOn(int opcode) {
        byte[] cdb = opcode == 0x8A ? rw16(opcode, 0x08, 7, 1) : rw10(opcode, 0x08, 7, 1);
        if (opcode == 0xAA) { // WRITE(12): LBA 2..5, TRANSFER LENGTH 6..9
            cdb = of(0xAA, 0x08, 0, 0, 0, 7, 0, 0, 0, 1, 0, 0);
        }
        assertThat(write(cdb, 1)).isEqualTo(ScsiStatus.GOOD);
        assertThat(durableCalls()).containsExactly("write 7 fua", "status");
    }

    @Test
    void synchronizeCacheFlushesBeforeStatus() {
        write(rw10(0x2A, 0, 3, 2), 2);
        h.events.clear();
        assertThat(h.run(rw10(0x35, 0, 3, 2), 0, null).status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(h.events).containsExactly("flush 3 2", "status");
        h.events.clear();
        assertThat(h.run(rw16(0x91, 0, 0, 0), 0, null).status()).isEqualTo(ScsiStatus.GOOD); // 0 = to the end
        assertThat(h.events).containsExactly("flush 0 0", "status");
    }

    @Test
    void modeSelectWce0TakesEffectForTheNextWriteAndModeSenseShowsIt() {
        assertThat(write(rw10(0x2A, 0, 1, 1), 1)).isEqualTo(ScsiStatus.GOOD);
        assertThat(durableCalls()).containsExactly("write 1", "status");
        selectWce(false);
        assertThat(wceShown()).isFalse();
        assertThat(write(rw10(0x2A, 0, 2, 1), 1)).isEqualTo(ScsiStatus.GOOD);
        assertThat(durableCalls()).containsExactly("write 2 fua", "status");
        selectWce(true);
        assertThat(wceShown()).isTrue();
        assertThat(write(rw10(0x2A, 0, 3, 1), 1)).isEqualTo(ScsiStatus.GOOD);
        assertThat(durableCalls()).containsExactly("write 3", "status");
    }

    @Test
    void modeSelectWce1OnAStoreWithoutCacheLetsWritesStayCached() {
        Lu t = new Lu(false);
        t.selectWce(true);
        assertThat(t.wceShown()).isTrue();
        assertThat(t.write(rw10(0x2A, 0, 9, 1), 1)).isEqualTo(ScsiStatus.GOOD);
        assertThat(t.durableCalls()).containsExactly("write 9", "status");
    }

    @Test
    void writeAndVerifyIsDurableWithTheCacheOn() {
        assertThat(write(rw10(0x2E, 0, 6, 1), 1)).isEqualTo(ScsiStatus.GOOD);
        assertThat(durableCalls()).startsWith("write 6 fua").endsWith("status");
    }
}
