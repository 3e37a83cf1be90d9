package org.jtarget.fabric.iscsi.session;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.jtarget.fabric.iscsi.pdu.IscsiPdu;
import org.jtarget.fabric.iscsi.pdu.Opcode;
import org.jtarget.scsi.sense.SenseBuilder;
import org.jtarget.scsi.sense.SenseReason;
import org.jtarget.scsi.spi.ScsiCommand;
import org.jtarget.scsi.spi.ScsiStatus;

/**
 * The end of a task on one connection: its Data-In through the transport
 * ({@link org.jtarget.fabric.iscsi.spi.IscsiTransport#sendDataIn}: Data-In PDUs over TCP, the
 * status in the last one when it is GOOD), and a SCSI Response with status, sense and residuals
 * when the status did not go with the data
 * (RFC 7143 11.4), and the CmdSN window slot the task gives back.
 */
final class ResponseSender {

    private final TaskSequencer tasks;
    private final IscsiConnection connection;
    private final IscsiSession session;

    ResponseSender(TaskSequencer tasks) {
        this.tasks = tasks;
        this.connection = tasks.connection();
        this.session = tasks.session();
    }

    /** The core has the command's Data-In (and status). */
    void queueDataIn(ScsiCommand cmd) {
        IscsiTask task = (IscsiTask) cmd.fabricContext();
        ByteBuf dataIn = cmd.dataIn();
        int total = dataIn == null ? 0 : dataIn.readableBytes();
        int n = Math.min(cmd.expectedDataTransferLength(), total);
        if (connection.isClosed() || n == 0) {
            sendResponse(task, total); // EDTL 0: no Data-In, but the residual still counts what the CDB asked for
            return;
        }
        boolean statusAllowed = cmd.status() == ScsiStatus.GOOD || cmd.status() == ScsiStatus.CONDITION_MET;
        if (connection.transport().sendDataIn(task, statusAllowed)) {
            tasks.finish(task);
        } else {
            sendResponse(task, total);
        }
    }

    /** The core has the command's status, and no Data-In. */
    void queueStatus(ScsiCommand cmd) {
        IscsiTask task = (IscsiTask) cmd.fabricContext();
        int transferred = switch (cmd.direction()) {
            // ScsiCommand.dataOutLength(): residuals of a data-out command compare the CDB's length with EDTL
            case WRITE, BIDIRECTIONAL -> cmd.dataOutLength();
            default -> 0;
        };
        sendResponse(task, transferred);
    }

    /** RFC 7143 11.4: SCSI Response with status, sense (SenseLength + bytes) and residual; ends the task. */
    void sendResponse(IscsiTask task, int transferred) {
        ScsiCommand cmd = task.cmd;
        if (!connection.isClosed()) {
            int edtl = cmd.expectedDataTransferLength();
            ByteBuf sense = Unpooled.EMPTY_BUFFER;
            if (cmd.senseLength() > 0) {
                sense = connection.alloc().buffer(2 + cmd.senseLength());
                sense.writeShort(cmd.senseLength());
                sense.writeBytes(cmd.sense(), 0, cmd.senseLength());
            }
            releaseWindowSlot(task);
            IscsiPdu rsp = connection.targetPdu(Opcode.SCSI_RESPONSE, sense, true);
            rsp.flags(IscsiPdu.FINAL_BIT | IscsiPdu.residualFlags(edtl, transferred));
            rsp.byte2(0); // Command Completed at Target
            rsp.byte3(cmd.status());
            rsp.initiatorTaskTag(task.itt());
            rsp.word36(task.pduSn()); // ExpDataSN: Data-In and R2T PDUs sent for this task
            rsp.residualCount(transferred == edtl ? 0 : Math.abs(transferred - edtl));
            connection.transport().sendAndFlush(rsp);
        }
        tasks.finish(task);
    }

    /** The core ended an aborted command. */
    void abortedTask(ScsiCommand cmd) {
        IscsiTask task = (IscsiTask) cmd.fabricContext();
        if (task.endWithCrcError) {
            // RFC 7143 11.4.7.2: ABORTED COMMAND, PROTOCOL SERVICE CRC ERROR; the data never reached the medium
            int n = SenseBuilder.build(cmd.sense(), SenseReason.PROTOCOL_SERVICE_CRC_ERROR, false);
            cmd.checkCondition(cmd.sense(), n);
            sendResponse(task, cmd.dataOutLength());
            return;
        }
        tasks.finish(task); // SAM-5 5.6: no status for an aborted task
    }

    /** Non-immediate tasks give their CmdSN window slot back when they end (MaxCmdSN moves). */
    void releaseWindowSlot(IscsiTask task) {
        if (!task.immediate) {
            task.immediate = true; // released once
            session.window().completed();
        }
    }
}
