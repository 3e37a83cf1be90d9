package org.jtarget.scsi.spi;

/**
 * What the SCSI core asks of a fabric (names follow LIO's target_core_fabric_ops so readers can
 * map them). Every call is made on the command's {@link ScsiCommand#eventLoop()}, never on a store
 * thread. Every submitted command ends with exactly one of {@link #queueDataIn},
 * {@link #queueStatus} or {@link #abortedTask}; after that call the fabric owns the command
 * again (it sends, releases {@code dataIn}/{@code dataOut} and recycles it) and the core never
 * touches it.
 */
public interface FabricOps {

    /**
     * The core accepted a data-out command and needs its payload: collect
     * {@link ScsiCommand#dataOutLength()} bytes into {@link ScsiCommand#dataOut()} (immediate,
     * unsolicited and solicited data, by iSCSI R2T or RDMA READ), then call
     * {@link TargetCore#dataOutComplete(ScsiCommand)}. If the transfer cannot finish (connection
     * lost, task aborted) mark the command aborted and still call {@code dataOutComplete}.
     */
    void writePending(ScsiCommand cmd);

    /**
     * Send {@link ScsiCommand#dataIn()} (the fabric computes residuals against the expected
     * data transfer length) and then the command's status, which is GOOD or CONDITION_MET;
     * iSCSI may carry the status in the last Data-In PDU.
     */
    void queueDataIn(ScsiCommand cmd);

    /** Send the command's status (with sense data when CHECK CONDITION) and no data. */
    void queueStatus(ScsiCommand cmd);

    /** Answer a task management request with {@link TmfRequest#response()}. */
    void queueTmResponse(TmfRequest tmf);

    /**
     * The command was aborted (task management, connection loss): send nothing for it
     * (SAM-5 5.6: an aborted task gets no status), release its buffers and recycle it.
     */
    void abortedTask(ScsiCommand cmd);
}
