package org.jtarget.fabric.iscsi.spi;

import org.jtarget.scsi.spi.ScsiCommand;

/**
 * The data-movement state of one SCSI task that the engine shares with its transport
 * (RFC 7143 10.7-10.8): tags, the task's R2TSN / DataSN counter and the solicited range. The
 * engine's task object extends it, so a transfer costs no allocation. Session loop only.
 */
public abstract class TaskTransfer {

    private int itt;
    private long lunField;
    private int transferTag;
    private int pduSn;
    private int wanted;
    private int requested;
    private int solicitedStart;
    private int outstanding;

    /** The command whose data moves. */
    public abstract ScsiCommand command();

    /**
     * The status is about to leave with the task's data: the engine gives the task's command
     * window slot back first, so the PDU that carries the status carries the new MaxCmdSN.
     */
    public abstract void statusSent();

    /** Initiator Task Tag. */
    public final int itt() { return itt; }
    public final void itt(int itt) { this.itt = itt; }

    /** The LUN field as the initiator sent it (8 bytes, RFC 7143 11.3.4). */
    public final long lunField() { return lunField; }
    public final void lunField(long lunField) { this.lunField = lunField; }

    /** The Target Transfer Tag of the task's solicited data, 0 until one is needed. */
    public final int transferTag() { return transferTag; }
    public final void transferTag(int ttt) { this.transferTag = ttt; }

    /**
     * Returns and advances the task's PDU sequence number: R2TSN of an R2T or DataSN of a Data-In
     * (RFC 7143 11.7.4, 11.8.3; one counter, since a task has one data direction here).
     */
    public final int nextPduSn() { return pduSn++; }

    /** The next R2TSN / DataSN: the ExpDataSN of the SCSI Response (RFC 7143 11.4.6). */
    public final int pduSn() { return pduSn; }

    /** Bytes of Data-Out the command wants in all: min(EDTL, what the CDB transfers). */
    public final int wanted() { return wanted; }
    public final void wanted(int wanted) { this.wanted = wanted; }

    /** The first byte of Data-Out not yet requested from the initiator. */
    public final int requested() { return requested; }
    public final void requested(int offset) { this.requested = offset; }

    /**
     * The buffer offset where the solicited Data-Out starts: the bytes of immediate data and
     * unsolicited Data-Out before it. Over iSER the write base offset of the command's iSER
     * header already points here (Linux ib_iser sends its buffer's address + this many bytes), so
     * RDMA READs address the initiator's buffer relative to this offset.
     */
    public final int solicitedStart() { return solicitedStart; }
    public final void solicitedStart(int offset) { this.solicitedStart = offset; }

    /** Requests (TCP: R2Ts) whose data has not all arrived. */
    public final int outstanding() { return outstanding; }
    public final void outstanding(int n) { this.outstanding = n; }

    /** Back to the state of a new task (the object is pooled). */
    protected void resetTransfer() {
        itt = 0;
        lunField = 0;
        transferTag = 0;
        pduSn = 0;
        wanted = 0;
        requested = 0;
        solicitedStart = 0;
        outstanding = 0;
    }
}
