package org.jtarget.rdma;

import io.netty.buffer.ByteBuf;

/**
 * Provider SPI: what serves the remote accesses of a handler-backed {@link MemoryRegion} (a store
 * endpoint) instead of memory. The queue pair has already checked the rkey, protection domain,
 * access flags and bounds; {@link #permits} adds the handler's own rules. An access then runs
 * asynchronously (it may block, so never on the caller's thread when that is an event loop) and
 * ends with exactly one {@link RemoteAccessCompletion#complete}; accesses of different requests may
 * complete in any order: the requester's FENCE and barriers order them (see {@link QueuePair}).
 */
public interface RemoteAccessHandler {

    /**
     * Whether {@code responder} may access {@code [offset, offset+length)} of the region (offsets are
     * zero-based). False makes the access a protection violation: the requester completes
     * REM_ACCESS_ERR and both queue pairs move to ERROR. Called on the provider's thread: no I/O.
     */
    boolean permits(QueuePair responder, long offset, long length, boolean write);

    /** A buffer of {@code length} writable bytes for an inbound WRITE's payload (the caller fills it). */
    ByteBuf allocate(int length);

    /**
     * Reads {@code length} bytes at {@code offset}; {@code done} gets SUCCESS and a buffer holding
     * exactly those bytes (the completion consumes it), or an error status and null.
     */
    void read(QueuePair responder, long offset, int length, RemoteAccessCompletion done);

    /**
     * Writes the readable bytes of {@code data} at {@code offset}. Consumes {@code data}; {@code done}
     * gets SUCCESS or an error status (and null).
     */
    void write(QueuePair responder, long offset, ByteBuf data, RemoteAccessCompletion done);
}
