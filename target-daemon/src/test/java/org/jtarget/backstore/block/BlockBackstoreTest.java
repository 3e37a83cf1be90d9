package org.jtarget.backstore.block;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.jtarget.backstore.spi.StoreException;
import org.jtarget.backstore.spi.StoreException.Kind;
import org.jtarget.backstore.spi.StoreOpenException.Setting;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.jtarget.backstore.spi.OpenRefusals.about;

/**
 * The block store against real loop devices (skipped, with the reason, where losetup cannot attach
 * one): geometry from the device, config checks, data round trips, exclusive open, unmap zeroing
 * and deallocating; plus the errno mapping, which needs no device.
 */
class BlockBackstoreTest {

    private static final long DEVICE_BYTES = 16L << 20;

    @TempDir
    static Path dir;
    private static LoopDevice loop512;
    private static LoopDevice loop4k;

    @BeforeAll
    static void attach() throws Exception {
        loop512 = LoopDevice.attach(dir.resolve("disk512.img"), DEVICE_BYTES, 512);
        loop4k = LoopDevice.attach(dir.resolve("disk4k.img"), DEVICE_BYTES, 4096);
    }

    @AfterAll
    static void detach() throws Exception {
        try (LoopDevice a = loop512; LoopDevice b = loop4k) {
            // closing detaches both, even if one fails
        }
    }

    /** direct null: the daemon's default for block stores, O_DIRECT. */
    private static BlockStoreSettings config(LoopDevice loop, long size, int blockSize, boolean thin, Boolean direct) {
        return new BlockStoreSettings("disk0", loop.device(), size, blockSize, thin, true, direct == null || direct);
    }

    private static byte[] random(int bytes, long seed) {
        byte[] b = new byte[bytes];
        new Random(seed).nextBytes(b);
        return b;
    }

    private static byte[] read(BlockBackstore store, long lba, int blocks) throws IOException {
        ByteBuf dst = Unpooled.directBuffer(blocks * store.info().blockSize());
        try {
            store.read(lba, blocks, dst);
            byte[] out = new byte[dst.readableBytes()];
            dst.readBytes(out);
            return out;
        } finally {
            dst.release();
        }
    }

    private static void write(BlockBackstore store, long lba, byte[] data, boolean fua) throws IOException {
        ByteBuf src = Unpooled.directBuffer(data.length + 1).writeByte(0).writeBytes(data).skipBytes(1);
        try {
            store.write(lba, src, fua);
        } finally {
            src.release();
        }
    }

    @Test
    void sizeAndBlockSizeComeFromTheDevice() throws Exception {
        try (BlockBackstore store = BlockBackstores.open(config(loop512, 0, 0, false, null))) {
            assertThat(store.info().blockSize()).isEqualTo(512);
            assertThat(store.info().blockCount()).isEqualTo(DEVICE_BYTES / 512);
            assertThat(store.info().identitySeed()).isEqualTo("block:" + loop512.device().toRealPath());
            assertThat(store.info().writeCacheEnabled()).isTrue();
            assertThat(store.directIo()).as("direct by default").isTrue();
            assertThat(store.supportsUnmap()).isFalse();
        }
        try (BlockBackstore store = BlockBackstores.open(config(loop4k, DEVICE_BYTES, 4096, false, false))) {
            assertThat(store.info().blockSize()).isEqualTo(4096);
            assertThat(store.info().blockCount()).isEqualTo(DEVICE_BYTES / 4096);
            assertThat(store.directIo()).isFalse();
        }
    }

    @Test
    void aBlockSizeOtherThanTheDevicesIsRefused() {
        assertThatThrownBy(() -> BlockBackstores.open(config(loop4k, 0, 512, false, null)))
                .is(about(Setting.BLOCK_SIZE))
                .hasMessageContaining("4096-byte logical blocks");
    }

    @Test
    void aSizeOtherThanTheDevicesIsRefused() {
        assertThatThrownBy(() -> BlockBackstores.open(config(loop512, 1L << 20, 0, false, null)))
                .is(about(Setting.SIZE))
                .hasMessageContaining("is " + DEVICE_BYTES + " bytes");
    }

    @Test
    void aSecondOpenOfTheSameDeviceSaysItIsInUse() throws Exception {
        try (BlockBackstore first = BlockBackstores.open(config(loop512, 0, 0, false, null))) {
            assertThatThrownBy(() -> BlockBackstores.open(config(loop512, 0, 0, false, null)))
                    .is(about(Setting.PATH))
                    .hasMessageContaining("is in use")
                    .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
        }
        BlockBackstores.open(config(loop512, 0, 0, false, null)).close(); // free again after close
    }

    @Test
    void dataRoundTripsWithAndWithoutODirectAndReachesTheDevice() throws Exception {
        for (Boolean direct : new Boolean[] {true, false}) {
            byte[] data = random(3 << 20, direct ? 1 : 2); // larger than one bounce segment
            try (BlockBackstore store = BlockBackstores.open(config(loop512, 0, 0, false, direct))) {
                write(store, 3, data, true);
                assertThat(read(store, 3, data.length / 512)).as("read back, direct " + direct).isEqualTo(data);
                store.flush(0, 0);
            }
            byte[] onFile = Arrays.copyOfRange(Files.readAllBytes(loop512.backing()), 3 * 512, 3 * 512 + data.length);
            assertThat(onFile).as("the loop device's file holds the data, direct " + direct).isEqualTo(data);
        }
    }

    @Test
    void fourKBlocksRoundTripThroughAnAlignedBuffer() throws Exception {
        byte[] data = random(64 << 10, 3);
        try (BlockBackstore store = BlockBackstores.open(config(loop4k, 0, 0, false, true))) {
            ByteBuf src = Unpooled.directBuffer(data.length).writeBytes(data);
            try {
                store.write(5, src, false);
            } finally {
                src.release();
            }
            assertThat(read(store, 5, 16)).isEqualTo(data);
        }
    }

    @Test
    void unmapZeroesTheRangeAndFreesTheLoopFilesBlocks() throws Exception {
        try (BlockBackstore store = BlockBackstores.open(config(loop512, 0, 0, true, null))) {
            assertThat(store.supportsUnmap()).isTrue();
            assertThat(store.info().thin()).as("LBPRZ: deallocated blocks read as zeros").isTrue();
            byte[] data = random(4 << 20, 4);
            write(store, 0, data, false);
            store.flush(0, 0);
            long before = loop512.allocatedBytes();

            store.unmap(2048, 4096); // 2 MiB from 1 MiB

            assertThat(read(store, 2048, 4096)).containsOnly((byte) 0);
            assertThat(read(store, 2047, 1)).isEqualTo(Arrays.copyOfRange(data, 2047 * 512, 2048 * 512));
            assertThat(read(store, 6144, 1)).isEqualTo(Arrays.copyOfRange(data, 6144 * 512, 6145 * 512));
            assertThat(before - loop512.allocatedBytes()).as("the loop file frees the unmapped 2 MiB")
                    .isGreaterThanOrEqualTo(2L << 20);
        }
    }

    @Test
    void readsAndWritesOutsideTheDeviceAreRefused() throws Exception {
        try (BlockBackstore store = BlockBackstores.open(config(loop512, 0, 0, false, null))) {
            assertThatThrownBy(() -> read(store, DEVICE_BYTES / 512, 1)).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void aClosedStoreIsMediumGone() throws Exception {
        BlockBackstore store = BlockBackstores.open(config(loop512, 0, 0, false, null));
        store.close();
        assertThatThrownBy(() -> read(store, 0, 1)).isInstanceOf(StoreException.class)
                .satisfies(e -> assertThat(((StoreException) e).kind()).isEqualTo(Kind.MEDIUM_GONE));
    }

    @Test
    void errnoMapsToTheStoreErrorKind() {
        assertThat(kind(NativeIo.EIO, false)).isEqualTo(Kind.READ_ERROR);
        assertThat(kind(NativeIo.EIO, true)).isEqualTo(Kind.WRITE_ERROR);
        assertThat(kind(NativeIo.ENOSPC, true)).isEqualTo(Kind.SPACE_EXHAUSTED);
        assertThat(kind(NativeIo.EDQUOT, true)).isEqualTo(Kind.SPACE_EXHAUSTED);
        assertThat(kind(NativeIo.ENODEV, false)).isEqualTo(Kind.MEDIUM_GONE);
        assertThat(kind(NativeIo.ENXIO, true)).isEqualTo(Kind.MEDIUM_GONE);
        assertThat(kind(NativeIo.EINVAL, true)).isEqualTo(Kind.WRITE_ERROR);
        StoreException e = BlockBackstore.classify("disk0", new ErrnoException("pwrite", "/dev/x", NativeIo.ENOSPC), true);
        assertThat(e).hasMessage("block store disk0: pwrite on /dev/x failed: errno 28 (No space left on device)");
    }

    private static Kind kind(int errno, boolean writing) {
        return BlockBackstore.classify("disk0", new ErrnoException("pread", "/dev/x", errno), writing).kind();
    }

    @Test
    void physicalBlockExponent() {
        assertThat(BlockBackstores.exponent(512, 512)).isZero();
        assertThat(BlockBackstores.exponent(512, 4096)).isEqualTo(3);
        assertThat(BlockBackstores.exponent(4096, 4096)).isZero();
        assertThat(BlockBackstores.exponent(512, 1536)).isZero();
    }

    @Test
    void deviceNumbersDecodeLikeGlibc() {
        assertThat(BlockQueueLimits.major(0x0700L)).isEqualTo(7);
        assertThat(BlockQueueLimits.minor(0x0703L)).isEqualTo(3);
        long dev = (259L << 8) | (300L & 0xff) | ((300L & ~0xffL) << 12); // 259:300
        assertThat(BlockQueueLimits.major(dev)).isEqualTo(259);
        assertThat(BlockQueueLimits.minor(dev)).isEqualTo(300);
    }
}
