package org.jtarget.fabric.iscsi.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageEncoder;
import org.jtarget.fabric.iscsi.pdu.Crc32c;
import org.jtarget.fabric.iscsi.pdu.IscsiPdu;

import java.util.List;

/**
 * Writes {@link IscsiPdu}s as a gathering write: BHS, AHS, HeaderDigest, data segment (the PDU's
 * own buffer, not copied), padding, DataDigest. Consumes the PDU.
 *
 * <pre>
 *  out[0] BHS (48)            the PDU's buffer, retained; TotalAHSLength and DataSegmentLength
 *                             are set from the AHS and data buffers' sizes
 *  out[1] AHS                 if present (a multiple of 4 bytes)
 *  out[2] HeaderDigest (4)    if enabled: CRC32C over BHS + AHS, little-endian (RFC 7143 B.4)
 *  out[3] data segment        the PDU's buffer, retained, never copied
 *  out[4] padding + digest    0-3 zero bytes (RFC 7143 11.2.3), then the DataDigest over data +
 *                             padding if enabled and the segment is not empty
 * </pre>
 *
 * Each piece is a separate message so the channel's outbound buffer hands them to one
 * gathering write. {@link MessageToMessageEncoder} releases the PDU after {@link #encode}.
 */
public final class IscsiPduEncoder extends MessageToMessageEncoder<IscsiPdu> {

    /** Shared zero bytes for padding; slices of an unreleasable buffer cost no pool memory. */
    private static final ByteBuf PADDING = Unpooled.unreleasableBuffer(
            Unpooled.directBuffer(3, 3).writeZero(3).asReadOnly());

    private final Crc32c crc = new Crc32c();
    private boolean headerDigest;
    private boolean dataDigest;

    public IscsiPduEncoder() {
        super(IscsiPdu.class);
    }

    /** Switches digests; takes effect for the next PDU written. */
    public void configure(boolean headerDigest, boolean dataDigest) {
        this.headerDigest = headerDigest;
        this.dataDigest = dataDigest;
    }

    @Override
    protected void encode(ChannelHandlerContext ctx, IscsiPdu pdu, List<Object> out) {
        ByteBuf bhs = pdu.bhs();
        ByteBuf ahs = pdu.ahs();
        ByteBuf data = pdu.data();
        int dsl = data.readableBytes();
        pdu.totalAhsLength(ahs.readableBytes() >>> 2);
        pdu.dataSegmentLength(dsl);
        out.add(bhs.retain());
        if (ahs.isReadable()) {
            out.add(ahs.retain());
        }
        if (headerDigest) {
            int value = crc.reset().update(bhs).update(ahs).value();
            out.add(ctx.alloc().buffer(IscsiPduFramer.DIGEST_LENGTH).writeIntLE(value));
        }
        if (dsl == 0) {
            return;
        }
        out.add(data.retain());
        int pad = -dsl & 3;
        if (dataDigest) {
            int value = crc.reset().update(data).updateZeros(pad).value();
            out.add(ctx.alloc().buffer(pad + IscsiPduFramer.DIGEST_LENGTH).writeZero(pad).writeIntLE(value));
        } else if (pad > 0) {
            out.add(PADDING.slice(0, pad));
        }
    }
}
