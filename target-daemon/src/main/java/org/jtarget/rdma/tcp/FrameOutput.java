package org.jtarget.rdma.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.Channel;
import org.jtarget.rdma.MemoryRegion;
import org.jtarget.rdma.SendQueueEntry;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The frames a connection sends, the framing layer's output (where MPA would build its FPDUs):
 * headers, payloads joined to them without a copy, requests from any thread in one ordered queue,
 * responses written on the event loop and flushed once per burst.
 */
final class FrameOutput {

    private final Channel channel;
    private final ByteBufAllocator alloc;
    private final ConcurrentLinkedQueue<ByteBuf> requests = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean drainScheduled = new AtomicBoolean();
    private final Runnable drain = this::drainRequests;
    /** Responses were written since the last flush (event loop). */
    private boolean flushPending;

    FrameOutput(Channel channel, ByteBufAllocator alloc) {
        this.channel = channel;
        this.alloc = alloc;
    }

    /** A frame header with room for the opcode header, which the caller writes. */
    ByteBuf header(int opcode, int flags, int msn, int payloadLength) {
        return TcpRdmaFrame.header(alloc, opcode, flags, msn, payloadLength);
    }

    /** {@code header} followed by {@code payload}, joined, not copied. */
    ByteBuf withPayload(ByteBuf header, ByteBuf payload) {
        return alloc.compositeDirectBuffer(2).addComponent(true, header).addComponent(true, payload);
    }

    /** {@code header} followed by the entry's elements, wrapped, not copied (the entry holds its regions until ACK). */
    ByteBuf withPayload(ByteBuf header, SendQueueEntry e) {
        if (e.numSge() == 0) {
            return header;
        }
        CompositeByteBuf c = alloc.compositeDirectBuffer(1 + e.numSge());
        c.addComponent(true, header);
        for (int i = 0; i < e.numSge(); i++) {
            c.addComponent(true, Placement.view(e.region(i), e.offset(i), e.length(i)));
        }
        return c;
    }

    /**
     * Sends a request (any thread). Requests go out in execution order, whichever thread executed
     * them: a write made on the event loop would overtake writes other threads queued as tasks, so
     * every request goes through one queue that a task of the event loop drains (and flushes once
     * per batch).
     */
    void request(ByteBuf frame) {
        requests.add(frame);
        if (!drainScheduled.getAndSet(true)) {
            // also from the event loop itself: requests posted while it handles a burst of
            // completions leave together, with one flush
            channel.eventLoop().execute(drain);
        }
    }

    /** Writes the queued requests and flushes them; releases them if the channel is closed. */
    void drainRequests() {
        drainScheduled.set(false);
        ByteBuf f;
        boolean any = false;
        while ((f = requests.poll()) != null) {
            if (channel.isActive()) {
                channel.write(f, channel.voidPromise());
                any = true;
            } else {
                f.release();
            }
        }
        if (any) {
            channel.flush();
        }
    }

    /** Writes a response (event loop); it leaves with the next {@link #flush}. */
    void respond(ByteBuf frame) {
        channel.write(frame, channel.voidPromise());
        flushPending = true;
    }

    /** Writes a response whose payload is a view of {@code mr}, released once the frame is written. */
    void respond(ByteBuf frame, MemoryRegion mr) {
        channel.write(frame).addListener(f -> mr.release());
        flushPending = true;
    }

    /** Flushes the responses written since the last flush, if any. */
    void flush() {
        if (flushPending) {
            flushPending = false;
            channel.flush();
        }
    }
}
