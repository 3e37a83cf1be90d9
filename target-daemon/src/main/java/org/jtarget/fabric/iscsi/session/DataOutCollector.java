package org.jtarget.fabric.iscsi.session;

import io.netty.buffer.ByteBuf;
import org.jtarget.buffer.ScatterList;
import org.jtarget.fabric.iscsi.login.NegotiatedParameters;
import org.jtarget.fabric.iscsi.pdu.IscsiPdu;
import org.jtarget.fabric.iscsi.pdu.RejectReason;
import org.jtarget.scsi.spi.DataDirection;
import org.jtarget.scsi.spi.ScsiCommand;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Data-Out collection of one connection (RFC 7143 10.7-10.8, 11.7): immediate data, the
 * unsolicited burst and solicited Data-Out are checked against each task's sequence and kept as
 * retained slices in the task's data-out list; once the unsolicited part is over, the transport
 * is asked for the rest ({@link org.jtarget.fabric.iscsi.spi.IscsiTransport#requestDataOut}:
 * R2Ts over TCP) until the command's data is in.
 */
final class DataOutCollector {

    private static final Logger LOG = LoggerFactory.getLogger(DataOutCollector.class);

    private final IscsiConnection connection;
    private final IscsiSession session;
    private final NegotiatedParameters params;
    private final TaskSequencer tasks;

    DataOutCollector(TaskSequencer tasks) {
        this.tasks = tasks;
        this.connection = tasks.connection();
        this.session = tasks.session();
        this.params = tasks.params();
    }

    /** The immediate data of a new WRITE command (the PDU keeps its own reference). */
    void immediateData(IscsiTask task, IscsiPdu pdu) {
        ByteBuf data = pdu.data();
        if (data.isReadable()) {
            appendDataOut(task, pdu);
            task.received = data.readableBytes();
        }
        // RFC 7143 11.3.1: F=1 means no unsolicited Data-Out follows; InitialR2T=Yes forbids it.
        if ((pdu.flags() & IscsiPdu.FINAL_BIT) != 0 || params.initialR2T() || task.received >= unsolicitedLimit(task)) {
            unsolicitedDone(task);
        }
    }

    private ScatterList dataOutBuffer(IscsiTask task) {
        ScatterList list = task.cmd.dataOutSegments();
        if (list == null) {
            list = task.dataOutSegments;
            task.cmd.dataOut(list);
        }
        return list;
    }

    /** Appends a PDU's data segment to the task's data-out (the PDU keeps its own reference). */
    private void appendDataOut(IscsiTask task, IscsiPdu pdu) {
        ByteBuf data = pdu.data();
        ByteBuf root = pdu.dataRoot();
        if (root != null) {
            dataOutBuffer(task).add(data.retain(), root, pdu.dataRootIndex());
        } else {
            dataOutBuffer(task).add(data.retain());
        }
    }

    private int unsolicitedLimit(IscsiTask task) {
        return Math.min(params.firstBurstLength(), task.cmd.expectedDataTransferLength());
    }

    private static void unsolicitedDone(IscsiTask task) {
        task.unsolicitedDone = true;
        task.solicitedStart(task.received);
        task.requested(task.received);
        task.expectedDataSn = 0;
    }

    /** A SCSI Data-Out PDU (consumes it). RFC 7143 11.7: offsets in order, DataSN per sequence. */
    void dataOut(IscsiPdu pdu) {
        try {
            IscsiTask task = tasks.find(pdu.initiatorTaskTag());
            if (task == null || task.dataOutDone || task.cmd.direction() == DataDirection.READ
                    || task.cmd.direction() == DataDirection.NONE) {
                LOG.debug("Data-Out for no waiting task (itt 0x{}): dropped", Integer.toHexString(pdu.initiatorTaskTag()));
                return;
            }
            if (!acceptDataOut(task, pdu, pdu.data().readableBytes(), pdu.data())) {
                rejectDataOut(task, pdu);
                return;
            }
            advance(task);
        } finally {
            pdu.release();
        }
    }

    /**
     * A Data-Out the framer discarded for a data digest error; the connection already sent the
     * Reject (reason 0x02). RFC 7143 7.8: the target must then either ask for the data again with
     * a recovery R2T (ErrorRecoveryLevel 1 and up) or, as here at level 0, end the task with CHECK
     * CONDITION and the iSCSI condition "protocol service CRC error" (11.4.7.2) once the
     * outstanding transfers are over. The header is intact (it passed the HeaderDigest if any),
     * so the lost bytes still count for the sequence and the initiator's following Data-Out fit.
     *
     * @param header the discarded PDU's BHS (borrowed)
     */
    void dataOutDigestError(IscsiPdu header) {
        IscsiTask task = tasks.find(header.initiatorTaskTag());
        if (task == null || task.dataOutDone) {
            return;
        }
        LOG.info("Data-Out for itt 0x{} (offset {}) lost to a data digest error: the task will end with "
                + "PROTOCOL SERVICE CRC ERROR", Integer.toHexString(task.itt()), header.bufferOffset());
        task.dataDigestError = true;
        if (!acceptDataOut(task, header, header.dataSegmentLength(), null)) {
            abortDataOut(task); // the lost PDU did not even fit the sequence: nothing more can be placed
            return;
        }
        advance(task);
    }

    /**
     * A Data-Out with a wrong DataSN, offset or TTT: Reject it (RFC 7143 11.17.1, the initiator then
     * fails the task it refers to) and abort the task, whose remaining data can no longer be
     * placed. The connection stays up so the initiator's other tasks are unaffected.
     */
    private void rejectDataOut(IscsiTask task, IscsiPdu pdu) {
        LOG.info("Data-Out out of sequence for itt 0x{} (DataSN {}, offset {}): rejected, task aborted",
                Integer.toHexString(task.itt()), pdu.dataSn(), pdu.bufferOffset());
        connection.sendReject(RejectReason.PROTOCOL_ERROR, pdu.bhs());
        connection.transport().flush();
        abortDataOut(task);
    }

    private void abortDataOut(IscsiTask task) {
        task.cmd.markAborted();
        boolean handBack = task.writePending && !task.dataOutDone;
        task.dataOutDone = true; // later Data-Out for this task is dropped; writePending sees the abort
        if (handBack) {
            session.core().dataOutComplete(task.cmd);
        }
    }

    /**
     * Checks a Data-Out against the task's sequence and counts its {@code len} bytes.
     *
     * @param data the payload to keep, or null when it is lost (data digest error) or useless
     *             (the task already lost some)
     */
    private boolean acceptDataOut(IscsiTask task, IscsiPdu pdu, int len, ByteBuf data) {
        int offset = pdu.bufferOffset();
        boolean solicited = pdu.targetTransferTag() != IscsiPdu.RESERVED_TAG;
        if (offset != task.received) {
            return false; // DataPDUInOrder=Yes and DataSequenceInOrder=Yes
        }
        if (solicited) {
            if (!task.unsolicitedDone || pdu.targetTransferTag() != task.transferTag()
                    || offset + len > task.requested()) {
                return false;
            }
            if ((offset - task.solicitedStart()) % params.maxBurstLength() == 0) {
                task.expectedDataSn = 0; // a new R2T sequence starts its own DataSN numbering
            }
        } else if (task.unsolicitedDone || offset + len > unsolicitedLimit(task)) {
            return false;
        }
        if (pdu.dataSn() != task.expectedDataSn) {
            return false;
        }
        task.expectedDataSn++;
        if (len > 0 && data != null && !task.dataDigestError) {
            appendDataOut(task, pdu);
        }
        task.received += len;
        if (!solicited && (pdu.finalFlag() || task.received >= unsolicitedLimit(task))) {
            unsolicitedDone(task);
        } else if (solicited && (task.received == task.requested()
                || (task.received - task.solicitedStart()) % params.maxBurstLength() == 0)) {
            task.outstanding(task.outstanding() - 1); // this R2T's sequence is complete
        }
        return true;
    }

    /**
     * The task's next solicited bytes, fetched by the transport itself (iSER: RDMA READ);
     * consumes data. A task that ended or gave up its data meanwhile drops them.
     */
    void fetched(IscsiTask task, ByteBuf data) {
        if (tasks.find(task.itt()) != task || task.dataOutDone) {
            data.release();
            return;
        }
        task.received += data.readableBytes();
        dataOutBuffer(task).add(data);
        task.outstanding(task.outstanding() - 1);
        advance(task);
    }

    /** Completes the data-out phase or asks the transport for more (RFC 7143 10.8). */
    private void advance(IscsiTask task) {
        if (!task.writePending || task.dataOutDone || !task.unsolicitedDone) {
            return;
        }
        if (task.dataDigestError) {
            if (task.outstanding() == 0) {
                endWithCrcError(task); // every outstanding transfer is over; ask for nothing more
            }
            return;
        }
        if (task.received >= task.wanted()) {
            task.dataOutDone = true;
            session.core().dataOutComplete(task.cmd);
            return;
        }
        connection.transport().requestDataOut(task);
    }

    /** The core ends the aborted command through {@link ResponseSender#abortedTask}, which sends the status. */
    private void endWithCrcError(IscsiTask task) {
        task.dataOutDone = true;
        task.endWithCrcError = !task.cmd.isAborted();
        task.cmd.markAborted();
        session.core().dataOutComplete(task.cmd);
    }

    /** The core is ready for the command's data-out. */
    void writePending(ScsiCommand cmd) {
        IscsiTask task = (IscsiTask) cmd.fabricContext();
        task.writePending = true;
        task.wanted(Math.max(0, Math.min(cmd.expectedDataTransferLength(), cmd.dataOutLength())));
        dataOutBuffer(task);
        if (connection.isClosed() || cmd.isAborted()) {
            cmd.markAborted();
            task.dataOutDone = true;
            session.core().dataOutComplete(cmd);
            return;
        }
        advance(task);
    }
}
