package org.jtarget.fabric.iscsi.spi;

import io.netty.buffer.ByteBuf;
import org.jtarget.fabric.iscsi.login.NegotiatedParameters;
import org.jtarget.fabric.iscsi.pdu.IscsiPdu;

/**
 * The iSCSI protocol engine of one connection, as its {@link IscsiTransport} sees it: the
 * transport reports what happens to the connection and borrows the engine's sequence numbers
 * for the PDUs it builds (R2T, Data-In). Every method but the two that build PDUs runs on the
 * transport's {@link IscsiTransport#executor()}.
 */
public interface IscsiEngine {

    /** The transport is attached to this engine (the connection may not be up yet). */
    void transportAttached();

    /** The connection is up: the login phase begins. */
    void transportActive();

    /**
     * One received message, consumed: an {@link IscsiPdu} (a whole PDU, digests checked and
     * removed) or a {@link org.jtarget.fabric.iscsi.pdu.PduDecodeError}.
     */
    void received(Object message);

    /** The connection is gone: its tasks are aborted (ErrorRecoveryLevel 0). */
    void transportInactive();

    /** Nothing was received for the NOP-In interval. */
    void idle();

    /** The transport's output crossed its buffering limit, upwards (false) or back down (true). */
    void writabilityChanged(boolean writable);

    /** The transport failed: the engine logs it and closes the connection. */
    void failed(Throwable cause);

    /**
     * The next bytes of a task's solicited Data-Out, which the transport fetched itself (iSER:
     * an RDMA READ requested by {@link IscsiTransport#requestDataOut}, now complete); consumes
     * data and ends one outstanding request. Session loop.
     */
    void dataOutFetched(TaskTransfer task, ByteBuf data);

    /** The parameters negotiated at login (null before the full feature phase). */
    NegotiatedParameters parameters();

    /**
     * A new target PDU with StatSN, ExpCmdSN and MaxCmdSN filled (RFC 7143 11.2.1); consumes
     * data. StatSN advances only for PDUs that carry a status. Session loop.
     */
    IscsiPdu targetPdu(int opcode, ByteBuf data, boolean advanceStatSn);

    /** A Target Transfer Tag of this connection, never the reserved 0xffffffff. Session loop. */
    int nextTargetTransferTag();
}
