package org.jtarget.backstore.crypt;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import org.jtarget.backstore.spi.Backstore;
import org.jtarget.backstore.spi.ForwardingBackstore;
import org.jtarget.buffer.ScatterList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Path;
import java.security.SecureRandom;

/**
 * Encryption at rest over another store: every logical block is stored as XTS-AES-256 ciphertext
 * (IEEE 1619, the dm-crypt/LUKS default {@code aes-xts-plain64}): one data unit per logical block,
 * its LBA as the data unit number. What the store holds on disk is never the plaintext; the key
 * lives in a {@link KeyFile} under the daemon's state directory, and {@link #cryptoErase} replaces
 * it, which is SANITIZE CRYPTOGRAPHIC ERASE (SBC-4 4.11, 5.30.3).
 *
 * <p>Writes encrypt into a pooled direct buffer (the caller's buffer is borrowed and never
 * changed) and hand that to the inner store; reads let the inner store fill the caller's buffer
 * and decrypt it in place. Each thread has its own {@link XtsAes} (Ciphers and scratch arrays made
 * once), so I/O allocates nothing beyond the pooled buffer.
 *
 * <p>Deallocated blocks: a thin store reads them as zeros (LBPRZ = 1), and so must this one. An
 * all-zero ciphertext block is therefore returned as zeros without decrypting: XTS output is
 * uniformly random, so a written 512-byte block encrypts to all zeros with probability 2^-4096.
 * The same rule makes never-written blocks of a sparse file read as zeros.
 */
public final class EncryptingBackstore extends ForwardingBackstore {

    private static final Logger LOG = LoggerFactory.getLogger(EncryptingBackstore.class);

    private final Path keyFile;
    private final ByteBufAllocator alloc;
    private final SecureRandom random;
    private final int blockSize;
    private final ThreadLocal<XtsAes> engines;
    private volatile XtsKey key;

    /**
     * Wraps {@code inner} (consumed: closing this closes it) with {@code key}, whose key file is
     * {@code keyFile}; write buffers come from {@code alloc}.
     */
    public EncryptingBackstore(Backstore inner, Path keyFile, XtsKey key, ByteBufAllocator alloc,
                               SecureRandom random) {
        super(inner);
        this.keyFile = keyFile;
        this.key = key;
        this.alloc = alloc;
        this.random = random;
        this.blockSize = inner.info().blockSize();
        if (blockSize % XtsAes.AES_BLOCK != 0) {
            throw new IllegalArgumentException("block size " + blockSize + " is not a multiple of 16");
        }
        this.engines = ThreadLocal.withInitial(() -> new XtsAes(this.key));
    }

    /** This thread's engine, on the current key. */
    private XtsAes engine() {
        XtsAes e = engines.get();
        XtsKey k = key;
        if (e.key() != k) {
            e.rekey(k);
        }
        return e;
    }

    /** Reads the ciphertext into {@code dst} (borrowed) and decrypts it there. */
    @Override
    public void read(long lba, int blocks, ByteBuf dst) throws IOException {
        int at = dst.writerIndex();
        delegate().read(lba, blocks, dst);
        engine().decryptInPlace(dst, at, blockSize, blocks, lba);
    }

    /** Encrypts {@code src} (borrowed, unchanged) into a pooled buffer and writes that. */
    @Override
    public void write(long lba, ByteBuf src, boolean fua) throws IOException {
        int length = src.readableBytes();
        ByteBuf cipherText = alloc.directBuffer(length, length);
        try {
            engine().encrypt(src, src.readerIndex(), cipherText, 0, blockSize, length / blockSize, lba);
            cipherText.writerIndex(length);
            delegate().write(lba, cipherText, fua);
        } finally {
            cipherText.release();
        }
    }

    /** The segments as one view, encrypted like any write (the inner store must never see the plaintext). */
    @Override
    public void write(long lba, ScatterList src, int length, boolean fua) throws IOException {
        write(lba, Backstore.firstBytes(src, length), fua);
    }

    /**
     * Never from the event loop: what the inner store has cached is ciphertext, and decrypting is
     * work for the LU's I/O thread.
     */
    @Override
    public boolean tryReadNonBlocking(long lba, int blocks, ByteBuf dst) {
        return false;
    }

    /**
     * Grows the store beneath: the tweak of every block is its LBA, so the blocks there keep their
     * ciphertext, and new blocks read as zeros because an all-zero ciphertext block reads as zeros
     * (see the class comment).
     */
    @Override
    public void grow(long blockCount) throws IOException {
        delegate().grow(blockCount);
    }

    /** The store beneath holds the ciphertext block for block: its usage is this store's. */
    @Override
    public long allocatedBytes() throws IOException {
        return delegate().allocatedBytes();
    }

    @Override
    public boolean supportsCryptoErase() {
        return true;
    }

    /**
     * A new random key, made durable in the key file before it is used; the old key file's bytes are
     * overwritten and the old key's bytes wiped from memory. Ciphertext written under the old key
     * decrypts to noise from now on. The caller (SANITIZE) holds the whole LU, so no I/O runs.
     */
    @Override
    public synchronized void cryptoErase() throws IOException {
        XtsKey next = XtsKey.generate(random);
        KeyFile.replace(keyFile, next);
        XtsKey old = key;
        key = next;
        old.destroy();
        LOG.info("backstore {}: cryptographic erase: new key in {}", name(), keyFile);
    }

    /** Closes the inner store and wipes the key from memory. */
    @Override
    public void close() throws IOException {
        try {
            super.close();
        } finally {
            key.destroy();
        }
    }
}
