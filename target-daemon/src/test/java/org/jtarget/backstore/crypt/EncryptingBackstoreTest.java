package org.jtarget.backstore.crypt;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import org.jtarget.backstore.file.FileBackstores;
import org.jtarget.backstore.file.FileStoreSettings;
import org.jtarget.backstore.spi.Backstore;
import org.jtarget.buffer.ScatterList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;

/** The wrapper over a real thin file store: what reaches the disk, zeros, cryptographic erase. */
class EncryptingBackstoreTest {

    private static final int BS = 512;
    private static final long SIZE = 4L << 20;

    @TempDir
    Path dir;

    private Backstore store;

    /** An encrypted file store (key in {@code state/keys/}, made with the file when the file is new). */
    private Backstore openEncrypted(String name, int blockSize, boolean thin) throws Exception {
        Path data = dir.resolve(name + ".img");
        var settings = new FileStoreSettings(name, data, SIZE, true, blockSize, thin, true, false);
        return EncryptingBackstores.open(new EncryptingBackstores.Target(name, data, !Files.exists(data)),
                EncryptingBackstores.Mode.ON, dir.resolve("state"), () -> FileBackstores.open(settings));
    }

    @BeforeEach
    void open() throws Exception {
        store = openEncrypted("enc", BS, true);
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
            assertThat(src.readerIndex()).isZero();
            assertThat(data).containsOnly(value); // the borrowed buffer is not changed
        } finally {
            src.release();
        }
    }

    private byte[] read(long lba, int blocks) throws IOException {
        ByteBuf dst = PooledByteBufAllocator.DEFAULT.directBuffer(blocks * BS + 3);
        try {
            dst.writeBytes(new byte[] {1, 2, 3}); // the store reads at the writer index
            store.read(lba, blocks, dst);
            assertThat(dst.readableBytes()).isEqualTo(3 + blocks * BS);
            byte[] out = new byte[blocks * BS];
            dst.getBytes(3, out);
            return out;
        } finally {
            dst.release();
        }
    }

    private byte[] onDisk(long lba, int blocks) throws IOException {
        store.flush(0, 0);
        byte[] all = Files.readAllBytes(dir.resolve("enc.img"));
        return Arrays.copyOfRange(all, (int) (lba * BS), (int) ((lba + blocks) * BS));
    }

    @Test
    void opensEncryptedWithAKeyFileOfMode0600() throws IOException {
        assertThat(store).isInstanceOf(EncryptingBackstore.class);
        assertThat(store.supportsCryptoErase()).isTrue();
        assertThat(store.supportsUnmap()).isTrue();
        Path key = dir.resolve("state/keys/enc.key");
        assertThat(Files.size(key)).isEqualTo(64);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(key))).isEqualTo("rw-------");
    }

    /** The data-out path (segments as received) is encrypted too: the inner store never sees plaintext. */
    @Test
    void segmentedWritesAreEncryptedAndNeverReadFromTheEventLoop() throws IOException {
        ScatterList segments = new ScatterList();
        segments.add(Unpooled.wrappedBuffer(filledBlocks(1, (byte) 's')));
        segments.add(Unpooled.wrappedBuffer(filledBlocks(2, (byte) 's')));
        try {
            store.write(4, segments, 3 * BS, false);
        } finally {
            segments.clear();
        }
        assertThat(read(4, 3)).containsOnly((byte) 's');
        assertThat(onDisk(4, 3)).isNotEqualTo(filledBlocks(3, (byte) 's'));
        ByteBuf dst = Unpooled.buffer(BS);
        try {
            assertThat(store.tryReadNonBlocking(4, 1, dst)).as("cached ciphertext is not plaintext").isFalse();
            assertThat(dst.writerIndex()).isZero();
        } finally {
            dst.release();
        }
    }

    @Test
    void answersCapabilityQueriesForTheFileBeneath() throws IOException {
        assertThat(store.backingFile()).isEqualTo(dir.resolve("enc.img").toRealPath());
        assertThat(store.directIo()).isFalse();
    }

    private static byte[] filledBlocks(int blocks, byte value) {
        byte[] data = new byte[blocks * BS];
        Arrays.fill(data, value);
        return data;
    }

    @Test
    void roundTripsWhileTheDiskHoldsCiphertext() throws IOException {
        fill(10, 8, (byte) 'a');
        assertThat(read(10, 8)).containsOnly((byte) 'a');
        byte[] disk = onDisk(10, 8);
        assertThat(disk).isNotEqualTo(read(10, 8));
        // XTS: the same plaintext at two LBAs encrypts differently (the tweak is the LBA)
        assertThat(Arrays.copyOfRange(disk, 0, BS)).isNotEqualTo(Arrays.copyOfRange(disk, BS, 2 * BS));
    }

    @Test
    void writtenZerosAreStoredAsCiphertextAndReadBackAsZeros() throws IOException {
        fill(3, 2, (byte) 0);
        assertThat(onDisk(3, 2)).isNotEqualTo(new byte[2 * BS]);
        assertThat(read(3, 2)).containsOnly((byte) 0);
    }

    @Test
    void neverWrittenAndDeallocatedBlocksReadAsZeros() throws IOException {
        assertThat(read(100, 4)).containsOnly((byte) 0);
        fill(0, 16, (byte) 'x');
        store.unmap(0, 16);
        assertThat(read(0, 16)).containsOnly((byte) 0);
    }

    @Test
    void cryptoEraseReplacesTheKeyFileAndOldDataNoLongerDecrypts() throws IOException {
        fill(0, 4, (byte) 'a');
        byte[] before = onDisk(0, 4);
        Path keyFile = dir.resolve("state/keys/enc.key");
        byte[] oldKey = Files.readAllBytes(keyFile);
        store.cryptoErase();
        byte[] newKey = Files.readAllBytes(keyFile);
        assertThat(newKey).hasSize(64).isNotEqualTo(oldKey);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(keyFile))).isEqualTo("rw-------");
        // the ciphertext is still there (the unmap is SANITIZE's job), but reads as noise now
        assertThat(onDisk(0, 4)).isEqualTo(before);
        byte[] after = read(0, 4);
        assertThat(after).isNotEqualTo(new byte[4 * BS]);
        for (byte b : new byte[] {'a'}) {
            byte[] plain = new byte[BS];
            Arrays.fill(plain, b);
            assertThat(Arrays.copyOfRange(after, 0, BS)).isNotEqualTo(plain);
        }
        fill(0, 1, (byte) 'b'); // new writes use the new key
        assertThat(read(0, 1)).containsOnly((byte) 'b');
    }

    @Test
    void reopenedWithTheKeyFileReadsTheData() throws Exception {
        fill(7, 3, (byte) 'q');
        store.close();
        store = openEncrypted("enc", BS, true);
        assertThat(read(7, 3)).containsOnly((byte) 'q');
    }

    @Test
    void fourKiBBlocksOnAFullyProvisionedStore() throws Exception {
        store.close();
        store = openEncrypted("enc4k", 4096, false);
        byte[] data = new byte[3 * 4096];
        new java.util.Random(1).nextBytes(data);
        ByteBuf src = Unpooled.wrappedBuffer(data);
        ByteBuf dst = PooledByteBufAllocator.DEFAULT.directBuffer(data.length);
        try {
            store.write(5, src, true);
            store.read(5, 3, dst);
            byte[] back = new byte[data.length];
            dst.getBytes(0, back);
            assertThat(back).isEqualTo(data);
        } finally {
            src.release();
            dst.release();
        }
        assertThat(store.supportsUnmap()).isFalse();
    }

    @Test
    void keyFileNamesEscapeSeparators() {
        assertThat(KeyFile.of(dir, "../a/b").getFileName().toString()).isEqualTo("%2E.%2Fa%2Fb.key");
        assertThat(KeyFile.of(dir, "disk-0_x.y").getFileName().toString()).isEqualTo("disk-0_x.y.key");
    }
}
