package org.jtarget.rdma.iwarp;

/**
 * The ready-to-receive message (RTR) of RFC 6581's peer-to-peer mode: after the MPA reply, the
 * connection's initiator sends it as its first FPDU, zero-length, and the responder treats the
 * connection as established only once it arrived (so neither side sends before the other can
 * take it). Which one is used is negotiated in the IRD/ORD word: the initiator offers some, the
 * responder picks one.
 */
public enum ReadyToReceive {
    /** Client-server mode: no RTR. */
    NONE,
    /** A zero-length SEND (untagged queue 0); it takes the queue's first MSN but no receive. */
    SEND,
    /** A zero-length RDMA WRITE. */
    WRITE,
    /** A zero-length RDMA READ request, which the responder answers with a zero-length READ response. */
    READ
}
