package org.jtarget.rdma;

/**
 * Provider SPI: the payload of an inbound SEND or RDMA WRITE, wherever it is (the peer's registered
 * memory for loopback, a received frame for tcp). The responder copies it into its own regions
 * piece by piece; the payload never allocates to do so.
 */
public interface InboundPayload {

    /** Copies {@code length} bytes starting at {@code payloadOffset} into {@code dst} at {@code dstOffset}. */
    void copyTo(long payloadOffset, MemoryRegion dst, long dstOffset, int length);
}
