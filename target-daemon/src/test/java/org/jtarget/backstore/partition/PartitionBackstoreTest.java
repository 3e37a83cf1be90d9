package org.jtarget.backstore.partition;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.jtarget.backstore.memory.MemoryBackstore;
import org.jtarget.backstore.spi.Backstore;
import org.jtarget.backstore.spi.BackstoreInfo;
import org.jtarget.backstore.spi.StoreException;
import org.jtarget.scsi.lun.LuIdentity;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PartitionBackstoreTest {

    private static final int BS = 512;

    private final List<ByteBuf> buffers = new ArrayList<>();

    @AfterEach
    void release() {
        buffers.forEach(ByteBuf::release);
    }

    private ByteBuf buffer(int bytes) {
        ByteBuf b = Unpooled.directBuffer(bytes);
        buffers.add(b);
        return b;
    }

    private ByteBuf filled(int blocks, int value) {
        ByteBuf b = buffer(blocks * BS);
        for (int i = 0; i < blocks * BS; i++) {
            b.writeByte(value);
        }
        return b;
    }

    /** A parent that records every call as "method lba blocks". */
    private static final class RecordingStore implements Backstore {
        final List<String> calls = new ArrayList<>();
        final BackstoreInfo info;
        int granularity = 1;
        boolean closed;

        RecordingStore(long blocks, int exponent) {
            info = new BackstoreInfo(BS, blocks, true, true, false, 256, 64, "file:/data/f.img", exponent);
        }

        @Override public BackstoreInfo info() { return info; }
        @Override public String name() { return "file0"; }
        @Override public boolean isNonBlocking() { return false; }
        @Override public void read(long lba, int blocks, ByteBuf dst) { calls.add("read " + lba + " " + blocks); }
        @Override public void write(long lba, ByteBuf src, boolean fua) {
            calls.add("write " + lba + " " + src.readableBytes() / BS + " " + fua);
        }
        @Override public void flush(long lba, long blocks) { calls.add("flush " + lba + " " + blocks); }
        @Override public boolean supportsUnmap() { return true; }
        @Override public void unmap(long lba, long blocks) { calls.add("unmap " + lba + " " + blocks); }
        @Override public int unmapGranularityBlocks() { return granularity; }
        @Override public ProvisioningRun provisioningRun(long lba, long maxBlocks) {
            calls.add("provisioning " + lba + " " + maxBlocks);
            return new ProvisioningRun(false, maxBlocks);
        }
        @Override public void close() { closed = true; calls.add("close"); }
        @Override public boolean supportsCryptoErase() { return true; }
        @Override public boolean directIo() { return true; }
        @Override public Path backingFile() { return Path.of("/data/f.img"); }
    }

    /** I/O mode and file are the parent's; a crypto erase is not offered: it would erase the siblings. */
    @Test
    void answersCapabilityQueriesForTheParentButNeverCryptoErases() {
        RecordingStore parent = new RecordingStore(1000, 0);
        PartitionBackstore p = new PartitionBackstore("part-b", parent, 100, 300);
        assertThat(p.directIo()).isTrue();
        assertThat(p.backingFile()).isEqualTo(Path.of("/data/f.img"));
        assertThat(p.supportsUnmap()).isTrue();
        assertThat(p.supportsCryptoErase()).isFalse();
        assertThatThrownBy(p::cryptoErase).isInstanceOf(UnsupportedOperationException.class);
        assertThat(parent.calls).isEmpty();
    }

    @Test
    void everyCallIsShiftedByTheOffset() throws IOException {
        RecordingStore parent = new RecordingStore(1000, 0);
        PartitionBackstore p = new PartitionBackstore("part-b", parent, 100, 300);
        p.read(0, 4, buffer(4 * BS));
        p.write(296, filled(4, 1), true);
        p.flush(10, 5);
        p.unmap(7, 3);
        assertThat(p.provisioningRun(299, 1)).isEqualTo(new Backstore.ProvisioningRun(false, 1));
        assertThat(parent.calls).containsExactly("read 100 4", "write 396 4 true", "flush 110 5", "unmap 107 3",
                "provisioning 399 1");
    }

    @Test
    void flushOfZeroBlocksMeansToTheEndOfThePartitionNotOfTheParent() throws IOException {
        RecordingStore parent = new RecordingStore(1000, 0);
        PartitionBackstore p = new PartitionBackstore("part-a", parent, 0, 300);
        p.flush(50, 0);
        assertThat(parent.calls).containsExactly("flush 50 250");
    }

    @Test
    void rangesOutsideThePartitionAreRefusedBeforeReachingTheParent() {
        RecordingStore parent = new RecordingStore(1000, 0);
        PartitionBackstore p = new PartitionBackstore("part-b", parent, 100, 300);
        assertThatThrownBy(() -> p.read(297, 4, buffer(4 * BS))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("outside partition part-b");
        assertThatThrownBy(() -> p.read(-1, 1, buffer(BS))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> p.write(300, filled(1, 0), false)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> p.flush(0, 301)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> p.unmap(Long.MAX_VALUE, 2)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> p.provisioningRun(200, 101)).isInstanceOf(IllegalArgumentException.class);
        assertThat(parent.calls).isEmpty();
    }

    @Test
    void partialBlockWriteIsRefused() {
        PartitionBackstore p = new PartitionBackstore("p", new RecordingStore(1000, 0), 0, 10);
        ByteBuf odd = buffer(BS + 1).writeZero(BS + 1);
        assertThatThrownBy(() -> p.write(0, odd, false)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void extentOutsideTheParentCannotBeBuilt() {
        RecordingStore parent = new RecordingStore(1000, 0);
        assertThatThrownBy(() -> new PartitionBackstore("p", parent, 900, 101))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new PartitionBackstore("p", parent, 0, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new PartitionBackstore("p", parent, -1, 10)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void infoIsTheParentsGeometryWithItsOwnBlockCountAndIdentity() {
        RecordingStore parent = new RecordingStore(1000, 3);
        PartitionBackstore a = new PartitionBackstore("part-a", parent, 0, 100);
        PartitionBackstore b = new PartitionBackstore("part-b", parent, 100, 100);
        assertThat(a.info().blockCount()).isEqualTo(100);
        assertThat(a.info().blockSize()).isEqualTo(BS);
        assertThat(a.info().thin()).isTrue();
        assertThat(a.info().writeCacheEnabled()).isTrue();
        assertThat(a.info().maxTransferBlocks()).isEqualTo(256);
        assertThat(a.info().optimalTransferBlocks()).isEqualTo(64);
        assertThat(a.supportsUnmap()).isTrue();
        assertThat(a.isNonBlocking()).isFalse();
        assertThat(a.info().logicalBlocksPerPhysicalBlockExponent()).isEqualTo(3);
        // 100 is not a multiple of 8 logical blocks per physical block: no alignment claim
        assertThat(b.info().logicalBlocksPerPhysicalBlockExponent()).isZero();
        assertThat(a.info().identitySeed()).isNotEqualTo(b.info().identitySeed())
                .isNotEqualTo(parent.info().identitySeed());
        LuIdentity ia = LuIdentity.fromSeed(a.info().identitySeed());
        LuIdentity ib = LuIdentity.fromSeed(b.info().identitySeed());
        assertThat(ia.naa()).isNotEqualTo(ib.naa());
        assertThat(ia.serial()).isNotEqualTo(ib.serial());
        // stable: the same extent of the same parent gives the same identity
        assertThat(new PartitionBackstore("renamed", parent, 100, 50).info().identitySeed())
                .isEqualTo(b.info().identitySeed());
    }

    @Test
    void unmapGranularityHoldsOnlyWhenThePartitionStartsOnAnAllocationUnit() {
        RecordingStore parent = new RecordingStore(1000, 0);
        parent.granularity = 8;
        assertThat(new PartitionBackstore("p", parent, 16, 10).unmapGranularityBlocks()).isEqualTo(8);
        assertThat(new PartitionBackstore("p", parent, 12, 10).unmapGranularityBlocks()).isEqualTo(1);
    }

    @Test
    void closeFlushesThePartitionLeavesTheParentOpenAndRefusesLaterIo() throws IOException {
        RecordingStore parent = new RecordingStore(1000, 0);
        PartitionBackstore p = new PartitionBackstore("part-b", parent, 100, 300);
        p.close();
        p.close();
        assertThat(parent.calls).containsExactly("flush 100 300");
        assertThat(parent.closed).isFalse();
        assertThatThrownBy(() -> p.read(0, 1, buffer(BS))).isInstanceOf(StoreException.class)
                .extracting(e -> ((StoreException) e).kind()).isEqualTo(StoreException.Kind.MEDIUM_GONE);
    }

    @Test
    void siblingsOverAMemoryStoreKeepTheirBlocksApart() throws Exception {
        try (Backstore parent = new MemoryBackstore("ram0", BS, (4L << 20) / BS, true, false,
                MemoryBackstore.DEFAULT_CHUNK_SIZE)) {
            int unit = parent.unmapGranularityBlocks();
            PartitionBackstore a = new PartitionBackstore("a", parent, 0, unit);
            PartitionBackstore b = new PartitionBackstore("b", parent, unit, 3L * unit);
            a.write(unit - 1, filled(1, 0xAA), false);
            b.write(0, filled(1, 0xBB), false);
            ByteBuf whole = buffer(2 * BS);
            parent.read(unit - 1, 2, whole);
            assertThat(whole.getByte(0)).isEqualTo((byte) 0xAA);
            assertThat(whole.getByte(BS)).isEqualTo((byte) 0xBB);

            // unmap and provisioning state translate too: b's first unit goes, a's stays mapped
            assertThat(b.provisioningRun(0, 1).mapped()).isTrue();
            b.unmap(0, unit);
            assertThat(b.provisioningRun(0, unit).mapped()).isFalse();
            assertThat(a.provisioningRun(unit - 1, 1).mapped()).isTrue();
            ByteBuf back = buffer(BS);
            a.read(unit - 1, 1, back);
            assertThat(back.getByte(0)).isEqualTo((byte) 0xAA);
        }
    }
}
