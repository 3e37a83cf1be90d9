package org.jtarget.fabric.iscsi.pdu;

import io.netty.buffer.ByteBuf;
import io.netty.util.AbstractReferenceCounted;

/**
 * What the decoder emits instead of a PDU when the input is malformed. The receiver answers with
 * a Reject carrying {@link #header()} (RFC 7143 11.17: the complete header of the bad PDU) and
 * with {@link #rejectReason()}, then closes the connection if {@link #fatal()} (framing lost).
 */
public final class PduDecodeError extends AbstractReferenceCounted {

    private final int rejectReason;
    private final boolean fatal;
    private final ByteBuf header;
    private final String detail;

    /**
     * @param rejectReason a {@link RejectReason} code
     * @param fatal        true if the stream cannot be re-synchronised and the connection must close
     * @param header       a copy of the offending BHS (48 bytes), owned by this object; may be empty
     * @param detail       a short human-readable description for the log
     */
    public PduDecodeError(int rejectReason, boolean fatal, ByteBuf header, String detail) {
        this.rejectReason = rejectReason;
        this.fatal = fatal;
        this.header = header;
        this.detail = detail;
    }

    public int rejectReason() { return rejectReason; }
    public boolean fatal() { return fatal; }
    /** The bad PDU's header; borrowed. */
    public ByteBuf header() { return header; }
    public String detail() { return detail; }

    @Override
    public PduDecodeError touch(Object hint) {
        header.touch(hint);
        return this;
    }

    @Override
    protected void deallocate() {
        header.release();
    }

    @Override
    public String toString() {
        return "PduDecodeError[reason=0x" + Integer.toHexString(rejectReason) + (fatal ? ", fatal" : "") + ", " + detail + "]";
    }
}
