package org.jtarget.fabric.srp.iu;

import io.netty.buffer.ByteBuf;
import org.jtarget.scsi.spi.ScsiCommand;
import org.jtarget.scsi.spi.TaskAttribute;

import java.util.Objects;

/**
 * SRP_CMD (SRP r16a; SRP-2 for immediate data; Linux {@code struct srp_cmd}), decoded in place
 * into this reusable object so that the I/O path allocates nothing. 48 bytes, then the
 * additional CDB bytes, then the DATA-OUT buffer descriptor and the DATA-IN buffer descriptor
 * (each only if its format is not NONE):
 *
 * <pre>
 *   byte 0       opcode 0x02            byte 1       SOLICITED NOTIFICATION
 *   byte 5       buffer formats: DATA-OUT (bits 7..4) | DATA-IN (bits 3..0), {@link SrpDescriptorFormat}
 *   byte 6       DATA-OUT BUFFER DESCRIPTOR COUNT      byte 7  DATA-IN BUFFER DESCRIPTOR COUNT
 *   bytes 8-15   tag                    bytes 20-27  LUN
 *   byte 29      TASK ATTRIBUTE (bits 2..0)            byte 31 ADDITIONAL CDB LENGTH (bits 7..2, words)
 *   bytes 32-47  CDB                    bytes 48-    additional CDB, then the descriptors
 *
 *   direct descriptor, 16 bytes:   virtual address (8) | key (4) | length (4)
 *   indirect descriptor:           table descriptor (16: address, key, length of the whole table)
 *                                  | total data length (4) | COUNT entries of the table (16 each)
 *   immediate descriptor, 4 bytes: length of the data, which starts at the login's IMM DATA OFFSET
 * </pre>
 *
 * An indirect table longer than the entries the IU carries has the rest in the initiator's
 * memory, for the target to RDMA READ through the table descriptor. The count of a direct
 * descriptor is ignored (Linux's ib_srp sends 0).
 *
 * <p>Malformed input is an {@link Outcome}, never an exception. After an outcome past
 * {@link Outcome#NOT_A_COMMAND}, the fixed part (tag, LUN, CDB) has been read, so that the command
 * can still be answered. The entry accessors ({@link #descriptorVa} and its siblings) and the CDB
 * read the buffer given to {@link #decode}: it must stay valid and unchanged while they are used.
 */
public final class SrpCommand {

    /** Bytes of a direct descriptor, and of each entry of an indirect table. */
    public static final int DIRECT_DESCRIPTOR_LENGTH = 16;
    /** Bytes of an indirect descriptor before its entries: table descriptor and total length. */
    public static final int INDIRECT_HEADER_LENGTH = 20;
    public static final int IMMEDIATE_DESCRIPTOR_LENGTH = 4;
    /** The immediate data offset of a channel whose login did not negotiate immediate data. */
    public static final int NO_IMMEDIATE_DATA = 0;

    private static final int BUFFER_FORMATS_OFFSET = 5;
    private static final int DATA_OUT_COUNT_OFFSET = 6;
    private static final int DATA_IN_COUNT_OFFSET = 7;
    private static final int LUN_OFFSET = 20;
    private static final int TASK_ATTRIBUTE_OFFSET = 29;
    private static final int ADDITIONAL_CDB_LENGTH_OFFSET = 31;
    private static final int CDB_OFFSET = 32;
    private static final int CDB_LENGTH = 16;
    private static final int ADDITIONAL_CDB_LENGTH_MASK = 0xFC;
    private static final int TASK_ATTRIBUTE_MASK = 0x07;
    private static final int KEY_OFFSET = 8;
    private static final int LENGTH_OFFSET = 12;
    private static final int TOTAL_LENGTH_OFFSET = 16;

    /** The two data buffers of a command: to the target (writes) and from it (reads). */
    public enum Direction {
        DATA_OUT, DATA_IN
    }

    /**
     * What {@link #decode} made of the bytes, with the SRP_T_LOGOUT reason ({@link SrpLogout}) a
     * target that ends the channel over it can give.
     */
    public enum Outcome {
        OK(SrpLogout.NO_REASON),
        /** Shorter than the 48 bytes of the fixed part. */
        TOO_SHORT(SrpLogout.INVALID_IU_LENGTH),
        /** The length given runs past the buffer's writer index. */
        BEYOND_BUFFER(SrpLogout.INVALID_IU_LENGTH),
        NOT_A_COMMAND(SrpLogout.INVALID_IU_TYPE),
        /** More CDB bytes than any SCSI CDB has ({@link ScsiCommand#MAX_CDB_LENGTH}). */
        CDB_TOO_LONG(SrpLogout.NO_REASON),
        /** The additional CDB or a descriptor runs past the IU's length. */
        CONTENT_BEYOND_IU(SrpLogout.INVALID_IU_LENGTH),
        /** A DATA-OUT format SRP reserves (4-15). */
        UNSUPPORTED_DATA_OUT_FORMAT(SrpLogout.UNSUPPORTED_DATA_OUT_FORMAT),
        /** A DATA-IN format SRP reserves (4-15), or IMMEDIATE, which carries no read. */
        UNSUPPORTED_DATA_IN_FORMAT(SrpLogout.UNSUPPORTED_DATA_IN_FORMAT),
        /** An indirect table length not a multiple of 16, or shorter than the entries in the IU. */
        INVALID_TABLE_LENGTH(SrpLogout.NO_REASON),
        /** An IMMEDIATE DATA-OUT descriptor on a channel whose login did not negotiate it. */
        IMMEDIATE_DATA_NOT_NEGOTIATED(SrpLogout.UNSUPPORTED_DATA_OUT_FORMAT),
        /** The immediate data offset lies inside the CDB or descriptors. */
        IMMEDIATE_DATA_OVERLAPS_DESCRIPTORS(SrpLogout.NO_REASON),
        /** The immediate data runs past the IU's length. */
        IMMEDIATE_DATA_BEYOND_IU(SrpLogout.INVALID_IU_LENGTH);

        private final int targetLogoutReason;

        Outcome(int targetLogoutReason) {
            this.targetLogoutReason = targetLogoutReason;
        }

        /** The SRP_T_LOGOUT reason that names this problem ({@link SrpLogout#NO_REASON} if none does). */
        public int targetLogoutReason() {
            return targetLogoutReason;
        }
    }

    private static final int OUT = Direction.DATA_OUT.ordinal();
    private static final int IN = Direction.DATA_IN.ordinal();

    private final SrpDescriptorFormat[] formats = new SrpDescriptorFormat[2];
    /** Direct: the descriptor; indirect: the table descriptor; immediate: lengths only. */
    private final long[] vas = new long[2];
    private final int[] keys = new int[2];
    private final int[] lengths = new int[2];
    private final int[] totalLengths = new int[2];
    private final int[] inIuCounts = new int[2];
    private final int[] listIndexes = new int[2];

    private ByteBuf buf;
    private int index;
    private int length;
    private int solNot;
    private long tag;
    private long lunField;
    private int taskAttributeCode;
    private int cdbLength;
    /** Absolute index just past what has been decoded so far. */
    private int end;
    private int immediateDataIndex;
    private Outcome outcome = Outcome.TOO_SHORT;
    private long problem;
    private long limit;
    private Direction problemDirection;

    /** Decodes an SRP_CMD of a channel without immediate data ({@link #NO_IMMEDIATE_DATA}). */
    public Outcome decode(ByteBuf buf, int index, int length) {
        return decode(buf, index, length, NO_IMMEDIATE_DATA);
    }

    /**
     * Decodes the SRP_CMD of {@code length} bytes at {@code index} (absolute; indices of
     * {@code buf} unchanged).
     *
     * @param immediateDataOffset the IMM DATA OFFSET the channel's login accepted, or
     *                            {@link #NO_IMMEDIATE_DATA}
     */
    public Outcome decode(ByteBuf buf, int index, int length, int immediateDataOffset) {
        clear(buf, index, length);
        Outcome result = decodeFixedPart();
        if (result == Outcome.OK) {
            result = decodeDescriptor(Direction.DATA_OUT, byteAt(BUFFER_FORMATS_OFFSET) >>> 4,
                    byteAt(DATA_OUT_COUNT_OFFSET));
        }
        if (result == Outcome.OK) {
            result = decodeDescriptor(Direction.DATA_IN, byteAt(BUFFER_FORMATS_OFFSET) & 0x0f,
                    byteAt(DATA_IN_COUNT_OFFSET));
        }
        if (result == Outcome.OK && formats[OUT] == SrpDescriptorFormat.IMMEDIATE) {
            result = placeImmediateData(immediateDataOffset);
        }
        outcome = result;
        return result;
    }

    private Outcome decodeFixedPart() {
        if (length < SrpIu.CMD_MIN_LENGTH) {
            return fail(Outcome.TOO_SHORT, null, length, SrpIu.CMD_MIN_LENGTH);
        }
        if (index < 0 || buf.writerIndex() - index < length) {
            return fail(Outcome.BEYOND_BUFFER, null, length, buf.writerIndex() - (long) index);
        }
        int opcode = SrpIu.opcode(buf, index);
        if (opcode != SrpIu.CMD) {
            return fail(Outcome.NOT_A_COMMAND, null, opcode, SrpIu.CMD);
        }
        solNot = byteAt(SrpIu.SOL_NOT_OFFSET);
        tag = buf.getLong(index + SrpIu.TAG_OFFSET);
        lunField = buf.getLong(index + LUN_OFFSET);
        taskAttributeCode = byteAt(TASK_ATTRIBUTE_OFFSET) & TASK_ATTRIBUTE_MASK;
        cdbLength = CDB_LENGTH + (byteAt(ADDITIONAL_CDB_LENGTH_OFFSET) & ADDITIONAL_CDB_LENGTH_MASK);
        if (cdbLength > ScsiCommand.MAX_CDB_LENGTH) {
            return fail(Outcome.CDB_TOO_LONG, null, cdbLength, ScsiCommand.MAX_CDB_LENGTH);
        }
        end = index + CDB_OFFSET;
        return advance(cdbLength);
    }

    private Outcome decodeDescriptor(Direction direction, int code, int count) {
        SrpDescriptorFormat format = SrpDescriptorFormat.fromCode(code);
        if (format == null || (format == SrpDescriptorFormat.IMMEDIATE && direction == Direction.DATA_IN)) {
            Outcome unsupported = direction == Direction.DATA_OUT ? Outcome.UNSUPPORTED_DATA_OUT_FORMAT
                    : Outcome.UNSUPPORTED_DATA_IN_FORMAT;
            return fail(unsupported, direction, code, 0);
        }
        int d = direction.ordinal();
        formats[d] = format;
        return switch (format) {
            case NONE -> Outcome.OK;
            case DIRECT -> decodeDirect(d);
            case INDIRECT -> decodeIndirect(direction, count);
            case IMMEDIATE -> decodeImmediate(d);
        };
    }

    private Outcome decodeDirect(int d) {
        if (fits(DIRECT_DESCRIPTOR_LENGTH)) {
            readMemoryDescriptor(d);
        }
        return advance(DIRECT_DESCRIPTOR_LENGTH);
    }

    private Outcome decodeIndirect(Direction direction, int count) {
        int d = direction.ordinal();
        int bytes = INDIRECT_HEADER_LENGTH + count * DIRECT_DESCRIPTOR_LENGTH;
        if (!fits(bytes)) {
            return beyondIu(bytes);
        }
        readMemoryDescriptor(d);
        totalLengths[d] = buf.getInt(end + TOTAL_LENGTH_OFFSET);
        inIuCounts[d] = count;
        listIndexes[d] = end + INDIRECT_HEADER_LENGTH;
        long tableLength = Integer.toUnsignedLong(lengths[d]);
        if (tableLength % DIRECT_DESCRIPTOR_LENGTH != 0 || tableLength < (long) count * DIRECT_DESCRIPTOR_LENGTH) {
            return fail(Outcome.INVALID_TABLE_LENGTH, direction, tableLength, (long) count * DIRECT_DESCRIPTOR_LENGTH);
        }
        return advance(bytes);
    }

    private Outcome decodeImmediate(int d) {
        if (fits(IMMEDIATE_DESCRIPTOR_LENGTH)) {
            lengths[d] = buf.getInt(end);
        }
        return advance(IMMEDIATE_DESCRIPTOR_LENGTH);
    }

    private void readMemoryDescriptor(int d) {
        vas[d] = buf.getLong(end);
        keys[d] = buf.getInt(end + KEY_OFFSET);
        lengths[d] = buf.getInt(end + LENGTH_OFFSET);
    }

    /** Immediate data starts at the negotiated offset, after the descriptors, and ends in the IU. */
    private Outcome placeImmediateData(int immediateDataOffset) {
        if (immediateDataOffset == NO_IMMEDIATE_DATA) {
            return fail(Outcome.IMMEDIATE_DATA_NOT_NEGOTIATED, Direction.DATA_OUT, 0, 0);
        }
        if (immediateDataOffset < end - index) {
            return fail(Outcome.IMMEDIATE_DATA_OVERLAPS_DESCRIPTORS, Direction.DATA_OUT, immediateDataOffset,
                    end - index);
        }
        long dataEnd = immediateDataOffset + Integer.toUnsignedLong(lengths[OUT]);
        if (dataEnd > length) {
            return fail(Outcome.IMMEDIATE_DATA_BEYOND_IU, Direction.DATA_OUT, dataEnd, length);
        }
        immediateDataIndex = index + immediateDataOffset;
        return Outcome.OK;
    }

    private boolean fits(int bytes) {
        return (long) end - index + bytes <= length;
    }

    /** Moves past {@code bytes} more of the IU, or fails if they are not all in it. */
    private Outcome advance(int bytes) {
        if (!fits(bytes)) {
            return beyondIu(bytes);
        }
        end += bytes;
        return Outcome.OK;
    }

    private Outcome beyondIu(int bytes) {
        return fail(Outcome.CONTENT_BEYOND_IU, null, (long) end - index + bytes, length);
    }

    private int byteAt(int offset) {
        return buf.getUnsignedByte(index + offset);
    }

    private Outcome fail(Outcome result, Direction direction, long problem, long limit) {
        this.problem = problem;
        this.limit = limit;
        this.problemDirection = direction;
        return result;
    }

    private void clear(ByteBuf buf, int index, int length) {
        this.buf = buf;
        this.index = index;
        this.length = length;
        solNot = taskAttributeCode = cdbLength = immediateDataIndex = 0;
        tag = lunField = 0;
        end = index;
        problem = limit = 0;
        problemDirection = null;
        for (int d = OUT; d <= IN; d++) {
            formats[d] = SrpDescriptorFormat.NONE;
            vas[d] = 0;
            keys[d] = lengths[d] = totalLengths[d] = inIuCounts[d] = listIndexes[d] = 0;
        }
    }

    /** What was wrong with the last decoded IU, in words for the one log line (allocates). */
    public String reason() {
        String direction = problemDirection == Direction.DATA_IN ? "data-in" : "data-out";
        return switch (outcome) {
            case OK -> "well formed";
            case TOO_SHORT -> "SRP_CMD of " + problem + " bytes, shorter than " + limit;
            case BEYOND_BUFFER -> "SRP_CMD of " + problem + " bytes where the buffer holds " + limit;
            case NOT_A_COMMAND -> SrpIu.name((int) problem) + " where SRP_CMD was expected";
            case CDB_TOO_LONG -> "CDB of " + problem + " bytes, longer than " + limit;
            case CONTENT_BEYOND_IU -> "CDB and descriptors need " + problem + " bytes, the SRP_CMD has " + limit;
            case UNSUPPORTED_DATA_OUT_FORMAT, UNSUPPORTED_DATA_IN_FORMAT ->
                    direction + " buffer descriptor format " + problem + " not supported";
            case INVALID_TABLE_LENGTH -> direction + " indirect table of " + problem
                    + " bytes: not a multiple of 16, or shorter than the " + limit + " bytes of entries in the IU";
            case IMMEDIATE_DATA_NOT_NEGOTIATED -> "immediate data-out descriptor, but the login did not negotiate it";
            case IMMEDIATE_DATA_OVERLAPS_DESCRIPTORS -> "immediate data offset " + problem
                    + " lies inside the CDB and descriptors, which end at " + limit;
            case IMMEDIATE_DATA_BEYOND_IU -> "immediate data ends at byte " + problem + ", the SRP_CMD has " + limit;
        };
    }

    /** The outcome of the last {@link #decode}. */
    public Outcome outcome() { return outcome; }
    public int solNot() { return solNot; }
    public long tag() { return tag; }
    /** The 8-byte SAM LUN field, as it came. */
    public long lunField() { return lunField; }
    /** TASK ATTRIBUTE: 0 SIMPLE, 1 HEAD OF QUEUE, 2 ORDERED, 4 ACA; others reserved. */
    public int taskAttributeCode() { return taskAttributeCode; }
    /** Absolute index of the CDB in the buffer, for {@link ScsiCommand#cdb(ByteBuf, int, int)}. */
    public int cdbIndex() { return index + CDB_OFFSET; }
    /** 16 plus the additional CDB bytes. */
    public int cdbLength() { return cdbLength; }

    /** The core's attribute for {@link #taskAttributeCode()}; the reserved codes are SIMPLE. */
    public TaskAttribute taskAttribute() {
        return switch (taskAttributeCode) {
            case 1 -> TaskAttribute.HEAD_OF_QUEUE;
            case 2 -> TaskAttribute.ORDERED;
            case 4 -> TaskAttribute.ACA;
            default -> TaskAttribute.SIMPLE;
        };
    }

    public SrpDescriptorFormat format(Direction direction) { return formats[direction.ordinal()]; }

    /** DIRECT: the buffer's virtual address. */
    public long va(Direction direction) { return vas[direction.ordinal()]; }
    /** DIRECT: the key (rkey) of the buffer's memory region. */
    public int key(Direction direction) { return keys[direction.ordinal()]; }
    /** DIRECT: the buffer's length (unsigned). IMMEDIATE (DATA-OUT): the data's length. */
    public int length(Direction direction) { return lengths[direction.ordinal()]; }

    /** INDIRECT: the virtual address of the whole descriptor table in the initiator's memory. */
    public long tableVa(Direction direction) { return vas[direction.ordinal()]; }
    public int tableKey(Direction direction) { return keys[direction.ordinal()]; }
    /** INDIRECT: the bytes of the whole table, 16 per entry (unsigned). */
    public int tableLength(Direction direction) { return lengths[direction.ordinal()]; }
    /** INDIRECT: the sum of the lengths of all entries (unsigned). */
    public int totalLength(Direction direction) { return totalLengths[direction.ordinal()]; }
    /** INDIRECT: how many entries of the table the IU carries. */
    public int inIuCount(Direction direction) { return inIuCounts[direction.ordinal()]; }

    /** INDIRECT: whether the IU carries the whole table (nothing to RDMA READ before the data). */
    public boolean tableComplete(Direction direction) {
        int d = direction.ordinal();
        return Integer.toUnsignedLong(lengths[d]) == (long) inIuCounts[d] * DIRECT_DESCRIPTOR_LENGTH;
    }

    /** INDIRECT: the virtual address of entry {@code i} of the IU's list (read from the buffer). */
    public long descriptorVa(Direction direction, int i) {
        return buf.getLong(entryIndex(direction, i));
    }

    /** INDIRECT: the key of entry {@code i} of the IU's list (read from the buffer). */
    public int descriptorKey(Direction direction, int i) {
        return buf.getInt(entryIndex(direction, i) + KEY_OFFSET);
    }

    /** INDIRECT: the length of entry {@code i} of the IU's list, unsigned (read from the buffer). */
    public int descriptorLength(Direction direction, int i) {
        return buf.getInt(entryIndex(direction, i) + LENGTH_OFFSET);
    }

    private int entryIndex(Direction direction, int i) {
        int d = direction.ordinal();
        return listIndexes[d] + Objects.checkIndex(i, inIuCounts[d]) * DIRECT_DESCRIPTOR_LENGTH;
    }

    /** IMMEDIATE: the data's length (unsigned). */
    public int immediateLength() { return lengths[OUT]; }
    /** IMMEDIATE: absolute index of the data in the buffer. */
    public int immediateDataIndex() { return immediateDataIndex; }

    /**
     * The bytes the command moves in {@code direction} (unsigned): the direct descriptor's length,
     * the indirect total length, the immediate data's length, or 0 without a buffer.
     */
    public int dataLength(Direction direction) {
        int d = direction.ordinal();
        return switch (formats[d]) {
            case NONE -> 0;
            case DIRECT, IMMEDIATE -> lengths[d];
            case INDIRECT -> totalLengths[d];
        };
    }

    public int dataOutLength() { return dataLength(Direction.DATA_OUT); }
    public int dataInLength() { return dataLength(Direction.DATA_IN); }
}
