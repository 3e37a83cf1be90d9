package org.jtarget.rdma.tcp;

import io.netty.buffer.ByteBuf;
import org.jtarget.rdma.MemoryRegion;
import org.jtarget.rdma.WorkCompletionStatus;

import java.util.concurrent.RejectedExecutionException;

/**
 * The responder's accesses to store endpoints (regions backed by a remote access handler). The
 * responder answers strictly in MSN order, because the requester takes ACKs and READ RESPONSEs as
 * cumulative. So while one access is in progress on the handler's executor, the connection takes
 * no further request (the decoder is blocked as for RNR); when the access completes, its ACK or
 * READ RESPONSE goes out on the event loop and decoding resumes. Store accesses of one queue pair
 * are thus serialised over tcp (they complete in order); concurrency comes from several queue
 * pairs. A WRITE with immediate to a store endpoint is refused (REM_ACCESS_ERR).
 */
final class StoreAccess {

    private final TcpConnection connection;
    private final Responder responder;
    private final FrameOutput output;
    private final TaggedPlacement placement;
    /** The store endpoint an inbound WRITE goes to, its offset, and the buffer gathering its payload. */
    private MemoryRegion writeRegion;
    private long writeOffset;
    private ByteBuf writeData;
    /** An access is in progress: no further request is taken until it is answered. */
    private volatile boolean busy;

    StoreAccess(TcpConnection connection, Responder responder, FrameOutput output, TaggedPlacement placement) {
        this.connection = connection;
        this.responder = responder;
        this.output = output;
        this.placement = placement;
    }

    boolean busy() {
        return busy;
    }

    /** An RDMA WRITE to store endpoint {@code mr} starts: true to gather its payload. */
    boolean beginWrite(MemoryRegion mr, int msn, int flags, long address, int payloadLength) {
        if ((flags & TcpRdmaFrame.FLAG_WITH_IMM) != 0) {
            mr.release();
            responder.respondError(msn, WorkCompletionStatus.REM_ACCESS_ERR);
            return false;
        }
        writeRegion = mr;
        writeOffset = mr.offsetOf(address, payloadLength);
        writeData = mr.remoteAccessHandler().allocate(payloadLength);
        placement.intoBuffer(writeData);
        return true;
    }

    /** The WRITE's payload is gathered: the store writes it, and answers on the event loop. */
    void startWrite(int msn, int length) {
        MemoryRegion mr = writeRegion;
        ByteBuf data = writeData;
        writeRegion = null;
        writeData = null;
        placement.endGather();
        busy = true;
        mr.remoteAccessHandler().write(connection.qp(), writeOffset, data, (st, ignored) ->
                onEventLoop(() -> writeDone(msn, mr, length, st), mr, null));
    }

    /** A READ REQUEST of {@code length} bytes at {@code offset} of store endpoint {@code mr}. */
    void read(int msn, MemoryRegion mr, long offset, int length) {
        busy = true;
        responder.flushResponses();
        mr.remoteAccessHandler().read(connection.qp(), offset, length, (st, data) ->
                onEventLoop(() -> readDone(msn, mr, length, st, data), mr, data));
    }

    /**
     * Hands a store access's completion (from the store's I/O thread) to the event loop. If the loop
     * has stopped (the process is shutting down, the connection is long gone), the region and the
     * data are let go here instead.
     */
    private void onEventLoop(Runnable completion, MemoryRegion mr, ByteBuf data) {
        try {
            connection.eventLoop().execute(completion);
        } catch (RejectedExecutionException e) {
            mr.release();
            if (data != null) {
                data.release();
            }
        }
    }

    private void writeDone(int msn, MemoryRegion mr, int length, WorkCompletionStatus status) {
        mr.release();
        busy = false;
        if (!connection.established()) {
            return;
        }
        if (status != WorkCompletionStatus.SUCCESS) {
            responder.respondError(msn, status);
            return;
        }
        responder.acknowledge(msn, length);
        responder.resumeDecoding();
    }

    private void readDone(int msn, MemoryRegion mr, int length, WorkCompletionStatus status, ByteBuf data) {
        mr.release();
        busy = false;
        if (!connection.established()) {
            if (data != null) {
                data.release();
            }
            return;
        }
        if (status != WorkCompletionStatus.SUCCESS) {
            responder.respondError(msn, status);
            return;
        }
        output.respond(output.withPayload(output.header(TcpRdmaFrame.READ_RESPONSE, 0, msn, length), data));
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
