package org.jtarget.initiator.raw;

import java.util.zip.CRC32C;

/**
 * The iSCSI CRC32C digest as the raw client reads RFC 7143 (13.1 "CRC32C", 11.2.3 placement) and
 * RFC 3720 Appendix B.4, kept apart from the daemon's code on purpose (see {@link RawPdu}).
 *
 * <p>Byte order on the wire: the digest goes least significant byte first. RFC 3720 B.4 shows 32
 * zero bytes giving the bytes {@code aa 36 91 8a} in transmission order, and
 * {@link CRC32C} of 32 zero bytes is {@code 0x8a9136aa}: so the value is sent little-endian.
 */
public final class IscsiDigest {

    /** Bytes of one HeaderDigest or DataDigest. */
    public static final int LENGTH = 4;

    private IscsiDigest() {
    }

    /** The two digests an iSCSI connection may negotiate (RFC 7143 13.1). */
    public enum Kind {
        /** HeaderDigest: covers the BHS and the AHS. */
        HEADER("HeaderDigest"),
        /** DataDigest: covers the data segment and its padding. */
        DATA("DataDigest");

        private final String key;

        Kind(String key) {
            this.key = key;
        }

        /** The login key that negotiates this digest. */
        public String key() {
            return key;
        }
    }

    /** CRC32C of {@code length} bytes of {@code b} from {@code off}, as the 32-bit value. */
    public static int crc32c(byte[] b, int off, int length) {
        CRC32C crc = new CRC32C();
        crc.update(b, off, length);
        return (int) crc.getValue();
    }

    /** Writes {@code digest} at {@code off} in wire order (least significant byte first). */
    public static void put(byte[] b, int off, int digest) {
        b[off] = (byte) digest;
        b[off + 1] = (byte) (digest >>> 8);
        b[off + 2] = (byte) (digest >>> 16);
        b[off + 3] = (byte) (digest >>> 24);
    }

    /** Reads a digest at {@code off} in wire order. */
    public static int get(byte[] b, int off) {
        return (b[off] & 0xff) | (b[off + 1] & 0xff) << 8 | (b[off + 2] & 0xff) << 16 | (b[off + 3] & 0xff) << 24;
    }
}
