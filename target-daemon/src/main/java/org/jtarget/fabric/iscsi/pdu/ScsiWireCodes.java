package org.jtarget.fabric.iscsi.pdu;

import org.jtarget.scsi.spi.TaskAttribute;
import org.jtarget.scsi.spi.TmfRequest;

/**
 * iSCSI's wire encodings of the core's protocol-neutral SCSI enums: the ATTR field of a SCSI
 * Command (RFC 7143 11.3.1), the Function of a Task Management Function Request (11.5.1) and the
 * Response of a Task Management Function Response (11.6.1).
 */
public final class ScsiWireCodes {

    /** Function codes 1-8 of RFC 7143 11.5.1, at index code - 1. */
    private static final TmfRequest.Function[] FUNCTIONS = {
            TmfRequest.Function.ABORT_TASK, TmfRequest.Function.ABORT_TASK_SET, TmfRequest.Function.CLEAR_ACA,
            TmfRequest.Function.CLEAR_TASK_SET, TmfRequest.Function.LOGICAL_UNIT_RESET,
            TmfRequest.Function.TARGET_WARM_RESET, TmfRequest.Function.TARGET_COLD_RESET,
            TmfRequest.Function.TASK_REASSIGN};

    private ScsiWireCodes() {
    }

    /**
     * @param attr the 3-bit ATTR field: 0 Untagged and 1 Simple are both SAM's SIMPLE; the reserved
     *             values 5-7 are treated as SIMPLE too
     */
    public static TaskAttribute taskAttribute(int attr) {
        return switch (attr & 7) {
            case 2 -> TaskAttribute.ORDERED;
            case 3 -> TaskAttribute.HEAD_OF_QUEUE;
            case 4 -> TaskAttribute.ACA;
            default -> TaskAttribute.SIMPLE;
        };
    }

    /** @return the function, or null for a code RFC 7143 does not define */
    public static TmfRequest.Function tmfFunction(int code) {
        return code >= 1 && code <= FUNCTIONS.length ? FUNCTIONS[code - 1] : null;
    }

    /** The Response byte of a Task Management Function Response (RFC 7143 11.6.1). */
    public static int tmfResponse(TmfRequest.Response response) {
        return switch (response) {
            case FUNCTION_COMPLETE -> 0;
            case TASK_DOES_NOT_EXIST -> 1;
            case LUN_DOES_NOT_EXIST -> 2;
            case TASK_STILL_ALLEGIANT -> 3;
            case TASK_ALLEGIANCE_REASSIGNMENT_NOT_SUPPORTED -> 4;
            case FUNCTION_NOT_SUPPORTED -> 5;
            case FUNCTION_AUTHORIZATION_FAILED -> 6;
            case FUNCTION_REJECTED -> 255;
        };
    }
}
