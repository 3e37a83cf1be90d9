package org.jtarget.scsi.copy;

import io.netty.buffer.ByteBuf;
import org.jtarget.scsi.dispatch.CommandContext;
import org.jtarget.scsi.lun.LogicalUnit;
import org.jtarget.scsi.lun.LogicalUnitRegistry;
import org.jtarget.scsi.sense.SenseReason;

import java.util.ArrayList;
import java.util.List;

/**
 * Parses and checks an EXTENDED COPY(LID1) parameter list (SPC-4 6.4.3) before any data moves.
 * <pre>
 *  0 LIST IDENTIFIER | 1 STR(5) LIST ID USAGE(4..3) PRIORITY(2..0) | 2..3 CSCD DESCRIPTOR LIST LENGTH
 *  4..7 reserved | 8..11 SEGMENT DESCRIPTOR LIST LENGTH | 12..15 INLINE DATA LENGTH
 *  16.. CSCD descriptors (32 bytes each), segment descriptors, inline data
 * </pre>
 * Identification CSCD descriptor (E4h, 32 bytes): 0 type | 1 LU ID TYPE(7..6) NUL(5) PERIPHERAL
 * DEVICE TYPE(4..0) | 2..3 RELATIVE INITIATOR PORT | 4..27 designation descriptor (VPD 83h form:
 * 4 code set, 5 association/designator type, 7 length, 8.. designator) | 28 PAD(2) | 29..31 DISK
 * BLOCK LENGTH. Block-to-block segment descriptor (02h, 28 bytes): 0 type | 1 DC(1) CAT(0) |
 * 2..3 DESCRIPTOR LENGTH (0018h) | 4..5 SOURCE CSCD INDEX | 6..7 DESTINATION CSCD INDEX |
 * 10..11 BLOCK DEVICE NUMBER OF BLOCKS | 12..19 SOURCE LBA | 20..27 DESTINATION LBA.
 *
 * <p>Errors in the list itself are ILLEGAL REQUEST (SPC-4 5.16.7.3). Errors of a segment against
 * its copy targets (no such CSCD, LBAs outside the LU) are reported with COPY ABORTED as SPC-4
 * 5.16.7.4 requires once segment processing has begun; they are found by {@link #checkSegments}
 * before the first block is read, so a failed copy never writes part of its data.
 */
final class CopyParameterList {

    static final int HEADER_LENGTH = 16;
    static final int CSCD_LENGTH = 32;
    static final int B2B_LENGTH = 28;
    private static final int LIST_ID_USAGE_OFFSET = 1;
    private static final int CSCD_LIST_LENGTH_OFFSET = 2;
    private static final int SEGMENT_LIST_LENGTH_OFFSET = 8;
    private static final int INLINE_LENGTH_OFFSET = 12;
    /** LIST ID USAGE (SPC-4 table 108): 00b hold status, 10b do not hold, 11b no list id; 01b reserved. */
    static final int USAGE_HOLD = 0;
    static final int USAGE_RESERVED = 1;
    static final int USAGE_NO_HOLD = 2;
    static final int USAGE_NO_LIST_ID = 3;
    private static final int PERIPHERAL_TYPE_MASK = 0x1F;
    private static final int DESIGNATOR_TYPE_NAA = 3;
    private static final int ASSOCIATION_MASK = 0x30;
    private static final int NAA_LENGTH = 16;
    private static final int B2B_DESCRIPTOR_LENGTH = B2B_LENGTH - 4;

    /** One block-to-block segment. */
    record Segment(int offset, int sourceIndex, int destinationIndex, int blocks, long sourceLba,
                   long destinationLba) {
    }

    /** A CSCD: the LU it names (null if none here) and the block length it states. */
    record Cscd(LogicalUnit lu, int blockLength) {
    }

    int listId;
    int listIdUsage;
    final List<Cscd> cscds = new ArrayList<>();
    final List<Segment> segments = new ArrayList<>();

    /**
     * Parses {@code p} (borrowed). Returns null when the list is acceptable, else the reason
     * (with the field pointer set in {@code ctx} for INVALID FIELD IN PARAMETER LIST).
     */
    SenseReason parse(ByteBuf p, LogicalUnitRegistry registry, CommandContext ctx) {
        int base = p.readerIndex();
        int available = p.readableBytes();
        if (available < HEADER_LENGTH) {
            return SenseReason.PARAMETER_LIST_LENGTH_ERROR;
        }
        listId = p.getUnsignedByte(base);
        listIdUsage = (p.getUnsignedByte(base + LIST_ID_USAGE_OFFSET) >> 3) & 0x3;
        int cscdLength = p.getUnsignedShort(base + CSCD_LIST_LENGTH_OFFSET);
        long segmentLength = p.getUnsignedInt(base + SEGMENT_LIST_LENGTH_OFFSET);
        long inlineLength = p.getUnsignedInt(base + INLINE_LENGTH_OFFSET);
        if (listIdUsage == USAGE_RESERVED || listIdUsage == USAGE_NO_LIST_ID && listId != 0) {
            return ctx.invalidParameterField(LIST_ID_USAGE_OFFSET, 4);
        }
        if (inlineLength > CopyLimits.MAX_INLINE_DATA_LENGTH) {
            return SenseReason.INLINE_DATA_LENGTH_EXCEEDED;
        }
        // SPC-4 6.4.3.1: descriptor lists longer than MAXIMUM DESCRIPTOR LIST LENGTH, or lists
        // that do not fit the parameter data, are a PARAMETER LIST LENGTH ERROR
        if (cscdLength + segmentLength > CopyLimits.MAX_DESCRIPTOR_LIST_LENGTH
                || HEADER_LENGTH + cscdLength + segmentLength + inlineLength > available) {
            return SenseReason.PARAMETER_LIST_LENGTH_ERROR;
        }
        if (cscdLength % CSCD_LENGTH != 0) {
            return ctx.invalidParameterField(CSCD_LIST_LENGTH_OFFSET, 7);
        }
        if (cscdLength / CSCD_LENGTH > CopyLimits.MAX_CSCD_DESCRIPTORS) {
            return SenseReason.TOO_MANY_TARGET_DESCRIPTORS;
        }
        SenseReason bad = parseCscds(p, base + HEADER_LENGTH, cscdLength / CSCD_LENGTH, registry, ctx);
        if (bad != null) {
            return bad;
        }
        return parseSegments(p, base + HEADER_LENGTH + cscdLength, (int) segmentLength, base, ctx);
    }

    private SenseReason parseCscds(ByteBuf p, int at, int count, LogicalUnitRegistry registry, CommandContext ctx) {
        for (int i = 0; i < count; i++, at += CSCD_LENGTH) {
            if (p.getUnsignedByte(at) != CopyLimits.CSCD_IDENTIFICATION) {
                return SenseReason.UNSUPPORTED_TARGET_DESCRIPTOR_TYPE_CODE;
            }
            int offset = at - p.readerIndex();
            // SPC-4 6.4.5.1: LU ID TYPE and NUL are ignored (obsolete); only block devices (00h) here
            if ((p.getUnsignedByte(at + 1) & PERIPHERAL_TYPE_MASK) != 0) {
                return ctx.invalidParameterField(offset + 1, 4);
            }
            LogicalUnit lu = null;
            int designatorType = p.getUnsignedByte(at + 5);
            if ((designatorType & 0x0F) == DESIGNATOR_TYPE_NAA && (designatorType & ASSOCIATION_MASK) == 0
                    && p.getUnsignedByte(at + 7) == NAA_LENGTH) {
                byte[] naa = new byte[NAA_LENGTH];
                p.getBytes(at + 8, naa);
                lu = registry.byNaa(naa, 0, NAA_LENGTH);
            }
            int blockLength = p.getUnsignedMedium(at + 29);
            if (lu != null && blockLength != lu.blockSize()) {
                // SPC-4 6.4.5.x: DISK BLOCK LENGTH must be the block length of the copy target
                return ctx.invalidParameterField(offset + 29, 7);
            }
            cscds.add(new Cscd(lu, blockLength));
        }
        return null;
    }

    private SenseReason parseSegments(ByteBuf p, int at, int length, int base, CommandContext ctx) {
        int end = at + length;
        while (at < end) {
            if (at + 4 > end) {
                return SenseReason.PARAMETER_LIST_LENGTH_ERROR;
            }
            if (segments.size() == CopyLimits.MAX_SEGMENT_DESCRIPTORS) {
                return SenseReason.TOO_MANY_SEGMENT_DESCRIPTORS;
            }
            if (p.getUnsignedByte(at) != CopyLimits.SEGMENT_BLOCK_TO_BLOCK) {
                return SenseReason.UNSUPPORTED_SEGMENT_DESCRIPTOR_TYPE_CODE;
            }
            if (p.getUnsignedShort(at + 2) != B2B_DESCRIPTOR_LENGTH) {
                return ctx.invalidParameterField(at - base + 2, 7);
            }
            if (at + B2B_LENGTH > end) {
                return SenseReason.PARAMETER_LIST_LENGTH_ERROR;
            }
            segments.add(new Segment(at - base, p.getUnsignedShort(at + 4), p.getUnsignedShort(at + 6),
                    p.getUnsignedShort(at + 10), p.getLong(at + 12), p.getLong(at + 20)));
            at += B2B_LENGTH;
        }
        return null;
    }

    /**
     * Checks every segment against its copy targets (SPC-4 5.16.7.4: COPY ABORTED): the CSCD
     * index exists and names a reachable LU, both ranges lie within their LUs, block lengths
     * agree, the segment is within MAXIMUM SEGMENT LENGTH. Null if all are good.
     */
    SenseReason checkSegments(CommandContext ctx) {
        for (Segment s : segments) {
            LogicalUnit src = lu(s.sourceIndex());
            LogicalUnit dst = lu(s.destinationIndex());
            if (src == null || dst == null) {
                return SenseReason.COPY_TARGET_DEVICE_NOT_REACHABLE;
            }
            if ((long) s.blocks() * src.blockSize() > CopyLimits.MAX_SEGMENT_LENGTH) {
                return ctx.invalidParameterField(s.offset() + 10, 7);
            }
            if (src.blockSize() != dst.blockSize() || !inRange(src, s.sourceLba(), s.blocks())
                    || !inRange(dst, s.destinationLba(), s.blocks())) {
                return SenseReason.COPY_ABORTED_SEGMENT_FAILED;
            }
        }
        return null;
    }

    /** The LU of CSCD {@code index}, or null if there is no such CSCD or it names no LU here. */
    LogicalUnit lu(int index) {
        return index < cscds.size() ? cscds.get(index).lu() : null;
    }

    private static boolean inRange(LogicalUnit lu, long lba, int blocks) {
        return lba >= 0 && lba <= lu.blockCount() && blocks <= lu.blockCount() - lba;
    }
}
