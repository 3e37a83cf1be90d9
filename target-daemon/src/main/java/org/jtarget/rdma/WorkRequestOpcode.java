package org.jtarget.rdma;

/** Send queue operations, after libibverbs {@code enum ibv_wr_opcode} (ibv_post_send(3)). */
public enum WorkRequestOpcode {
    RDMA_WRITE,
    RDMA_WRITE_WITH_IMM,
    SEND,
    SEND_WITH_IMM,
    /** SEND that invalidates the peer's {@code invalidateRkey} (IBV_WR_SEND_WITH_INV). */
    SEND_WITH_INV,
    RDMA_READ;

    /** Whether the operation consumes a receive at the peer. */
    public boolean consumesReceive() {
        return this == SEND || this == SEND_WITH_IMM || this == SEND_WITH_INV || this == RDMA_WRITE_WITH_IMM;
    }
}
