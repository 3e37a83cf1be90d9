package org.jtarget.fabric.iscsi.pdu;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;

/**
 * Turns the bytes of one whole PDU into an {@link IscsiPdu} (RFC 7143 11.2): the BHS is copied
 * into its own 48-byte buffer (fast flyweight access), the AHS and the data segment become
 * retained slices of the input, never copied. Transports find the PDU's bounds their own way
 * (TCP: a stream framer that also checks digests; RDMA: one PDU per message) and share this.
 */
public final class PduParser {

    private final boolean targetSide;

    /**
     * @param targetSide true to accept initiator opcodes (a target), false to accept target
     *                   opcodes (an initiator)
     */
    public PduParser(boolean targetSide) {
        this.targetSide = targetSide;
    }

    /** The opcode of the PDU whose BHS starts at {@code start}. */
    public static int opcode(ByteBuf in, int start) {
        return in.getByte(start) & 0x3f;
    }

    /** TotalAHSLength in bytes. */
    public static int ahsLength(ByteBuf in, int start) {
        return in.getUnsignedByte(start + IscsiPdu.TOTAL_AHS_LENGTH_OFFSET) * 4;
    }

    /** DataSegmentLength, without padding. */
    public static int dataSegmentLength(ByteBuf in, int start) {
        return in.getUnsignedMedium(start + IscsiPdu.DATA_SEGMENT_LENGTH_OFFSET);
    }

    /**
     * True if the peer may send this opcode; otherwise the PDU is answered with a Reject,
     * {@link RejectReason#COMMAND_NOT_SUPPORTED} (RFC 7143 11.17.1; vendor opcodes included).
     */
    public boolean accepts(int opcode) {
        if (targetSide) {
            return opcode <= Opcode.LOGOUT_REQUEST || opcode == Opcode.SNACK_REQUEST;
        }
        return (opcode >= Opcode.NOP_IN && opcode <= Opcode.LOGOUT_RESPONSE) || opcode == Opcode.R2T
                || opcode == Opcode.ASYNC_MESSAGE || opcode == Opcode.REJECT;
    }

    /**
     * Parses the PDU whose BHS starts at {@code start} and whose data segment starts at
     * {@code dataStart} (after the AHS and any header digest). Borrows {@code in}: the slices
     * hold their own references. When {@code in} is a single buffer it is recorded as the data
     * segment's root ({@link IscsiPdu#dataRoot()}).
     */
    public IscsiPdu parse(ByteBufAllocator alloc, ByteBuf in, int start, int dataStart) {
        int ahsLength = ahsLength(in, start);
        int dsl = dataSegmentLength(in, start);
        ByteBuf bhs = copyBhs(alloc, in, start);
        ByteBuf ahs = ahsLength == 0 ? Unpooled.EMPTY_BUFFER : in.retainedSlice(start + IscsiPdu.BHS_LENGTH, ahsLength);
        if (dsl == 0) {
            return IscsiPdu.wrap(bhs, ahs, Unpooled.EMPTY_BUFFER);
        }
        ByteBuf data = in.retainedSlice(dataStart, dsl);
        // a composite's bytes have no single root; anything else is the receive buffer itself
        return in instanceof CompositeByteBuf ? IscsiPdu.wrap(bhs, ahs, data)
                : IscsiPdu.wrap(bhs, ahs, data, in, dataStart);
    }

    /** A decode error carrying a copy of the bad PDU's BHS, which must be readable at {@code start}. */
    public static PduDecodeError error(ByteBufAllocator alloc, ByteBuf in, int start, int reason, boolean fatal,
                                       String detail) {
        return new PduDecodeError(reason, fatal, copyBhs(alloc, in, start), detail);
    }

    /**
     * Copies the BHS word by word: {@code writeBytes(ByteBuf)} from a composite cumulation into a
     * direct buffer goes through NIO views ({@code nioBuffers()} arrays and duplicates), about
     * 200 bytes of garbage per PDU without {@code sun.misc.Unsafe}; six longs cost nothing.
     */
    private static ByteBuf copyBhs(ByteBufAllocator alloc, ByteBuf in, int start) {
        ByteBuf bhs = alloc.buffer(IscsiPdu.BHS_LENGTH, IscsiPdu.BHS_LENGTH);
        for (int i = 0; i < IscsiPdu.BHS_LENGTH; i += Long.BYTES) {
            bhs.writeLong(in.getLong(start + i));
        }
        return bhs;
    }
}
