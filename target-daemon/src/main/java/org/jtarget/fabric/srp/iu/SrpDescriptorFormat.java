package org.jtarget.fabric.srp.iu;

/**
 * The data buffer descriptor formats of SRP_CMD (SRP r16a, SRP_CMD: table of data buffer
 * descriptor formats; IMMEDIATE from SRP-2; Linux {@code enum srp_desc_fmt}): one 4-bit code per
 * direction in the command's buffer format byte, DATA-OUT in bits 7..4 and DATA-IN in bits 3..0.
 */
public enum SrpDescriptorFormat {
    /** No data buffer in this direction. */
    NONE,
    /** One memory descriptor: virtual address, key, length (16 bytes). */
    DIRECT,
    /**
     * A descriptor of a table of memory descriptors, the table's total data length, and the first
     * entries of that table (20 + 16 * count bytes).
     */
    INDIRECT,
    /**
     * SRP-2: the data travels inside the SRP_CMD at the offset the login negotiated; the
     * descriptor is its 4-byte length. Linux's ib_srp uses it for writes only.
     */
    IMMEDIATE;

    private static final SrpDescriptorFormat[] BY_CODE = values();

    /** The 4-bit code of this format. */
    public int code() {
        return ordinal();
    }

    /** The format of {@code code}, or null for a code SRP reserves (4-15). */
    public static SrpDescriptorFormat fromCode(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }
}
