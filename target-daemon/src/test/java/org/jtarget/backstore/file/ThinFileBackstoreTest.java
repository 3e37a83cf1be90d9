package org.jtarget.backstore.file;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.jtarget.backstore.spi.Backstore.ProvisioningRun;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;

/** A thin file store: UNMAP punches holes that free space and read as zeros; GET LBA STATUS sees them. */
class ThinFileBackstoreTest {

    private static final int BS = 512;
    private static final long SIZE = 8L << 20;

    @TempDir
    Path dir;

    private FileBackstore store;

    @BeforeEach
    void open() throws Exception {
        store = FileBackstores.open(new FileStoreSettings("thin0", dir.resolve("thin.img"), SIZE, true, BS, true,
                true, false));
    }

    @AfterEach
    void close() throws IOException {
        store.close();
    }

    private void fill(long lba, int blocks, byte value) throws IOException {
        byte[] data = new byte[blocks * BS];
        Arrays.fill(data, value);
        ByteBuf src = Unpooled.wrappedBuffer(data);
        try {
            store.write(lba, src, false);
        } finally {
            src.release();
        }
    }

    private byte[] read(long lba, int blocks) throws IOException {
        ByteBuf dst = Unpooled.directBuffer(blocks * BS);
        try {
            store.read(lba, blocks, dst);
            byte[] out = new byte[blocks * BS];
            dst.getBytes(0, out);
            return out;
        } finally {
            dst.release();
        }
    }

    @Test
    void aThinFileStoreSupportsUnmapAndReportsItsGranularity() {
        assertThat(store.supportsUnmap()).isTrue();
        assertThat(store.info().thin()).isTrue();
        assertThat(store.unmapGranularityBlocks()).isEqualTo(4096 / BS);
    }

    @Test
    void aNewSparseFileIsDeallocatedEverywhere() throws IOException {
        ProvisioningRun run = store.provisioningRun(0, SIZE / BS);
        assertThat(run.mapped()).isFalse();
        assertThat(run.blocks()).isEqualTo(SIZE / BS);
    }

    @Test
    void writtenBlocksAreMappedAndTheRestIsNot() throws IOException {
        fill(2048, 2048, (byte) 0x5a); // 1 MiB at 1 MiB
        assertThat(store.provisioningRun(0, SIZE / BS)).isEqualTo(new ProvisioningRun(false, 2048));
        assertThat(store.provisioningRun(2048, SIZE / BS - 2048)).isEqualTo(new ProvisioningRun(true, 2048));
        assertThat(store.provisioningRun(4096, 100)).isEqualTo(new ProvisioningRun(false, 100));
    }

    @Test
    void unmapPunchesAHoleThatReadsAsZerosAndIsDeallocated() throws IOException {
        fill(0, 4096, (byte) 0x77);
        store.unmap(1024, 2048);
        assertThat(read(1024, 2048)).containsOnly((byte) 0);
        assertThat(read(1023, 1)).containsOnly((byte) 0x77);
        assertThat(read(3072, 1)).containsOnly((byte) 0x77);
        assertThat(store.provisioningRun(1024, 4096)).isEqualTo(new ProvisioningRun(false, 2048));
    }

    @Test
    void unmapOfAPartialFileSystemBlockZeroesItWithoutTouchingItsNeighbours() throws IOException {
        fill(0, 16, (byte) 0x11);
        store.unmap(3, 2); // inside the first 4 KiB block
        assertThat(read(3, 2)).containsOnly((byte) 0);
        assertThat(read(2, 1)).containsOnly((byte) 0x11);
        assertThat(read(5, 1)).containsOnly((byte) 0x11);
    }

    /**
     * Thin usage (the management API's allocatedBytes): the file's data extents, two runs of 64 KiB
     * written apart; a punched hole gives its space back. The file system may allocate a little
     * more than written (whole blocks), never less.
     */
    @Test
    void allocatedBytesAddUpTheFilesDataExtents() throws Exception {
        assertThat(store.allocatedBytes()).isZero();
        fill(0, 128, (byte) 1);
        fill(8192, 128, (byte) 2);
        long used = store.allocatedBytes();
        assertThat(used).isBetween(128L * 1024, SIZE / 4);
        store.unmap(8192, 128);
        assertThat(store.allocatedBytes()).isBetween(64L * 1024, used - 64L * 1024);
    }
}
