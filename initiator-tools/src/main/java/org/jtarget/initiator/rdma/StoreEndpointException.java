package org.jtarget.initiator.rdma;

import java.io.IOException;
import org.jtarget.rdma.WorkCompletionStatus;

/**
 * A store endpoint could not be reached, or refused or failed a transfer. The message is for
 * people; {@link #kind()} tells callers what to do about it (a CLI maps it to its exit codes).
 */
public final class StoreEndpointException extends IOException {

    /** What went wrong, from the caller's point of view. */
    public enum Kind {
        /** No connection: nothing listens, the host is unreachable, the endpoint rejected us or never answered. */
        NOT_CONNECTED,
        /** The endpoint refused an access (REM_ACCESS_ERR): read-only, outside its blocks, or not whole blocks. */
        ACCESS_REFUSED,
        /** Anything else: store I/O error at the target, connection lost, no completion in time, no resources here. */
        FAILED
    }

    private final Kind kind;
    private final WorkCompletionStatus status;

    /** @param status the failed work request's status, or null when the failure is not a completion */
    public StoreEndpointException(Kind kind, String message, WorkCompletionStatus status) {
        super(message);
        this.kind = kind;
        this.status = status;
    }

    public Kind kind() {
        return kind;
    }

    /** The failed work request's status, or null. */
    public WorkCompletionStatus status() {
        return status;
    }
}
