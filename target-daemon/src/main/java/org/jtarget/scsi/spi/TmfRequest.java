package org.jtarget.scsi.spi;

import io.netty.util.concurrent.EventExecutor;

/**
 * A task management function request (SAM-5 7) travelling from a fabric to the core and back.
 * Allocation is fine here: task management is a control path.
 */
public final class TmfRequest {

    /**
     * SAM-5 7 task management functions, plus iSCSI's TASK REASSIGN (RFC 7143 11.5.1), which the
     * core refuses. Protocol neutral: fabrics map their wire codes
     * ({@code org.jtarget.fabric.iscsi.pdu.ScsiWireCodes}).
     */
    public enum Function {
        ABORT_TASK, ABORT_TASK_SET, CLEAR_ACA, CLEAR_TASK_SET, LOGICAL_UNIT_RESET, TARGET_WARM_RESET,
        TARGET_COLD_RESET, TASK_REASSIGN
    }

    /** Task management service responses (SAM-5 7.1), as fabrics report them. */
    public enum Response {
        FUNCTION_COMPLETE, TASK_DOES_NOT_EXIST, LUN_DOES_NOT_EXIST, TASK_STILL_ALLEGIANT,
        TASK_ALLEGIANCE_REASSIGNMENT_NOT_SUPPORTED, FUNCTION_NOT_SUPPORTED, FUNCTION_AUTHORIZATION_FAILED,
        FUNCTION_REJECTED
    }

    private final Function function;
    private final int lun;
    private final long referencedTag;
    private final ITNexus nexus;
    private final FabricOps fabric;
    private final EventExecutor eventLoop;
    private final Object fabricContext;
    private Response response = Response.FUNCTION_COMPLETE;

    /**
     * @param referencedTag the tag of the task to abort (ABORT TASK), else ignored
     * @param fabricContext the fabric's own state for the answer (e.g. the iSCSI PDU fields)
     */
    public TmfRequest(Function function, int lun, long referencedTag, ITNexus nexus, FabricOps fabric,
                      EventExecutor eventLoop, Object fabricContext) {
        this.function = function;
        this.lun = lun;
        this.referencedTag = referencedTag;
        this.nexus = nexus;
        this.fabric = fabric;
        this.eventLoop = eventLoop;
        this.fabricContext = fabricContext;
    }

    public Function function() { return function; }
    public int lun() { return lun; }
    public long referencedTag() { return referencedTag; }
    public ITNexus nexus() { return nexus; }
    public FabricOps fabric() { return fabric; }
    public EventExecutor eventLoop() { return eventLoop; }
    public Object fabricContext() { return fabricContext; }
    public Response response() { return response; }
    public void response(Response response) { this.response = response; }
}
