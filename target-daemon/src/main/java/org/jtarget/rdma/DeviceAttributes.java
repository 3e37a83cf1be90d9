package org.jtarget.rdma;

/**
 * The limits of a device, after libibverbs {@code struct ibv_device_attr} / {@code ibv_port_attr}.
 *
 * @param maxQpWr    most outstanding work requests per queue (max_qp_wr)
 * @param maxSge     most scatter/gather elements per work request (max_sge)
 * @param maxCqe     most entries per completion queue (max_cqe)
 * @param maxMsgSize largest message (SEND, RDMA WRITE or READ) in bytes (ibv_port_attr.max_msg_sz)
 */
public record DeviceAttributes(int maxQpWr, int maxSge, int maxCqe, int maxMsgSize) {

    public DeviceAttributes {
        if (maxQpWr < 1 || maxSge < 1 || maxCqe < 1 || maxMsgSize < 1) {
            throw new IllegalArgumentException("device limits must be positive");
        }
    }
}
