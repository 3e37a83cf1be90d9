package org.jtarget.rdma.cm;

/**
 * A connection event (librdmacm {@code struct rdma_cm_event}).
 *
 * @param type        what happened
 * @param id          the connection it happened to
 * @param privateData the peer's private data for CONNECT_REQUEST, ESTABLISHED (the accept's) and
 *                    REJECTED; empty otherwise
 */
public record CmEvent(CmEventType type, CmId id, byte[] privateData) {
}
