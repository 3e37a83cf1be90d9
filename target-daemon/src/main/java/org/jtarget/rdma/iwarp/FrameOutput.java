package org.jtarget.rdma.iwarp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelPromise;
import org.jtarget.rdma.MemoryRegion;
import org.jtarget.rdma.SendQueueEntry;

import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntConsumer;
import java.util.zip.CRC32C;

/**
 * The MPA FPDUs a connection sends: each one DDP segment (header, payload joined to it without a
 * copy, pad, CRC32C or zero). Requests from any thread go through one ordered queue that a task of
 * the event loop writes and flushes once per batch; responses are written on the event loop and
 * flushed once per burst. iWARP has no acknowledgements: a request is complete for its requester
 * once its FPDUs were handed to TCP, which {@link #FrameOutput}'s {@code sent} callback reports.
 */
final class FrameOutput {

    /**
     * The largest payload of one DDP segment (this side's MULPDU for sending): an FPDU's ULPDU
     * length has 16 bits, so a message is cut into segments of up to this much (Linux siw cuts to
     * the TCP segment size it sends; any receiver takes FPDUs up to the 16-bit limit). 60 KiB, a
     * multiple of every block size up to 4 KiB: a store endpoint takes each WRITE segment as a
     * store write of whole blocks.
     */
    static final int MAX_SEGMENT_PAYLOAD = 60 * 1024;

    private final Channel channel;
    private final ByteBufAllocator alloc;
    private final IntConsumer sent;
    private final ConcurrentLinkedQueue<ByteBuf> requests = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean drainScheduled = new AtomicBoolean();
    private final Runnable drain = this::drainRequests;
    private final CRC32C crc = new CRC32C();
    /** The last request whose FPDUs are all queued; written by the executing thread. */
    private volatile int queuedThrough = -1;
    /** The last request reported to {@link #sent} (event loop). */
    private int notifiedThrough = -1;
    private volatile boolean crcOn;
    /** Responses were written since the last flush (event loop). */
    private boolean flushPending;

    /** @param sent told (event loop) the number of the last request whose FPDUs TCP has taken */
    FrameOutput(Channel channel, ByteBufAllocator alloc, IntConsumer sent) {
        this.channel = channel;
        this.alloc = alloc;
        this.sent = sent;
    }

    /** Whether FPDUs carry a CRC32C (as the MPA exchange negotiated). */
    void crc(boolean on) {
        crcOn = on;
    }

    /** An untagged segment (SEND, READ request, TERMINATE); {@code payload} (may be null) is taken. */
    ByteBuf untagged(int opcode, boolean last, int reserved, int queue, int msn, int mo, ByteBuf payload) {
        int length = payload == null ? 0 : payload.readableBytes();
        ByteBuf h = alloc.directBuffer(Mpa.LENGTH_FIELD + Iwarp.UNTAGGED_HEADER);
        h.writeShort(Iwarp.UNTAGGED_HEADER + length).writeShort(Iwarp.control(false, last, opcode));
        h.writeInt(reserved).writeInt(queue).writeInt(msn).writeInt(mo);
        return fpdu(h, payload, Iwarp.UNTAGGED_HEADER + length);
    }

    /** A tagged segment (RDMA WRITE, READ response); {@code payload} (may be null) is taken. */
    ByteBuf tagged(int opcode, boolean last, int stag, long to, ByteBuf payload) {
        int length = payload == null ? 0 : payload.readableBytes();
        ByteBuf h = alloc.directBuffer(Mpa.LENGTH_FIELD + Iwarp.TAGGED_HEADER);
        h.writeShort(Iwarp.TAGGED_HEADER + length).writeShort(Iwarp.control(true, last, opcode));
        h.writeInt(stag).writeLong(to);
        return fpdu(h, payload, Iwarp.TAGGED_HEADER + length);
    }

    private ByteBuf fpdu(ByteBuf header, ByteBuf payload, int ulpduLength) {
        int padding = Mpa.padding(ulpduLength);
        ByteBuf trailer = alloc.directBuffer(8);
        trailer.writeZero(padding);
        int checksum = 0;
        if (crcOn) {
            crc.reset();
            update(header);
            if (payload != null) {
                update(payload);
            }
            update(trailer);
            checksum = (int) crc.getValue();
        }
        trailer.writeInt(checksum);
        CompositeByteBuf c = alloc.compositeDirectBuffer(3);
        c.addComponent(true, header);
        if (payload != null) {
            c.addComponent(true, payload);
        }
        return c.addComponent(true, trailer);
    }

    private void update(ByteBuf b) {
        for (ByteBuffer nio : b.nioBuffers()) {
            crc.update(nio);
        }
    }

    /** {@code length} bytes of the entry's elements from {@code offset} on, wrapped, not copied. */
    static ByteBuf payload(ByteBufAllocator alloc, SendQueueEntry e, long offset, int length) {
        CompositeByteBuf c = null;
        ByteBuf single = null;
        long pos = 0;
        int remaining = length;
        for (int i = 0; i < e.numSge() && remaining > 0; i++) {
            long end = pos + e.length(i);
            if (offset < end) {
                long within = offset - pos;
                int n = (int) Math.min(remaining, e.length(i) - within);
                ByteBuf part = Placement.view(e.region(i), e.offset(i) + within, n);
                if (single == null && c == null) {
                    single = part;
                } else {
                    if (c == null) {
                        c = alloc.compositeDirectBuffer(e.numSge());
                        c.addComponent(true, single);
                    }
                    c.addComponent(true, part);
                }
                offset += n;
                remaining -= n;
            }
            pos = end;
        }
        return c != null ? c : single != null ? single : Unpooled.EMPTY_BUFFER;
    }

    /** Queues one FPDU of a request (any thread; the executing thread's order is kept). */
    void request(ByteBuf fpdu) {
        requests.add(fpdu);
    }

    /**
     * All FPDUs of request {@code number} are queued: they leave with the next batch (also when
     * called on the event loop itself: requests posted while it handles a burst of completions
     * leave together, with one flush).
     */
    void requestQueued(int number) {
        queuedThrough = number;
        if (!drainScheduled.getAndSet(true)) {
            channel.eventLoop().execute(drain);
        }
    }

    /** Writes the queued requests and flushes them; releases them if the channel is closed. */
    void drainRequests() {
        drainScheduled.set(false);
        int through = queuedThrough;
        ByteBuf f;
        boolean active = channel.isActive();
        while ((f = requests.poll()) != null) {
            if (active) {
                channel.write(f, channel.voidPromise());
            } else {
                f.release();
            }
        }
        if (active && through != notifiedThrough) {
            notifiedThrough = through;
            // an empty write completes after every write before it: then TCP has them all
            ChannelPromise handedOver = channel.newPromise();
            handedOver.addListener(w -> {
                if (w.isSuccess()) {
                    sent.accept(through);
                }
            });
            channel.write(Unpooled.EMPTY_BUFFER, handedOver);
            channel.flush();
        }
    }

    /** Writes a response (event loop); it leaves with the next {@link #flush}. */
    void respond(ByteBuf frame) {
        channel.write(frame, channel.voidPromise());
        flushPending = true;
    }

    /**
     * Writes the last FPDU of a READ response; once TCP has it, {@code mr} (the region its payload
     * is a view of; may be null) is released and {@code then} runs.
     */
    void respond(ByteBuf frame, MemoryRegion mr, Runnable then) {
        channel.write(frame).addListener(f -> {
            if (mr != null) {
                mr.release();
            }
            then.run();
        });
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
