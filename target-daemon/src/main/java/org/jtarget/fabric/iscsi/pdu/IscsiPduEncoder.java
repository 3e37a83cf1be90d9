package org.jtarget.fabric.iscsi.pdu;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageEncoder;

import java.util.List;

/**
 * Writes {@link IscsiPdu}s as a gathering write: BHS, AHS, HeaderDigest, data segment (the PDU's
 * own buffer, not copied), padding, DataDigest. Consumes the PDU.
 * API CONTRACT (implemented by the pdu/login work).
 */
public final class IscsiPduEncoder extends MessageToMessageEncoder<IscsiPdu> {

    public IscsiPduEncoder() {
        super(IscsiPdu.class);
    }

    /** Switches digests; takes effect for the next PDU written. */
    public void configure(boolean headerDigest, boolean dataDigest) {
        throw new UnsupportedOperationException("API contract: implemented by the pdu/login work");
    }

    @Override
    protected void encode(ChannelHandlerContext ctx, IscsiPdu pdu, List<Object> out) {
        throw new UnsupportedOperationException("API contract: implemented by the pdu/login work");
    }
}
