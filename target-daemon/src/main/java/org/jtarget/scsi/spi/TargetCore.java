package org.jtarget.scsi.spi;

/**
 * The SCSI core of one target (its LUN namespace), as seen by fabrics. Calls are made on the
 * fabric's event loop and never block: gating and CDB parsing run inline, store I/O is
 * scheduled on the logical unit's I/O executor, and completions come back through
 * {@link FabricOps} on the command's event loop.
 */
public interface TargetCore {

    /**
     * Admit or park, then gate, parse and schedule a new command: past its LU's queue depth the
     * command is parked ({@link FabricOps#commandParked}) and goes on when admitted. The fabric
     * has filled the command's CDB, LUN, tag, task attribute, direction, expected data transfer
     * length, nexus, fabric and event loop.
     * Immediate data may already be in {@link ScsiCommand#dataOut()}.
     */
    void submit(ScsiCommand cmd);

    /** All the data-out asked for by {@link FabricOps#writePending} has arrived (or the command was aborted). */
    void dataOutComplete(ScsiCommand cmd);

    /** Run a task management function; the answer comes through {@link FabricOps#queueTmResponse}. */
    void submitTmf(TmfRequest tmf);

    /** A new I_T nexus exists (login): it starts with a POWER ON, RESET OR BUS DEVICE RESET unit attention. */
    void nexusLoggedIn(ITNexus nexus);

    /** The I_T nexus is gone (logout, session closed): its commands are aborted and its state dropped. */
    void nexusLoggedOut(ITNexus nexus);

    /** LUN numbers this target exposes, ascending (for REPORT LUNS and fabric-side checks). */
    int[] lunNumbers();
}
