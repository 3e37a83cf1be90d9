package org.jtarget.fabric.iscsi.pdu;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;

import java.util.List;

/**
 * Frames iSCSI PDUs out of a TCP byte stream (RFC 7143 11.2): BHS, AHS, optional HeaderDigest,
 * data segment padded to 4 bytes, optional DataDigest. Emits {@link IscsiPdu} (data segment as a
 * retained slice of the input, no copy) or, on malformed input, a {@link PduDecodeError}; it
 * never throws for bad input. After a fatal error it discards everything that follows.
 * API CONTRACT (implemented by the pdu/login work).
 */
public final class IscsiPduDecoder extends ByteToMessageDecoder {

    /** @param maxRecvDataSegmentLength the largest data segment accepted (the target's declared value) */
    public IscsiPduDecoder(int maxRecvDataSegmentLength) {
        throw new UnsupportedOperationException("API contract: implemented by the pdu/login work");
    }

    /** Switches digests and the data segment limit; called on the event loop when login completes. */
    public void configure(boolean headerDigest, boolean dataDigest, int maxRecvDataSegmentLength) {
        throw new UnsupportedOperationException("API contract: implemented by the pdu/login work");
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        throw new UnsupportedOperationException("API contract: implemented by the pdu/login work");
    }
}
