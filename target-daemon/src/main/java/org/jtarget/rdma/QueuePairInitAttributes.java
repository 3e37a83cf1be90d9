package org.jtarget.rdma;

/**
 * What a queue pair is created with, after libibverbs {@code struct ibv_qp_init_attr} (type RC only).
 *
 * @param sendCq     completions of send work requests
 * @param recvCq     completions of receive work requests
 * @param maxSendWr  send queue depth
 * @param maxRecvWr  receive queue depth
 * @param maxSendSge most elements per send work request
 * @param maxRecvSge most elements per receive work request
 */
public record QueuePairInitAttributes(CompletionQueue sendCq, CompletionQueue recvCq, int maxSendWr, int maxRecvWr,
                                      int maxSendSge, int maxRecvSge) {
}
