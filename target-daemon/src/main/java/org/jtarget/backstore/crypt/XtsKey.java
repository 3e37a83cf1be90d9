package org.jtarget.backstore.crypt;

import javax.crypto.spec.SecretKeySpec;
import javax.security.auth.DestroyFailedException;
import java.security.SecureRandom;
import java.util.Arrays;

/**
 * An XTS key: key1 (data) and key2 (tweak) of equal length, stored as key1 || key2 as in IEEE
 * 1619 and dm-crypt. 64 bytes is XTS-AES-256, what stores use; 32 bytes (XTS-AES-128) is accepted
 * for the standard's test vectors.
 */
public final class XtsKey {

    /** The key length of XTS-AES-256: two AES-256 keys. */
    public static final int XTS_AES_256_BYTES = 64;

    private final byte[] material;
    private final SecretKeySpec dataKey;
    private final SecretKeySpec tweakKey;

    private XtsKey(byte[] material) {
        if (material.length != XTS_AES_256_BYTES && material.length != 32) {
            throw new IllegalArgumentException("an XTS-AES key is 32 or 64 bytes, got " + material.length);
        }
        this.material = material;
        int half = material.length / 2;
        this.dataKey = XtsAes.aesKey(material, 0, half);
        this.tweakKey = XtsAes.aesKey(material, half, half);
    }

    /** A key from key1 || key2 (copied: the caller may wipe its array). */
    public static XtsKey of(byte[] key1AndKey2) {
        return new XtsKey(key1AndKey2.clone());
    }

    /** A fresh random XTS-AES-256 key. */
    public static XtsKey generate(SecureRandom random) {
        byte[] m = new byte[XTS_AES_256_BYTES];
        random.nextBytes(m);
        return new XtsKey(m);
    }

    /** A copy of key1 || key2, for the key file; the caller wipes it after use. */
    byte[] material() {
        return material.clone();
    }

    SecretKeySpec dataKey() {
        return dataKey;
    }

    SecretKeySpec tweakKey() {
        return tweakKey;
    }

    /**
     * Overwrites the key bytes this object holds (after a cryptographic erase). Best effort: the
     * JDK's key specs and ciphers keep copies that only the garbage collector reclaims, and not every
     * JDK lets a {@link SecretKeySpec} be destroyed.
     */
    public void destroy() {
        Arrays.fill(material, (byte) 0);
        for (SecretKeySpec k : new SecretKeySpec[] {dataKey, tweakKey}) {
            try {
                k.destroy();
            } catch (DestroyFailedException e) {
                // SecretKeySpec may not support it: nothing more can be done from outside the JDK
            }
        }
    }
}
