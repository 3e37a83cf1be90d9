package org.jtarget.fabric.srp;

import org.jtarget.buffer.ScatterList;
import org.jtarget.fabric.srp.iu.SrpCommand;
import org.jtarget.scsi.spi.ScsiCommand;

/**
 * One SRP_CMD of a channel on its way through the core (the command's fabric context), pooled per
 * channel: a channel has one per credit, so an initiator within its request limit always finds one.
 */
final class SrpTask {

    final int index;
    final ScsiCommand cmd = new ScsiCommand();
    final ScatterList dataOutSegments = new ScatterList();
    /** Where data-out comes from (RDMA READ) and data-in goes (RDMA WRITE) in the initiator's memory. */
    final RemoteBuffers dataOutBuffers = new RemoteBuffers();
    final RemoteBuffers dataInBuffers = new RemoteBuffers();
    final RemoteBuffers.Cursor readCursor = new RemoteBuffers.Cursor();

    /** The SRP_CMD's tag, echoed in its SRP_RSP. */
    long tag;
    /** The data-out came as immediate data in the SRP_CMD (SRP-2): no RDMA READ. */
    boolean immediate;
    /** Data-out bytes to fetch, asked for by READs so far, arrived so far; READs in flight. */
    int wanted;
    int requested;
    int received;
    int outstanding;
    boolean inUse;
    /** Its SRP_RSP waits for a free send buffer. */
    boolean responseWaiting;
    /**
     * The core ended the command aborted while RDMA READs of its data-out were in flight: the task
     * goes back to the pool, and its credit to the initiator, when the last of them completes.
     */
    boolean abandoned;
    /**
     * The direction whose indirect descriptor table is being fetched by RDMA READ (it was only
     * partly in the SRP_CMD), or null; the command goes to the core when it is here.
     */
    SrpCommand.Direction tableFetch;
    /** The TOTAL LENGTH of that indirect descriptor (checked against the fetched table). */
    long tableTotal;

    SrpTask(int index) {
        this.index = index;
    }

    /** Clears the task for its next command; its buffers were released with the command's. */
    void reset() {
        cmd.reset();
        dataOutSegments.clear();
        dataOutBuffers.clear();
        dataInBuffers.clear();
        readCursor.reset();
        tag = 0;
        immediate = false;
        wanted = 0;
        requested = 0;
        received = 0;
        outstanding = 0;
        inUse = false;
        responseWaiting = false;
        abandoned = false;
        tableFetch = null;
        tableTotal = 0;
    }
}
