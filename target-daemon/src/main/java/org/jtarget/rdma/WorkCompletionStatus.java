package org.jtarget.rdma;

/**
 * Completion status, after libibverbs {@code enum ibv_wc_status} (ibv_poll_cq(3)); only the values
 * the emulated providers produce.
 */
public enum WorkCompletionStatus {
    SUCCESS,
    /** The receive buffers are too small for the incoming message (IBV_WC_LOC_LEN_ERR). */
    LOC_LEN_ERR,
    /** Internal consistency error in a work request (IBV_WC_LOC_QP_OP_ERR). */
    LOC_QP_OP_ERR,
    /** A local SGE names a bad lkey, lies outside its region or lacks LOCAL_WRITE (IBV_WC_LOC_PROT_ERR). */
    LOC_PROT_ERR,
    /** The queue pair was in, or moved to, ERROR before this request completed (IBV_WC_WR_FLUSH_ERR). */
    WR_FLUSH_ERR,
    /** The responder found the request invalid, e.g. its receive was too small (IBV_WC_REM_INV_REQ_ERR). */
    REM_INV_REQ_ERR,
    /** The responder refused a remote access: bad rkey, bounds or access flags (IBV_WC_REM_ACCESS_ERR). */
    REM_ACCESS_ERR,
    /** The responder could not complete the operation (IBV_WC_REM_OP_ERR). */
    REM_OP_ERR,
    /** No acknowledgement: the peer is gone or not ready (IBV_WC_RETRY_EXC_ERR). */
    RETRY_EXC_ERR,
    /** The peer had no receive posted for longer than the RNR retries allow (IBV_WC_RNR_RETRY_EXC_ERR). */
    RNR_RETRY_EXC_ERR,
    /** The frame stream of the connection was malformed (IBV_WC_FATAL_ERR). */
    FATAL_ERR
}
