package org.jtarget.scsi.spi;

/**
 * What the SCSI core asks of a fabric (names follow LIO's target_core_fabric_ops so readers can
 * map them). Every call is made on the command's {@link ScsiCommand#eventLoop()}, never on a store
 * thread. Every submitted command ends with exactly one of {@link #queueDataIn},
 * {@link #queueStatus} or {@link #abortedTask}; after that call the fabric owns the command
 * again (it sends, releases {@code dataIn}/{@code dataOut} and recycles it) and the core never
 * touches it. A command parked by its LU's queue depth is announced by {@link #commandParked}
 * and {@link #commandUnparked} before any of these.
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

    /**
     * The command's logical unit is at its queue depth: the core parked the command (it is in the
     * LU's task set, so task management sees it, but it gets no {@link #writePending} and no store
     * I/O) until an admitted command of that LU ends. Commands of one LU are admitted in arrival
     * order. A fabric with flow control holds it here (iSCSI: MaxCmdSN stops advancing while any
     * command of the session is parked, RFC 7143 4.2.2.1) and releases it in
     * {@link #commandUnparked}; the default ignores it.
     *
     * @return false to refuse the wait (the initiator ignores the fabric's flow control): the core
     *         then ends the command with TASK SET FULL (SAM-5 5.3.1), unless a slot freed at that
     *         very moment, in which case it is admitted and {@link #commandUnparked} still follows
     */
    default boolean commandParked(ScsiCommand cmd) {
        return true;
    }

    /**
     * A command {@link #commandParked parked} earlier leaves the wait: admitted (the core goes on
     * with it: {@link #writePending} or a final call follows) or aborted while parked
     * ({@link #abortedTask} follows). Called once per parked command, whatever
     * {@code commandParked} returned, before the call that follows it.
     */
    default void commandUnparked(ScsiCommand cmd) {
    }
}
