package org.jtarget.fabric.iscsi.pdu;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.util.AbstractReferenceCounted;
import io.netty.util.Recycler;

/**
 * One iSCSI PDU: the 48-byte Basic Header Segment, the Additional Header Segments and the data
 * segment (without padding or digests; the codec adds and checks those).
 *
 * <pre>
 *  Byte/     0       |       1       |       2       |       3       |
 *     +---------------+---------------+---------------+---------------+
 *    0|.|I| Opcode    |F|  Opcode-specific fields                      |
 *    4|TotalAHSLength | DataSegmentLength                             |
 *    8| LUN or Opcode-specific fields                                 |
 *   16| Initiator Task Tag                                            |
 *   20| Opcode-specific fields (TTT, EDTL, CID...)                    |
 *   24| CmdSN or StatSN                                               |
 *   28| ExpStatSN or ExpCmdSN                                         |
 *   32| MaxCmdSN, ExpDataSN...                                        |
 *   36| DataSN, R2TSN...                                              |
 *   40| Buffer Offset...                                              |
 *   44| Residual Count, Desired Data Transfer Length...               |
 *   48| AHS (optional), Header-Digest (optional), Data Segment...     |
 * </pre>
 *
 * Accessors read and write the BHS in place (a flyweight: no parsing into fields). Names follow
 * RFC 7143; where a word's meaning depends on the opcode, both names are given as separate
 * accessors over the same offset. Ownership: the PDU owns its three buffers; {@link #release()}
 * releases them. A PDU written to a channel is consumed by the encoder.
 */
public final class IscsiPdu extends AbstractReferenceCounted {

    public static final int BHS_LENGTH = 48;

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
    public static final int WORD36_OFFSET = 36;
    public static final int WORD40_OFFSET = 40;
    public static final int WORD44_OFFSET = 44;
    /** SCSI Command: the 16-byte CDB starts here. */
    public static final int CDB_OFFSET = 32;

    public static final int IMMEDIATE_BIT = 0x40;
    public static final int FINAL_BIT = 0x80;
    /** The reserved ITT value 0xffffffff (RFC 7143 11.2.1.8). */
    public static final int RESERVED_TAG = 0xffffffff;
    /** SCSI Response / Data-In byte 1 (RFC 7143 11.4.1, 11.7.1): residual overflow, underflow, status present. */
    public static final int OVERFLOW_BIT = 0x04;
    public static final int UNDERFLOW_BIT = 0x02;
    public static final int STATUS_BIT = 0x01;

    /**
     * PDU objects of the hot path are recycled (DESIGN 4.2: no per-I/O allocation): every READ
     * and WRITE decodes one and sends one or two. Netty's recycler takes them back from any thread.
     */
    private static final Recycler<IscsiPdu> RECYCLER = new Recycler<>() {
        @Override
        protected IscsiPdu newObject(Handle<IscsiPdu> handle) {
            return new IscsiPdu(handle);
        }
    };

    /** Null for PDUs made with the public constructor (never recycled). */
    private final Recycler.Handle<IscsiPdu> handle;
    private ByteBuf bhs;
    private ByteBuf ahs;
    private ByteBuf data;
    /** The receive buffer that holds the data segment's bytes (borrowed via {@link #data}), or null. */
    private ByteBuf dataRoot;
    private int dataRootIndex;

    /**
     * Wraps already-framed parts (consumes all three). Not recycled: the hot path uses
     * {@link #wrap}.
     *
     * @param bhs  exactly 48 readable bytes
     * @param ahs  the AHS bytes (may be empty)
     * @param data the data segment without padding (may be empty)
     */
    public IscsiPdu(ByteBuf bhs, ByteBuf ahs, ByteBuf data) {
        this.handle = null;
        this.bhs = bhs;
        this.ahs = ahs;
        this.data = data;
    }

    private IscsiPdu(Recycler.Handle<IscsiPdu> handle) {
        this.handle = handle;
    }

    /**
     * Like the constructor, but the object comes from (and goes back to, on the last
     * {@link #release()}) a recycler: do not touch a PDU after releasing it.
     */
    public static IscsiPdu wrap(ByteBuf bhs, ByteBuf ahs, ByteBuf data) {
        IscsiPdu pdu = RECYCLER.get();
        pdu.setRefCnt(1);
        pdu.bhs = bhs;
        pdu.ahs = ahs;
        pdu.data = data;
        pdu.dataRoot = null;
        return pdu;
    }

    /**
     * Like {@link #wrap}, recording that the data segment's bytes sit in {@code root} (the
     * receive buffer the decoder framed it from) at {@code rootIndex}: a store on the receiving
     * event loop can then copy them through the root's cached NIO view without any allocation
     * ({@link org.jtarget.buffer.ScatterList}). Borrows root: {@code data} keeps it alive.
     */
    public static IscsiPdu wrap(ByteBuf bhs, ByteBuf ahs, ByteBuf data, ByteBuf root, int rootIndex) {
        IscsiPdu pdu = wrap(bhs, ahs, data);
        pdu.dataRoot = root;
        pdu.dataRootIndex = rootIndex;
        return pdu;
    }

    /** RFC 7143 11.4.5: O when more than the EDTL was wanted, U when less arrived. */
    public static int residualFlags(int edtl, int actual) {
        return actual > edtl ? OVERFLOW_BIT : actual < edtl ? UNDERFLOW_BIT : 0;
    }

    /** A new PDU with a zeroed BHS, the given opcode, and no AHS or data. */
    public static IscsiPdu create(ByteBufAllocator alloc, int opcode) {
        return create(alloc, opcode, Unpooled.EMPTY_BUFFER);
    }

    /** A new PDU with the given data segment (consumes data). */
    public static IscsiPdu create(ByteBufAllocator alloc, int opcode, ByteBuf data) {
        ByteBuf bhs = alloc.buffer(BHS_LENGTH, BHS_LENGTH);
        bhs.writeZero(BHS_LENGTH);
        IscsiPdu pdu = wrap(bhs, Unpooled.EMPTY_BUFFER, data);
        pdu.opcode(opcode);
        pdu.dataSegmentLength(data.readableBytes());
        return pdu;
    }

    /** The raw BHS (48 bytes); borrowed. */
    public ByteBuf bhs() { return bhs; }
    /** The AHS bytes; borrowed. */
    public ByteBuf ahs() { return ahs; }
    /** The data segment without padding; borrowed (retain or slice-retain to keep it). */
    public ByteBuf data() { return data; }
    /** The receive buffer holding the data segment (borrowed), or null if the decoder did not know it. */
    public ByteBuf dataRoot() { return dataRoot; }
    /** Index of the data segment's first byte in {@link #dataRoot()}. */
    public int dataRootIndex() { return dataRootIndex; }

    // ---- byte 0-7: common to every PDU ----
    public int opcode() { return bhs.getByte(0) & 0x3f; }
    public void opcode(int op) { bhs.setByte(0, (bhs.getByte(0) & IMMEDIATE_BIT) | (op & 0x3f)); }
    public boolean immediate() { return (bhs.getByte(0) & IMMEDIATE_BIT) != 0; }
    public void immediate(boolean i) { bhs.setByte(0, (bhs.getByte(0) & 0x3f) | (i ? IMMEDIATE_BIT : 0)); }
    /** Byte 1 whole: F bit and opcode-specific flags. */
    public int flags() { return bhs.getByte(FLAGS_OFFSET) & 0xff; }
    public void flags(int f) { bhs.setByte(FLAGS_OFFSET, f); }
    public boolean finalFlag() { return (flags() & FINAL_BIT) != 0; }
    public void finalFlag(boolean f) { flags(f ? flags() | FINAL_BIT : flags() & ~FINAL_BIT); }
    /** Byte 2 (e.g. SCSI Response "Response", Login "Version-max", TMF response). */
    public int byte2() { return bhs.getByte(2) & 0xff; }
    public void byte2(int v) { bhs.setByte(2, v); }
    /** Byte 3 (e.g. SCSI Response "Status", Login "Version-active"). */
    public int byte3() { return bhs.getByte(3) & 0xff; }
    public void byte3(int v) { bhs.setByte(3, v); }
    /** TotalAHSLength in 4-byte words. */
    public int totalAhsLength() { return bhs.getByte(TOTAL_AHS_LENGTH_OFFSET) & 0xff; }
    public void totalAhsLength(int words) { bhs.setByte(TOTAL_AHS_LENGTH_OFFSET, words); }
    public int dataSegmentLength() { return bhs.getMedium(DATA_SEGMENT_LENGTH_OFFSET) & 0xffffff; }
    public void dataSegmentLength(int n) { bhs.setMedium(DATA_SEGMENT_LENGTH_OFFSET, n); }

    // ---- bytes 8-15: LUN, or ISID + TSIH for login ----
    /** The raw 8-byte LUN field (SAM-5 4.7.3 encoding). */
    public long lunField() { return bhs.getLong(LUN_OFFSET); }
    public void lunField(long v) { bhs.setLong(LUN_OFFSET, v); }
    /** Login: the 6-byte ISID as a long. */
    public long isid() { return ((long) bhs.getUnsignedShort(ISID_OFFSET) << 32) | bhs.getUnsignedInt(ISID_OFFSET + 2); }
    public void isid(long v) {
        bhs.setShort(ISID_OFFSET, (int) (v >>> 32));
        bhs.setInt(ISID_OFFSET + 2, (int) v);
    }
    public int tsih() { return bhs.getUnsignedShort(TSIH_OFFSET); }
    public void tsih(int v) { bhs.setShort(TSIH_OFFSET, v); }

    // ---- bytes 16-47 ----
    public int initiatorTaskTag() { return bhs.getInt(ITT_OFFSET); }
    public void initiatorTaskTag(int v) { bhs.setInt(ITT_OFFSET, v); }
    /** Word 20: Target Transfer Tag (NOP, Data, R2T, Text), Expected Data Transfer Length (SCSI Command), CID (Login/Logout), Referenced Task Tag (TMF). */
    public int word20() { return bhs.getInt(WORD20_OFFSET); }
    public void word20(int v) { bhs.setInt(WORD20_OFFSET, v); }
    public int targetTransferTag() { return word20(); }
    public void targetTransferTag(int v) { word20(v); }
    public int expectedDataTransferLength() { return word20(); }
    public void expectedDataTransferLength(int v) { word20(v); }
    /** Word 24: CmdSN in initiator PDUs, StatSN in target PDUs. */
    public int cmdSn() { return bhs.getInt(WORD24_OFFSET); }
    public void cmdSn(int v) { bhs.setInt(WORD24_OFFSET, v); }
    public int statSn() { return bhs.getInt(WORD24_OFFSET); }
    public void statSn(int v) { bhs.setInt(WORD24_OFFSET, v); }
    /** Word 28: ExpStatSN in initiator PDUs, ExpCmdSN in target PDUs. */
    public int expStatSn() { return bhs.getInt(WORD28_OFFSET); }
    public void expStatSn(int v) { bhs.setInt(WORD28_OFFSET, v); }
    public int expCmdSn() { return bhs.getInt(WORD28_OFFSET); }
    public void expCmdSn(int v) { bhs.setInt(WORD28_OFFSET, v); }
    /** Word 32: MaxCmdSN in target PDUs; start of the CDB in SCSI Command; RefCmdSN in TMF. */
    public int maxCmdSn() { return bhs.getInt(WORD32_OFFSET); }
    public void maxCmdSn(int v) { bhs.setInt(WORD32_OFFSET, v); }
    /** Word 36: DataSN (Data-In/Out), R2TSN (R2T), ExpDataSN (SCSI Response, TMF). */
    public int word36() { return bhs.getInt(WORD36_OFFSET); }
    public void word36(int v) { bhs.setInt(WORD36_OFFSET, v); }
    public int dataSn() { return word36(); }
    public void dataSn(int v) { word36(v); }
    /** Word 40: Buffer Offset (Data-In/Out, R2T), Bidirectional Read Residual Count (SCSI Response). */
    public int word40() { return bhs.getInt(WORD40_OFFSET); }
    public void word40(int v) { bhs.setInt(WORD40_OFFSET, v); }
    public int bufferOffset() { return word40(); }
    public void bufferOffset(int v) { word40(v); }
    /** Word 44: Residual Count (Data-In, SCSI Response), Desired Data Transfer Length (R2T). */
    public int word44() { return bhs.getInt(WORD44_OFFSET); }
    public void word44(int v) { bhs.setInt(WORD44_OFFSET, v); }
    public int residualCount() { return word44(); }
    public void residualCount(int v) { word44(v); }

    @Override
    public IscsiPdu touch(Object hint) {
        bhs.touch(hint);
        ahs.touch(hint);
        data.touch(hint);
        return this;
    }

    @Override
    public IscsiPdu retain() {
        super.retain();
        return this;
    }

    @Override
    protected void deallocate() {
        ByteBuf b = bhs;
        ByteBuf a = ahs;
        ByteBuf d = data;
        if (handle != null) {
            bhs = null; // a use after release fails fast instead of reading the next PDU
            ahs = null;
            data = null;
            dataRoot = null;
        }
        try {
            b.release();
            a.release();
            d.release();
        } finally {
            if (handle != null) {
                handle.recycle(this);
            }
        }
    }

    @Override
    public String toString() {
        if (bhs == null) {
            return "IscsiPdu[released]";
        }
        return String.format("IscsiPdu[op=0x%02x flags=0x%02x itt=0x%08x dsl=%d]", opcode(), flags(),
                initiatorTaskTag(), dataSegmentLength());
    }
}
