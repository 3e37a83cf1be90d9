package org.jtarget.backstore.crypt;

import io.netty.buffer.ByteBuf;

import javax.crypto.Cipher;
import javax.crypto.spec.SecretKeySpec;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.security.GeneralSecurityException;

/**
 * XTS-AES (IEEE 1619-2007, NIST SP 800-38E) for whole data units that are a multiple of 16 bytes
 * (no ciphertext stealing: logical blocks are 512 or 4096 bytes). The JDK has no XTS mode, so it
 * is built on {@code AES/ECB/NoPadding}, whose AES-NI intrinsics do the work:
 * <pre>
 * T0 = AES-enc(key2, i)                  i = the data unit number (here the LBA), 128-bit little-endian
 * C_j = AES-enc(key1, P_j xor T_j) xor T_j
 * T_j+1 = T_j * alpha in GF(2^128)       (IEEE 1619 5.2: shift left by one bit, reduce with 87h)
 * </pre>
 * Per data unit: one ECB call for T0, the mask T_0..T_n-1 built in a scratch array, and one ECB call
 * over the masked unit. As dm-crypt's {@code aes-xts-plain64}: i is the sector number.
 *
 * <p>Not thread-safe: one instance per thread (its Ciphers and scratch arrays are reused, so
 * encrypting allocates nothing). {@link #rekey} switches it to another {@link XtsKey}.
 */
public final class XtsAes {

    /** The AES block, the unit the tweak steps over. */
    static final int AES_BLOCK = 16;
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    /** x^128 = x^7 + x^2 + x + 1: the reduction when the top bit shifts out (IEEE 1619 5.2). */
    private static final long GF_128_FDBK = 0x87;

    private final Cipher dataEncrypt;
    private final Cipher dataDecrypt;
    private final Cipher tweakEncrypt;
    private final byte[] tweak = new byte[AES_BLOCK];
    private byte[] unit = new byte[0];
    private byte[] mask = new byte[0];
    private XtsKey key;

    /** An engine for {@code key}. */
    public XtsAes(XtsKey key) {
        try {
            dataEncrypt = Cipher.getInstance("AES/ECB/NoPadding");
            dataDecrypt = Cipher.getInstance("AES/ECB/NoPadding");
            tweakEncrypt = Cipher.getInstance("AES/ECB/NoPadding");
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK has no AES/ECB/NoPadding", e);
        }
        rekey(key);
    }

    /** The key this engine uses now. */
    public XtsKey key() {
        return key;
    }

    /** Uses {@code next} from now on (after a cryptographic erase). */
    public void rekey(XtsKey next) {
        try {
            dataEncrypt.init(Cipher.ENCRYPT_MODE, next.dataKey());
            dataDecrypt.init(Cipher.DECRYPT_MODE, next.dataKey());
            tweakEncrypt.init(Cipher.ENCRYPT_MODE, next.tweakKey());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES refused a " + next.dataKey().getEncoded().length + "-byte key", e);
        }
        this.key = next;
    }

    /** Encrypts {@code data} (a multiple of 16 bytes) in place as data unit {@code unitNumber}. */
    public void encrypt(byte[] data, long unitNumber) {
        transform(data, 0, data.length, unitNumber, dataEncrypt);
    }

    /** Decrypts {@code data} (a multiple of 16 bytes) in place as data unit {@code unitNumber}. */
    public void decrypt(byte[] data, long unitNumber) {
        transform(data, 0, data.length, unitNumber, dataDecrypt);
    }

    /**
     * Encrypts {@code units} data units of {@code unitSize} bytes, numbered from {@code firstUnit},
     * from {@code src} at {@code srcIndex} to {@code dst} at {@code dstIndex}. Indexes of neither
     * buffer change.
     */
    public void encrypt(ByteBuf src, int srcIndex, ByteBuf dst, int dstIndex, int unitSize, int units,
                        long firstUnit) {
        byte[] buf = scratch(unitSize);
        for (int u = 0; u < units; u++) {
            src.getBytes(srcIndex + u * unitSize, buf, 0, unitSize);
            transform(buf, 0, unitSize, firstUnit + u, dataEncrypt);
            dst.setBytes(dstIndex + u * unitSize, buf, 0, unitSize);
        }
    }

    /**
     * Decrypts {@code units} data units of {@code unitSize} bytes in place in {@code buf} at
     * {@code index}, numbered from {@code firstUnit}. A unit whose ciphertext is all zeros is left
     * as zeros: it is a deallocated block of a thin store (which reads as zeros, LBPRZ = 1) or one
     * never written, not ciphertext; real ciphertext is all zeros with probability 2^-(8 * unitSize).
     */
    public void decryptInPlace(ByteBuf buf, int index, int unitSize, int units, long firstUnit) {
        byte[] b = scratch(unitSize);
        for (int u = 0; u < units; u++) {
            int at = index + u * unitSize;
            buf.getBytes(at, b, 0, unitSize);
            if (isZero(b, unitSize)) {
                continue;
            }
            transform(b, 0, unitSize, firstUnit + u, dataDecrypt);
            buf.setBytes(at, b, 0, unitSize);
        }
    }

    private byte[] scratch(int unitSize) {
        if (unit.length < unitSize) {
            unit = new byte[unitSize];
            mask = new byte[unitSize];
        }
        return unit;
    }

    static boolean isZero(byte[] b, int length) {
        long any = 0;
        for (int i = 0; i < length; i += Long.BYTES) {
            any |= (long) LONGS.get(b, i);
        }
        return any == 0;
    }

    /** One data unit in place: mask with the tweaks, ECB, mask again. */
    private void transform(byte[] data, int offset, int length, long unitNumber, Cipher cipher) {
        if (length % AES_BLOCK != 0) {
            throw new IllegalArgumentException("data unit of " + length + " bytes is not a multiple of 16");
        }
        if (mask.length < length) {
            mask = new byte[length];
        }
        buildMask(unitNumber, length);
        xor(data, offset, length);
        try {
            cipher.update(data, offset, length, data, offset);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES/ECB failed on whole blocks", e);
        }
        xor(data, offset, length);
    }

    /** mask = T_0 .. T_n-1 for data unit {@code unitNumber} (IEEE 1619 5.3.1 step 1 and the alpha steps). */
    private void buildMask(long unitNumber, int length) {
        LONGS.set(tweak, 0, unitNumber);
        LONGS.set(tweak, Long.BYTES, 0L);
        try {
            tweakEncrypt.update(tweak, 0, AES_BLOCK, tweak, 0);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES/ECB failed on one block", e);
        }
        long lo = (long) LONGS.get(tweak, 0);
        long hi = (long) LONGS.get(tweak, Long.BYTES);
        for (int j = 0; j < length; j += AES_BLOCK) {
            LONGS.set(mask, j, lo);
            LONGS.set(mask, j + Long.BYTES, hi);
            long carry = hi >>> 63;
            hi = (hi << 1) | (lo >>> 63);
            lo = (lo << 1) ^ (carry * GF_128_FDBK);
        }
    }

    private void xor(byte[] data, int offset, int length) {
        for (int i = 0; i < length; i += Long.BYTES) {
            LONGS.set(data, offset + i, (long) LONGS.get(data, offset + i) ^ (long) LONGS.get(mask, i));
        }
    }

    /** For {@link XtsKey}: the AES key spec of one half. */
    static SecretKeySpec aesKey(byte[] material, int offset, int length) {
        return new SecretKeySpec(material, offset, length, "AES");
    }
}
