package org.jtarget.scsi.spi;

import io.netty.util.concurrent.EventExecutor;

/**
 * A task management function request (SAM-5 7) travelling from a fabric to the core and back.
 * Allocation is fine here: task management is a control path.
 */
public final class TmfRequest {

    /** SAM-5 task management functions, with the iSCSI Function codes (RFC 7143 11.5.1). */
    public enum Function {
        ABORT_TASK(1), ABORT_TASK_SET(2), CLEAR_ACA(3), CLEAR_TASK_SET(4), LOGICAL_UNIT_RESET(5),
        TARGET_WARM_RESET(6), TARGET_COLD_RESET(7), TASK_REASSIGN(8);

        public final int iscsiCode;

        Function(int iscsiCode) {
            this.iscsiCode = iscsiCode;
        }

        /** @return the function, or null for a code RFC 7143 does not define */
        public static Function fromIscsi(int code) {
            for (Function f : values()) {
                if (f.iscsiCode == code) {
                    return f;
                }
            }
            return null;
        }
    }

    /** Task management responses with the iSCSI Response codes (RFC 7143 11.6.1). */
    public enum Response {
        FUNCTION_COMPLETE(0), TASK_DOES_NOT_EXIST(1), LUN_DOES_NOT_EXIST(2), TASK_STILL_ALLEGIANT(3),
        TASK_ALLEGIANCE_REASSIGNMENT_NOT_SUPPORTED(4), FUNCTION_NOT_SUPPORTED(5),
        FUNCTION_AUTHORIZATION_FAILED(6), FUNCTION_REJECTED(255);

        public final int iscsiCode;

        Response(int iscsiCode) {
            this.iscsiCode = iscsiCode;
        }
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
