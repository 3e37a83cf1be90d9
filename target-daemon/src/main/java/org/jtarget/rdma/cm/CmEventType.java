package org.jtarget.rdma.cm;

/** Connection events, after librdmacm {@code enum rdma_cm_event_type} (rdma_get_cm_event(3)). */
public enum CmEventType {
    /** A peer asks to connect (listener side); accept or reject the event's id. */
    CONNECT_REQUEST,
    /** The connection is up; both queue pairs are in RTS. */
    ESTABLISHED,
    /** The peer rejected the request; the event carries its private data. */
    REJECTED,
    /** Nothing listens at the address, or the transport failed while connecting. */
    UNREACHABLE,
    /** The connection is down; the queue pair is in ERROR. */
    DISCONNECTED
}
