package org.jtarget.rdma.iwarp;

import io.netty.buffer.ByteBuf;
import org.jtarget.rdma.MemoryRegion;
import org.jtarget.rdma.WorkCompletionStatus;

import java.util.concurrent.RejectedExecutionException;

/**
 * The responder's accesses to store endpoints (regions backed by a remote access handler). Each
 * RDMA WRITE segment to a store is gathered and handed to the store; while an access is in progress
 * on the handler's executor, the connection takes no further segment (the decoder is blocked), so
 * store WRITEs are executed in order and a READ request is answered only after every earlier WRITE
 * of the connection reached the store. iWARP has no acknowledgements: a requester that needs its
 * WRITEs durable follows them with an RDMA READ and waits for its response (RFC 5040 orders a READ
 * response after the WRITEs before its request). A store that fails an access ends the connection
 * with a TERMINATE (catastrophic local error).
 */
final class StoreAccess {

    private final TcpConnection connection;
    private final Responder responder;
    private final TaggedPlacement placement;
    /** The store endpoint an inbound WRITE segment goes to, its offset, and the buffer gathering it. */
    private MemoryRegion writeRegion;
    private long writeOffset;
    private ByteBuf writeData;
    /** An access is in progress: no further segment is taken until it is done. */
    private volatile boolean busy;

    StoreAccess(TcpConnection connection, Responder responder, TaggedPlacement placement) {
        this.connection = connection;
        this.responder = responder;
        this.placement = placement;
    }

    boolean busy() {
        return busy;
    }

    /** An RDMA WRITE segment to store endpoint {@code mr} starts: its payload is gathered. */
    boolean beginWrite(MemoryRegion mr, long address, int payloadLength) {
        writeRegion = mr;
        writeOffset = mr.offsetOf(address, payloadLength);
        writeData = mr.remoteAccessHandler().allocate(payloadLength);
        placement.intoBuffer(writeData);
        return true;
    }

    /** The WRITE segment is gathered: the store writes it; the connection waits for it. */
    void startWrite(int length) {
        MemoryRegion mr = writeRegion;
        ByteBuf data = writeData;
        writeRegion = null;
        writeData = null;
        placement.endGather();
        busy = true;
        mr.remoteAccessHandler().write(connection.qp(), writeOffset, data, (st, ignored) ->
                onEventLoop(() -> writeDone(mr, st), mr, null));
    }

    /** A READ request of {@code length} bytes at {@code offset} of store endpoint {@code mr}. */
    void read(MemoryRegion mr, long offset, int length, int sinkStag, long sinkTo) {
        busy = true;
        responder.flushResponses();
        mr.remoteAccessHandler().read(connection.qp(), offset, length, (st, data) ->
                onEventLoop(() -> readDone(mr, st, data, sinkStag, sinkTo), mr, data));
    }

    /**
     * Hands a store access's completion (from the store's I/O thread) to the event loop. If the loop
     * has stopped (the process is shutting down, the connection is long gone), the region and the
     * data are let go here instead.
     */
    private void onEventLoop(Runnable completion, MemoryRegion mr, ByteBuf data) {
        try {
            connection.ioExecutor().execute(completion);
        } catch (RejectedExecutionException e) {
            mr.release();
            if (data != null) {
                data.release();
            }
        }
    }

    private void writeDone(MemoryRegion mr, WorkCompletionStatus status) {
        mr.release();
        busy = false;
        if (!connection.established()) {
            return;
        }
        if (status != WorkCompletionStatus.SUCCESS) {
            responder.terminate(TerminateCode.RDMAP_CATASTROPHIC_LOCAL, "store write failed: " + status);
            return;
        }
        responder.resumeDecoding();
    }

    private void readDone(MemoryRegion mr, WorkCompletionStatus status, ByteBuf data, int sinkStag, long sinkTo) {
        mr.release();
        busy = false;
        if (!connection.established() || status != WorkCompletionStatus.SUCCESS) {
            if (data != null) {
                data.release();
            }
            if (connection.established()) {
                responder.terminate(TerminateCode.RDMAP_CATASTROPHIC_LOCAL, "store read failed: " + status);
            }
            return;
        }
        responder.respondRead(sinkStag, sinkTo, data, null);
        responder.resumeDecoding();
    }

    /** The connection is gone: a WRITE still gathering lets go of its buffer and region. */
    void release() {
        if (writeData != null) {
            writeData.release();
            writeData = null;
        }
        if (writeRegion != null) {
            writeRegion.release();
            writeRegion = null;
        }
    }
}
