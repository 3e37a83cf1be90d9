package org.jtarget.fabric.iscsi.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import org.jtarget.fabric.iscsi.pdu.Crc32c;
import org.jtarget.fabric.iscsi.pdu.IscsiPdu;
import org.jtarget.fabric.iscsi.pdu.PduDecodeError;
import org.jtarget.fabric.iscsi.pdu.PduParser;
import org.jtarget.fabric.iscsi.pdu.RejectReason;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * Frames iSCSI PDUs out of a TCP byte stream (RFC 7143 11.2): BHS, AHS, optional HeaderDigest,
 * data segment padded to 4 bytes, optional DataDigest. It finds each PDU's bounds and checks the
 * digests; the whole PDU then goes to the transport-neutral {@link PduParser}. Emits
 * {@link IscsiPdu} (data segment as a retained slice of the input, no copy) or, on malformed
 * input, a {@link PduDecodeError}; it never throws for bad input. After a fatal error it discards
 * everything that follows.
 *
 * <pre>
 *  +------------------+  48 bytes: BHS (copied into its own 48-byte buffer: fast flyweight access)
 *  | AHS              |  TotalAHSLength * 4 bytes (retained slice)
 *  | HeaderDigest     |  4 bytes if negotiated: CRC32C over BHS + AHS, little-endian
 *  | Data segment     |  DataSegmentLength bytes (retained slice, never copied)
 *  | padding          |  0-3 bytes to a 4-byte boundary
 *  | DataDigest       |  4 bytes if negotiated and DataSegmentLength > 0: CRC32C over data + padding
 *  +------------------+
 * </pre>
 *
 * Errors:
 * <ul>
 * <li>HeaderDigest mismatch: fatal, {@link RejectReason#PROTOCOL_ERROR}. RFC 7143 7.8: the
 *     header (and so the frame length) cannot be trusted; without a way to find the next PDU
 *     (ErrorRecoveryLevel 0, no markers) the connection must be closed. RFC 7143 11.17.1 has no
 *     Reject reason for header digest errors (0x01 is reserved): the receiver should close
 *     without sending a Reject.</li>
 * <li>DataDigest mismatch: non-fatal, {@link RejectReason#DATA_DIGEST_ERROR} (RFC 7143 11.17.1,
 *     7.8): the PDU is discarded, the receiver sends a Reject, decoding continues.</li>
 * <li>DataSegmentLength above MaxRecvDataSegmentLength: fatal, {@link RejectReason#PROTOCOL_ERROR}
 *     (RFC 7143 13.12: the sender must not exceed it; we cannot trust or buffer such a frame).</li>
 * <li>Opcode not valid for the sender's role (or vendor specific): non-fatal,
 *     {@link RejectReason#COMMAND_NOT_SUPPORTED} (RFC 7143 11.17.1). The frame length is still
 *     known from the header, so the frame is skipped and decoding continues.</li>
 * </ul>
 *
 * Cumulation ({@link #HEADROOM_CUMULATOR}): when a read ends inside a PDU, the next receive buffer
 * normally has free headroom in front (the TCP fabric's {@code HeadroomRecvByteBufAllocator}); a
 * short unfinished tail is moved there, so PDUs keep being framed from one pooled buffer and each
 * data segment's root buffer is known ({@link IscsiPdu#dataRoot()}). Longer tails (large data
 * segments arriving in many TCP reads) are chained in a composite without copying, as Netty's
 * {@link #COMPOSITE_CUMULATOR} does.
 */
public final class IscsiPduFramer extends ByteToMessageDecoder {

    /** Bytes of a HeaderDigest or DataDigest. */
    public static final int DIGEST_LENGTH = 4;

    private final PduParser parser;
    private final Crc32c crc = new Crc32c();
    private boolean headerDigest;
    private boolean dataDigest;
    private int maxRecvDataSegmentLength;
    private boolean failed;

    /**
     * A target-side framer: accepts initiator opcodes only.
     *
     * @param maxRecvDataSegmentLength the largest data segment accepted (the target's declared value)
     */
    public IscsiPduFramer(int maxRecvDataSegmentLength) {
        this(maxRecvDataSegmentLength, true);
    }

    /**
     * @param maxRecvDataSegmentLength the largest data segment accepted
     * @param targetSide               true to accept initiator opcodes (a target), false to accept
     *                                 target opcodes (an initiator)
     */
    public IscsiPduFramer(int maxRecvDataSegmentLength, boolean targetSide) {
        this.maxRecvDataSegmentLength = maxRecvDataSegmentLength;
        this.parser = new PduParser(targetSide);
        setCumulator(HEADROOM_CUMULATOR);
    }

    /**
     * Moves a short unfinished tail into the new buffer's headroom (one copy of less than one
     * PDU per read, instead of a composite, its component objects and derived-buffer slices for
     * every PDU of the read), also when the tail ends a composite chain, so a connection returns
     * to single buffers after a long data segment; anything else goes to
     * {@link #COMPOSITE_CUMULATOR}.
     */
    static final Cumulator HEADROOM_CUMULATOR = (alloc, cumulation, in) -> {
        int tail = cumulation.readableBytes();
        if (tail == 0) {
            cumulation.release();
            return in;
        }
        int at = in.readerIndex() - tail;
        if (at < 0 || in.refCnt() != 1 || in.isReadOnly() || in.nioBufferCount() != 1) {
            return COMPOSITE_CUMULATOR.cumulate(alloc, cumulation, in);
        }
        try {
            // both are this event loop's receive buffers: their cached NIO views are ours to use
            ByteBuffer dst = in.internalNioBuffer(at, tail);
            if (cumulation.nioBufferCount() == 1) {
                ByteBuffer src = cumulation.internalNioBuffer(cumulation.readerIndex(), tail);
                dst.put(dst.position(), src, src.position(), tail);
            } else {
                // the end of a chain of reads (a long data segment): back to single buffers
                cumulation.getBytes(cumulation.readerIndex(), dst);
            }
            in.readerIndex(at);
            return in;
        } finally {
            cumulation.release();
        }
    };

    /** Switches digests and the data segment limit; called on the event loop when login completes. */
    public void configure(boolean headerDigest, boolean dataDigest, int maxRecvDataSegmentLength) {
        this.headerDigest = headerDigest;
        this.dataDigest = dataDigest;
        this.maxRecvDataSegmentLength = maxRecvDataSegmentLength;
    }

    /** True once a fatal error was emitted (all later input is discarded). */
    public boolean failed() {
        return failed;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (failed) {
            in.skipBytes(in.readableBytes());
            return;
        }
        int start = in.readerIndex();
        if (in.readableBytes() < IscsiPdu.BHS_LENGTH) {
            return;
        }
        int ahsLength = PduParser.ahsLength(in, start);
        int headerLength = IscsiPdu.BHS_LENGTH + ahsLength + (headerDigest ? DIGEST_LENGTH : 0);
        if (in.readableBytes() < headerLength) {
            return;
        }
        if (headerDigest && !headerDigestMatches(in, start, ahsLength)) {
            fail(ctx, in, out, RejectReason.PROTOCOL_ERROR, "header digest error");
            return;
        }
        int dsl = PduParser.dataSegmentLength(in, start);
        if (dsl > maxRecvDataSegmentLength) {
            fail(ctx, in, out, RejectReason.PROTOCOL_ERROR,
                    "DataSegmentLength " + dsl + " > MaxRecvDataSegmentLength " + maxRecvDataSegmentLength);
            return;
        }
        int padded = (dsl + 3) & ~3;
        int digestLength = dataDigest && dsl > 0 ? DIGEST_LENGTH : 0;
        int frameLength = headerLength + padded + digestLength;
        if (in.readableBytes() < frameLength) {
            return;
        }
        int opcode = PduParser.opcode(in, start);
        if (!parser.accepts(opcode)) {
            skip(ctx, in, out, frameLength, RejectReason.COMMAND_NOT_SUPPORTED,
                    "opcode 0x" + Integer.toHexString(opcode) + " not supported");
            return;
        }
        if (digestLength > 0) {
            int dataStart = start + headerLength;
            int expected = crc.reset().updateOwned(in, dataStart, padded).value();
            if (expected != in.getIntLE(dataStart + padded)) {
                skip(ctx, in, out, frameLength, RejectReason.DATA_DIGEST_ERROR, "data digest error");
                return;
            }
        }
        out.add(parser.parse(ctx.alloc(), in, start, start + headerLength));
        in.skipBytes(frameLength);
    }

    private boolean headerDigestMatches(ByteBuf in, int start, int ahsLength) {
        int covered = IscsiPdu.BHS_LENGTH + ahsLength;
        return crc.reset().updateOwned(in, start, covered).value() == in.getIntLE(start + covered);
    }

    /** Non-fatal: report and drop one whole frame. */
    private void skip(ChannelHandlerContext ctx, ByteBuf in, List<Object> out, int frameLength, int reason, String detail) {
        out.add(PduParser.error(ctx.alloc(), in, in.readerIndex(), reason, false, detail));
        in.skipBytes(frameLength);
    }

    /** Fatal: report, then discard this and all later input. */
    private void fail(ChannelHandlerContext ctx, ByteBuf in, List<Object> out, int reason, String detail) {
        failed = true;
        out.add(PduParser.error(ctx.alloc(), in, in.readerIndex(), reason, true, detail));
        in.skipBytes(in.readableBytes());
    }
}
