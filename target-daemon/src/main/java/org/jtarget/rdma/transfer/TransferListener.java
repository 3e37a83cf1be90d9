package org.jtarget.rdma.transfer;

import org.jtarget.rdma.WorkCompletionStatus;

/** Told once when every work request of a transfer has completed. */
@FunctionalInterface
public interface TransferListener {

    /**
     * @param status SUCCESS, or the first failure among the transfer's completions (the queue pair is
     *               then in ERROR and the rest of the transfer was flushed or never posted)
     */
    void transferComplete(RdmaTransfer transfer, WorkCompletionStatus status);
}
