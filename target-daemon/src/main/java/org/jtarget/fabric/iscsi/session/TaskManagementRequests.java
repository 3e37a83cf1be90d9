package org.jtarget.fabric.iscsi.session;

import io.netty.buffer.Unpooled;
import org.jtarget.fabric.iscsi.pdu.IscsiPdu;
import org.jtarget.fabric.iscsi.pdu.Opcode;
import org.jtarget.fabric.iscsi.pdu.ScsiWireCodes;
import org.jtarget.scsi.spi.LunAddress;
import org.jtarget.scsi.spi.TmfRequest;

/**
 * Task Management Function Requests of one connection (RFC 7143 11.5-11.6): most go to the
 * core (which also ends tasks parked by their LU's queue depth); tasks the core never saw
 * (waiting for their CmdSN turn, or not yet received) are ended here.
 * Control path: allocation is fine.
 */
final class TaskManagementRequests {

    /** TMF Request byte 1: the Function (RFC 7143 11.5.1). */
    static final int TMF_FUNCTION_MASK = 0x7f;

    private final TaskSequencer tasks;
    private final IscsiConnection connection;
    private final IscsiSession session;
    /** Requests handed to the core and not yet answered. */
    private int inCore;

    /** What the TMF response needs (the TmfRequest's fabric context). */
    record TmfContext(TaskManagementRequests requests, int itt) {
    }

    TaskManagementRequests(TaskSequencer tasks) {
        this.tasks = tasks;
        this.connection = tasks.connection();
        this.session = tasks.session();
    }

    /** RFC 7143 11.5: a Task Management Function Request (consumes it). */
    void request(IscsiPdu pdu, boolean immediate) {
        try {
            int itt = pdu.initiatorTaskTag();
            TmfRequest.Function function = ScsiWireCodes.tmfFunction(pdu.flags() & TMF_FUNCTION_MASK);
            if (function == null || session.discovery()) {
                sendTmResponse(itt, TmfRequest.Response.FUNCTION_REJECTED);
                return;
            }
            if (function == TmfRequest.Function.TASK_REASSIGN) {
                sendTmResponse(itt, TmfRequest.Response.TASK_ALLEGIANCE_REASSIGNMENT_NOT_SUPPORTED); // ERL 0
                return;
            }
            if (function == TmfRequest.Function.ABORT_TASK && !abortTaskKnownToCore(pdu)) {
                return;
            }
            TmfRequest tmf = new TmfRequest(function, LunAddress.decode(pdu.lunField()), pdu.word20() & 0xffff_ffffL,
                    session.nexus(), tasks, session.loop(), new TmfContext(this, itt));
            inCore++;
            session.core().submitTmf(tmf);
            failAbortedTransfers();
        } finally {
            pdu.release();
        }
    }

    /** The core answered a request. */
    void response(TmfRequest tmf) {
        inCore--;
        TmfContext context = (TmfContext) tmf.fabricContext();
        context.requests().sendTmResponse(context.itt(), tmf.response());
        failAbortedTransfers();
    }

    /** True while a request of this connection waits for the core's answer (which will carry MaxCmdSN). */
    boolean answerPending() {
        return inCore > 0;
    }

    private void failAbortedTransfers() {
        for (IscsiConnection c : session.connections()) {
            c.tasks().failAbortedTransfers();
        }
    }

    /**
     * ABORT TASK for a task the core never saw (RFC 7143 11.5.1): if it waits in the CmdSN queue
     * or has not arrived yet (RefCmdSN within the window), it is dropped and marked received, and
     * the answer is Function Complete; if it already ended, Task Does Not Exist.
     *
     * @return true if the core must handle the request
     */
    private boolean abortTaskKnownToCore(IscsiPdu pdu) {
        int refItt = pdu.word20();
        for (IscsiConnection c : session.connections()) {
            if (c.tasks().find(refItt) != null) {
                return true;
            }
        }
        int refCmdSn = pdu.maxCmdSn(); // word 32: RefCmdSN
        CmdSnWindow<IscsiSession.QueuedCommand> window = session.window();
        if (window.isQueued(refCmdSn) || window.inWindow(refCmdSn)) {
            IscsiSession.QueuedCommand dropped = window.consume(refCmdSn);
            if (dropped != null) {
                dropped.pdu().release();
            }
            sendTmResponse(pdu.initiatorTaskTag(), TmfRequest.Response.FUNCTION_COMPLETE);
            connection.deliverQueued();
            return false;
        }
        sendTmResponse(pdu.initiatorTaskTag(), TmfRequest.Response.TASK_DOES_NOT_EXIST);
        return false;
    }

    private void sendTmResponse(int itt, TmfRequest.Response response) {
        if (connection.isClosed()) {
            return;
        }
        IscsiPdu rsp = connection.targetPdu(Opcode.TASK_MGMT_RESPONSE, Unpooled.EMPTY_BUFFER, true);
        rsp.finalFlag(true);
        rsp.byte2(ScsiWireCodes.tmfResponse(response));
        rsp.initiatorTaskTag(itt);
        connection.transport().sendAndFlush(rsp);
    }
}
