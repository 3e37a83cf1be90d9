package org.jtarget.initiator.raw;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * One iSCSI PDU as plain bytes, built and read by hand: the 48-byte Basic Header Segment (BHS),
 * the Additional Header Segments and the data segment (RFC 7143 11.2). Digests are added only on
 * the wire ({@link #toBytes(boolean, boolean, IscsiDigest.Kind)}), never stored in the PDU.
 *
 * <pre>
 *  Byte/     0       |       1       |       2       |       3       |
 *     +---------------+---------------+---------------+---------------+
 *    0|.|I| Opcode    |F|  Opcode-specific fields                      |
 *    4|TotalAHSLength | DataSegmentLength                             |
 *    8| LUN or Opcode-specific fields (ISID + TSIH for Login)          |
 *   16| Initiator Task Tag                                            |
 *   20| TTT / Expected Data Transfer Length / CID                     |
 *   24| CmdSN (initiator) or StatSN (target)                          |
 *   28| ExpStatSN (initiator) or ExpCmdSN (target)                    |
 *   32| MaxCmdSN, or the CDB (bytes 32-47) in a SCSI Command          |
 *   36| DataSN / R2TSN / ExpDataSN, Login Status-Class + Status-Detail|
 *   40| Buffer Offset                                                 |
 *   44| Residual Count / Desired Data Transfer Length                 |
 *   48| AHS, then the data segment padded to 4 bytes                  |
 * </pre>
 *
 * The class is deliberately independent of the daemon's own codec (it reads RFC 7143 on its own),
 * so that a wrong constant on either side shows up as a failing test rather than cancelling out.
 * Mutable, not thread-safe: build one, {@link #toBytes()} it, send it.
 */
public final class RawPdu {

    public static final int BHS_LENGTH = 48;
    public static final int OPCODE_OFFSET = 0;
    public static final int FLAGS_OFFSET = 1;
    public static final int TOTAL_AHS_LENGTH_OFFSET = 4;
    public static final int DATA_SEGMENT_LENGTH_OFFSET = 5;
    public static final int LUN_OFFSET = 8;
    public static final int ISID_OFFSET = 8;
    public static final int TSIH_OFFSET = 14;
    public static final int ITT_OFFSET = 16;
    public static final int WORD20_OFFSET = 20;
    public static final int WORD24_OFFSET = 24;
    public static final int WORD28_OFFSET = 28;
    public static final int WORD32_OFFSET = 32;
    public static final int CDB_OFFSET = 32;
    public static final int WORD36_OFFSET = 36;
    public static final int WORD40_OFFSET = 40;
    public static final int WORD44_OFFSET = 44;
    /** Login Response: Status-Class and Status-Detail bytes (RFC 7143 11.13.5). */
    public static final int STATUS_CLASS_OFFSET = 36;
    public static final int STATUS_DETAIL_OFFSET = 37;
    /** The largest value the 24-bit DataSegmentLength field can carry. */
    public static final int MAX_DATA_SEGMENT_LENGTH = 0xffffff;

    public static final int IMMEDIATE_BIT = 0x40;
    public static final int FINAL_BIT = 0x80;
    /** The reserved tag 0xffffffff (RFC 7143 11.2.1.8, 11.18.2). */
    public static final int RESERVED_TAG = 0xffffffff;

    private final byte[] bhs;
    private byte[] ahs;
    private byte[] data;

    private RawPdu(byte[] bhs, byte[] ahs, byte[] data) {
        this.bhs = bhs;
        this.ahs = ahs;
        this.data = data;
    }

    /** A PDU with a zeroed BHS carrying {@code opcode}, no AHS and no data. */
    public static RawPdu of(int opcode) {
        RawPdu pdu = new RawPdu(new byte[BHS_LENGTH], new byte[0], new byte[0]);
        pdu.opcode(opcode);
        return pdu;
    }

    /**
     * Wraps parts read from the wire (no copy). The data segment length written in {@code bhs}
     * is kept as is, even if it disagrees with {@code data.length}.
     */
    public static RawPdu wrap(byte[] bhs, byte[] ahs, byte[] data) {
        if (bhs.length != BHS_LENGTH) {
            throw new IllegalArgumentException("a BHS is 48 bytes, got " + bhs.length);
        }
        return new RawPdu(bhs, ahs, data);
    }

    /** The PDU on the wire without digests: BHS, AHS, data segment, zero padding to a multiple of 4. */
    public byte[] toBytes() {
        return toBytes(false, false, null);
    }

    /**
     * The PDU on the wire (RFC 7143 11.2.3): BHS, AHS, HeaderDigest (CRC32C over BHS + AHS) if
     * {@code headerDigest}, data segment, zero padding to a multiple of 4, then DataDigest (CRC32C
     * over data + padding) if {@code dataDigest} and the segment is not empty. Digests are written
     * least significant byte first ({@link IscsiDigest}).
     *
     * @param corrupt for negative tests, {@code null} or the digest to break: {@link IscsiDigest.Kind#HEADER}
     *                flips bits of the HeaderDigest itself; {@link IscsiDigest.Kind#DATA} flips one bit of
     *                the first data byte after the DataDigest was computed, so the payload that arrives is
     *                the corrupt one (a test can then check it never reaches the medium)
     * @throws IllegalArgumentException if {@code corrupt} names a digest this PDU does not carry
     */
    public byte[] toBytes(boolean headerDigest, boolean dataDigest, IscsiDigest.Kind corrupt) {
        int header = BHS_LENGTH + ahs.length;
        int dataStart = header + (headerDigest ? IscsiDigest.LENGTH : 0);
        int padded = paddedLength(data.length);
        boolean withDataDigest = dataDigest && data.length > 0;
        byte[] out = new byte[dataStart + padded + (withDataDigest ? IscsiDigest.LENGTH : 0)];
        System.arraycopy(bhs, 0, out, 0, BHS_LENGTH);
        System.arraycopy(ahs, 0, out, BHS_LENGTH, ahs.length);
        System.arraycopy(data, 0, out, dataStart, data.length);
        if (headerDigest) {
            IscsiDigest.put(out, header, IscsiDigest.crc32c(out, 0, header));
        }
        if (withDataDigest) {
            IscsiDigest.put(out, dataStart + padded, IscsiDigest.crc32c(out, dataStart, padded));
        }
        if (corrupt == IscsiDigest.Kind.HEADER) {
            requireDigest(headerDigest, corrupt);
            out[header] ^= (byte) 0xa5;
        } else if (corrupt == IscsiDigest.Kind.DATA) {
            requireDigest(withDataDigest, corrupt);
            out[dataStart] ^= 0x01;
        }
        return out;
    }

    private void requireDigest(boolean present, IscsiDigest.Kind kind) {
        if (!present) {
            throw new IllegalArgumentException("cannot corrupt the " + kind.key() + " of " + this
                    + ": it carries none (not negotiated, or an empty data segment)");
        }
    }

    /** {@code n} rounded up to a multiple of 4: data segments are padded to word boundaries. */
    public static int paddedLength(int n) {
        return (n + 3) & ~3;
    }

    // ---- whole parts ----

    /** The 48 BHS bytes (live, not a copy). */
    public byte[] bhs() { return bhs; }

    /** The AHS bytes (live). */
    public byte[] ahs() { return ahs; }

    /** The data segment without padding (live). */
    public byte[] data() { return data; }

    /** Sets the data segment and its DataSegmentLength. */
    public RawPdu data(byte[] d) {
        this.data = d;
        dataSegmentLength(d.length);
        return this;
    }

    /** Sets the AHS and TotalAHSLength (in 4-byte words; {@code a.length} must be a multiple of 4). */
    public RawPdu ahs(byte[] a) {
        if ((a.length & 3) != 0) {
            throw new IllegalArgumentException("AHS length must be a multiple of 4: " + a.length);
        }
        this.ahs = a;
        return u8(TOTAL_AHS_LENGTH_OFFSET, a.length / 4);
    }

    // ---- bytes 0-7 ----

    public int opcode() { return bhs[OPCODE_OFFSET] & 0x3f; }

    public RawPdu opcode(int op) {
        bhs[OPCODE_OFFSET] = (byte) ((bhs[OPCODE_OFFSET] & IMMEDIATE_BIT) | (op & 0x3f));
        return this;
    }

    public boolean immediate() { return (bhs[OPCODE_OFFSET] & IMMEDIATE_BIT) != 0; }

    public RawPdu immediate(boolean on) {
        bhs[OPCODE_OFFSET] = (byte) ((bhs[OPCODE_OFFSET] & 0x3f) | (on ? IMMEDIATE_BIT : 0));
        return this;
    }

    public int flags() { return u8(FLAGS_OFFSET); }

    public RawPdu flags(int f) { return u8(FLAGS_OFFSET, f); }

    public boolean finalFlag() { return (flags() & FINAL_BIT) != 0; }

    public int totalAhsLength() { return u8(TOTAL_AHS_LENGTH_OFFSET); }

    public int dataSegmentLength() { return u24(DATA_SEGMENT_LENGTH_OFFSET); }

    /** Sets DataSegmentLength alone (a lie is allowed: negative tests send more or less than they claim). */
    public RawPdu dataSegmentLength(int n) { return u24(DATA_SEGMENT_LENGTH_OFFSET, n); }

    // ---- bytes 8-47 ----

    public long lunField() { return ByteBuffer.wrap(bhs).getLong(LUN_OFFSET); }

    public RawPdu lunField(long v) {
        ByteBuffer.wrap(bhs).putLong(LUN_OFFSET, v);
        return this;
    }

    /** Sets the LUN field from a LUN number (SAM-5 4.7: peripheral or flat addressing). */
    public RawPdu lun(int lun) { return lunField(encodeLun(lun)); }

    /** Login: the 6-byte ISID. */
    public long isid() { return ((long) u16(ISID_OFFSET) << 32) | (u32(ISID_OFFSET + 2) & 0xffffffffL); }

    public RawPdu isid(long v) {
        u16(ISID_OFFSET, (int) (v >>> 32));
        return u32(ISID_OFFSET + 2, (int) v);
    }

    public int tsih() { return u16(TSIH_OFFSET); }

    public RawPdu tsih(int v) { return u16(TSIH_OFFSET, v); }

    public int itt() { return u32(ITT_OFFSET); }

    public RawPdu itt(int v) { return u32(ITT_OFFSET, v); }

    /** Word 20: TTT, Expected Data Transfer Length, or CID (upper 16 bits) by opcode. */
    public int word20() { return u32(WORD20_OFFSET); }

    public RawPdu word20(int v) { return u32(WORD20_OFFSET, v); }

    /** Word 24: CmdSN (initiator PDUs) or StatSN (target PDUs). */
    public int word24() { return u32(WORD24_OFFSET); }

    public RawPdu word24(int v) { return u32(WORD24_OFFSET, v); }

    /** Word 28: ExpStatSN (initiator PDUs) or ExpCmdSN (target PDUs). */
    public int word28() { return u32(WORD28_OFFSET); }

    public RawPdu word28(int v) { return u32(WORD28_OFFSET, v); }

    /** Word 32: MaxCmdSN in target PDUs. */
    public int word32() { return u32(WORD32_OFFSET); }

    public RawPdu word32(int v) { return u32(WORD32_OFFSET, v); }

    /** Word 36: DataSN, R2TSN, ExpDataSN. */
    public int word36() { return u32(WORD36_OFFSET); }

    public RawPdu word36(int v) { return u32(WORD36_OFFSET, v); }

    /** Word 40: Buffer Offset. */
    public int word40() { return u32(WORD40_OFFSET); }

    public RawPdu word40(int v) { return u32(WORD40_OFFSET, v); }

    /** Word 44: Residual Count, Desired Data Transfer Length. */
    public int word44() { return u32(WORD44_OFFSET); }

    public RawPdu word44(int v) { return u32(WORD44_OFFSET, v); }

    /** Copies a CDB (at most 16 bytes) into BHS bytes 32-47 (RFC 7143 11.3.5). */
    public RawPdu cdb(byte[] cdb) {
        if (cdb.length > 16) {
            throw new IllegalArgumentException("CDBs longer than 16 bytes need an AHS: " + cdb.length);
        }
        Arrays.fill(bhs, CDB_OFFSET, CDB_OFFSET + 16, (byte) 0);
        System.arraycopy(cdb, 0, bhs, CDB_OFFSET, cdb.length);
        return this;
    }

    // ---- byte-level access ----

    public int u8(int offset) { return bhs[offset] & 0xff; }

    public RawPdu u8(int offset, int v) {
        bhs[offset] = (byte) v;
        return this;
    }

    public int u16(int offset) { return ((bhs[offset] & 0xff) << 8) | (bhs[offset + 1] & 0xff); }

    public RawPdu u16(int offset, int v) {
        bhs[offset] = (byte) (v >>> 8);
        bhs[offset + 1] = (byte) v;
        return this;
    }

    public int u24(int offset) {
        return ((bhs[offset] & 0xff) << 16) | ((bhs[offset + 1] & 0xff) << 8) | (bhs[offset + 2] & 0xff);
    }

    public RawPdu u24(int offset, int v) {
        bhs[offset] = (byte) (v >>> 16);
        bhs[offset + 1] = (byte) (v >>> 8);
        bhs[offset + 2] = (byte) v;
        return this;
    }

    public int u32(int offset) { return ByteBuffer.wrap(bhs).getInt(offset); }

    public RawPdu u32(int offset, int v) {
        ByteBuffer.wrap(bhs).putInt(offset, v);
        return this;
    }

    /**
     * The 8-byte LUN field for a LUN number (SAM-5 4.7.3): peripheral device addressing
     * (method 00b) below 256, flat space addressing (method 01b) up to 16383.
     */
    public static long encodeLun(int lun) {
        if (lun < 0 || lun > 0x3fff) {
            throw new IllegalArgumentException("LUN out of range 0..16383: " + lun);
        }
        long firstLevel = lun < 256 ? lun : (0x4000 | lun);
        return firstLevel << 48;
    }

    @Override
    public String toString() {
        return "RawPdu[" + IscsiOpcodes.name(opcode()) + " flags=0x" + Integer.toHexString(flags())
                + " itt=0x" + Integer.toHexString(itt()) + " dsl=" + dataSegmentLength() + "]";
    }
}
