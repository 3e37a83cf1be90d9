package org.jtarget.rdma;

/**
 * What a completion completes, after libibverbs {@code enum ibv_wc_opcode}. {@link #BARRIER} is a
 * jtarget addition: the completion of {@link QueuePair#postBarrier(long)}.
 */
public enum WorkCompletionOpcode {
    SEND,
    RDMA_WRITE,
    RDMA_READ,
    RECV,
    RECV_RDMA_WITH_IMM,
    BARRIER;

    static WorkCompletionOpcode of(WorkRequestOpcode op) {
        return switch (op) {
            case SEND, SEND_WITH_IMM, SEND_WITH_INV -> SEND;
            case RDMA_WRITE, RDMA_WRITE_WITH_IMM -> RDMA_WRITE;
            case RDMA_READ -> RDMA_READ;
        };
    }
}
