package org.jtarget.scsi.lun;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The names a logical unit reports (SPC-4 6.4.2 standard INQUIRY, 7.8.6 VPD 83h, 7.8.17 VPD 80h),
 * derived deterministically from {@code BackstoreInfo.identitySeed()} so they survive restarts:
 * multipath and file systems key on them.
 *
 * <p>NAA 6 (IEEE Registered Extended, SPC-4 7.8.6.6.5): 4-bit NAA = 6, 24-bit IEEE company id,
 * then 100 bits taken from SHA-256(seed).
 */
public final class LuIdentity {

    /** T10 vendor identification, 8 ASCII bytes (SPC-4 4.3.1). */
    public static final String VENDOR = "JTARGET ";
    /** Product identification, 16 ASCII bytes. */
    public static final String PRODUCT = "jtarget disk    ";
    /** Product revision level, 4 ASCII bytes. */
    public static final String REVISION = "0001";
    /**
     * IEEE company id placed in the NAA designator. jtarget owns no OUI; this value is the
     * locally chosen placeholder (zero) and the uniqueness comes from the 100 hashed bits.
     */
    public static final int IEEE_COMPANY_ID = 0x000000;

    private final byte[] naa;
    private final String serial;

    private LuIdentity(byte[] naa, String serial) {
        this.naa = naa;
        this.serial = serial;
    }

    /** Derives the identity from a store's identity seed. */
    public static LuIdentity fromSeed(String seed) {
        byte[] h = sha256(seed);
        byte[] naa = new byte[16];
        naa[0] = (byte) (0x60 | (IEEE_COMPANY_ID >>> 20) & 0x0f);
        naa[1] = (byte) (IEEE_COMPANY_ID >>> 12);
        naa[2] = (byte) (IEEE_COMPANY_ID >>> 4);
        naa[3] = (byte) ((IEEE_COMPANY_ID << 4) | (h[0] & 0x0f));
        System.arraycopy(h, 1, naa, 4, 12);
        StringBuilder sb = new StringBuilder(16);
        for (int i = 16; i < 24; i++) {
            sb.append(Character.forDigit((h[i] >>> 4) & 0xf, 16)).append(Character.forDigit(h[i] & 0xf, 16));
        }
        return new LuIdentity(naa, sb.toString());
    }

    /** The 16-byte NAA 6 designator (a copy). */
    public byte[] naa() {
        return naa.clone();
    }

    /** The unit serial number (16 lowercase hex characters). */
    public String serial() {
        return serial;
    }

    private static byte[] sha256(String seed) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(seed.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required by the Java SE platform", e);
        }
    }
}
