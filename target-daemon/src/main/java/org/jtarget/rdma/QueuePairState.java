package org.jtarget.rdma;

/**
 * Queue pair states, after libibverbs {@code enum ibv_qp_state} (IBA 10.3.1). SQD and SQE are not
 * modelled: the emulated providers never drain or stop a send queue on their own.
 */
public enum QueuePairState {
    /** Created or reset: nothing may be posted. */
    RESET,
    /** Receives may be posted; nothing is processed. */
    INIT,
    /** Ready to receive: inbound messages are processed. */
    RTR,
    /** Ready to send: sends may be posted. */
    RTS,
    /** Every posted and outstanding work request completes with WR_FLUSH_ERR. */
    ERROR;

    /** Whether ibv_modify_qp(3) allows going from this state to {@code next} (IBA 10.3.1 figure). */
    public boolean canMoveTo(QueuePairState next) {
        if (next == RESET || next == ERROR) {
            return true;
        }
        return switch (this) {
            case RESET -> next == INIT;
            case INIT -> next == INIT || next == RTR;
            case RTR -> next == RTS;
            case RTS -> next == RTS;
            case ERROR -> false;
        };
    }
}
