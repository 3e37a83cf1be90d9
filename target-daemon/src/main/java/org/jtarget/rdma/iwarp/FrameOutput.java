package org.jtarget.rdma.iwarp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelPromise;
import io.netty.util.internal.PlatformDependent;
import org.jtarget.buffer.ByteBufCopy;
import org.jtarget.rdma.MemoryRegion;
import org.jtarget.rdma.SendQueueEntry;

import java.nio.ByteBuffer;
import java.util.Queue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntConsumer;
import java.util.zip.CRC32C;

/**
 * The MPA FPDUs a connection sends: each one DDP segment (header, payload joined to it without a
 * copy, pad, CRC32C or zero), written as three buffers (header, payload, trailer) with no composite
 * and no promise. Requests from any thread go through one ordered queue that a task of the event
 * loop writes and flushes once per batch, never part of an FPDU (a count of whole FPDUs' entries is
 * published after each); responses and TERMINATEs are written on the event loop and flushed once
 * per burst. iWARP has no acknowledgements: a request is complete for its requester
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
    private static final int TAGGED_HEADER_BYTES = Mpa.LENGTH_FIELD + Iwarp.TAGGED_HEADER;

    private final Channel channel;
    private final ByteBufAllocator alloc;
    private final IntConsumer sent;
    /**
     * Request FPDUs' buffers in order (header, payload, trailer): an array queue that grows by
     * chunks only when that much is waiting, so that queueing allocates nothing in steady state
     * (a linked queue's node per entry cost ~70 B per FPDU).
     */
    private final Queue<ByteBuf> requests = PlatformDependent.newMpscQueue(1024, 1 << 30);
    private final RegionViews views = new RegionViews();
    private final FrameBuffers frames = new FrameBuffers();
    /**
     * How many entries of {@link #requests} belong to whole FPDUs: written by the one thread that
     * executes requests at a time (the queue pair's), read by the event loop, which writes no more.
     */
    private volatile long published;
    /** How many entries of {@link #requests} were written or released (event loop). */
    private long drained;
    private final AtomicBoolean drainScheduled = new AtomicBoolean();
    private final Runnable drain = this::drainRequests;
    /** The CRC32C of request FPDUs (built on the executing thread) and of responses (event loop). */
    private final CRC32C requestCrc = new CRC32C();
    private final CRC32C responseCrc = new CRC32C();
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

    /** Queues an untagged request segment (SEND, READ request); {@code payload} (may be null) is taken. */
    void requestUntagged(int opcode, boolean last, int reserved, int queue, int msn, int mo, ByteBuf payload) {
        queue(untaggedHeader(frames.take(), opcode, last, reserved, queue, msn, mo, length(payload)), payload);
    }

    /** Queues a tagged request segment (RDMA WRITE); {@code payload} (may be null) is taken. */
    void requestTagged(int opcode, boolean last, int stag, long to, ByteBuf payload) {
        queue(taggedHeader(frames.take(), opcode, last, stag, to, length(payload)), payload);
    }

    /** An empty small buffer for a request's own payload (a READ request's), taken by {@link #requestUntagged}. */
    ByteBuf smallPayload() {
        return frames.take();
    }

    /**
     * Queues one FPDU's entries, then publishes them (the executing thread; its order is kept). A
     * small payload (a SCSI Response, a READ request) is copied behind its header and the whole
     * FPDU is one buffer; a larger one (data) goes as it is, between its header and its trailer.
     */
    private void queue(ByteBuf header, ByteBuf payload) {
        if (payload == null || payload.readableBytes() <= FrameBuffers.SMALL_PAYLOAD) {
            if (payload != null) {
                ByteBufCopy.append(payload, payload.readerIndex(), header, payload.readableBytes());
                payload.release();
            }
            endFpdu(requestCrc, header, header, null);
            requests.add(header);
            published = published + 1; // one writer at a time
            return;
        }
        ByteBuf trailer = frames.take();
        endFpdu(requestCrc, header, payload, trailer);
        requests.add(header);
        requests.add(payload);
        requests.add(trailer);
        published = published + 3;
    }

    private ByteBuf untaggedHeader(ByteBuf h, int opcode, boolean last, int reserved, int queue, int msn, int mo,
                                   int length) {
        h.writeShort(Iwarp.UNTAGGED_HEADER + length).writeShort(Iwarp.control(false, last, opcode));
        return h.writeInt(reserved).writeInt(queue).writeInt(msn).writeInt(mo);
    }

    private ByteBuf taggedHeader(ByteBuf h, int opcode, boolean last, int stag, long to, int length) {
        h.writeShort(Iwarp.TAGGED_HEADER + length).writeShort(Iwarp.control(true, last, opcode));
        return h.writeInt(stag).writeLong(to);
    }

    private static int length(ByteBuf payload) {
        return payload == null ? 0 : payload.readableBytes();
    }

    /**
     * Appends pad and CRC32C (or zero) to {@code trailer}: the FPDU is {@code header} (length field
     * included), then {@code payload} unless it is the header itself (a whole FPDU in one buffer),
     * then the trailer.
     */
    private void endFpdu(CRC32C crc, ByteBuf header, ByteBuf payload, ByteBuf trailer) {
        ByteBuf last = trailer != null ? trailer : header;
        last.writeZero(Mpa.padding(header.readableBytes() - Mpa.LENGTH_FIELD + (payload == header ? 0 : length(payload))));
        int checksum = 0;
        if (crcOn) {
            crc.reset();
            update(crc, header);
            if (payload != null && payload != header) {
                update(crc, payload);
            }
            if (trailer != null) {
                update(crc, trailer);
            }
            checksum = (int) crc.getValue();
        }
        last.writeIntLE(checksum); // as siw and iSCSI digests: the CRC value little-endian
    }

    /** Pad and CRC32C (or zero) after {@code header} (length field included) and {@code payload}. */
    private ByteBuf trailer(CRC32C crc, ByteBuf header, ByteBuf payload) {
        ByteBuf trailer = alloc.directBuffer(8);
        trailer.writeZero(Mpa.padding(header.readableBytes() - Mpa.LENGTH_FIELD + length(payload)));
        int checksum = 0;
        if (crcOn) {
            crc.reset();
            update(crc, header);
            if (payload != null) {
                update(crc, payload);
            }
            update(crc, trailer);
            checksum = (int) crc.getValue();
        }
        return trailer.writeIntLE(checksum); // as siw and iSCSI digests: the CRC value little-endian
    }

    /**
     * Adds {@code b}'s readable bytes. A single-buffer {@code b} is read through its cached internal
     * NIO view (no view allocated; the buffer is this thread's until it is written, and Netty's
     * socket write reuses the same cached view); only a multi-element payload costs views.
     */
    private static void update(CRC32C crc, ByteBuf b) {
        if (b.nioBufferCount() == 1) {
            crc.update(b.internalNioBuffer(b.readerIndex(), b.readableBytes()));
            return;
        }
        for (ByteBuffer nio : b.nioBuffers()) {
            crc.update(nio);
        }
    }

    /**
     * {@code length} bytes of the entry's elements from {@code offset} on, as views of their
     * regions, not copied (the thread that executes requests).
     */
    ByteBuf payload(SendQueueEntry e, long offset, int length) {
        CompositeByteBuf c = null;
        ByteBuf single = null;
        long pos = 0;
        int remaining = length;
        for (int i = 0; i < e.numSge() && remaining > 0; i++) {
            long end = pos + e.length(i);
            if (offset < end) {
                long within = offset - pos;
                int n = (int) Math.min(remaining, e.length(i) - within);
                ByteBuf part = views.view(e.region(i), e.offset(i) + within, n);
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
        long whole = published;
        boolean active = channel.isActive();
        for (; drained < whole; drained++) {
            ByteBuf f = requests.poll();
            if (active) {
                channel.write(f, channel.voidPromise());
            } else {
                f.release();
            }
        }
        if (active && through != notifiedThrough) {
            notifiedThrough = through;
            channel.flush();
            ChannelOutboundBuffer unsent = channel.unsafe().outboundBuffer();
            if (unsent != null && unsent.isEmpty()) {
                sent.accept(through); // the flush wrote everything: TCP has it (no promise needed)
                return;
            }
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

    /**
     * Writes a tagged response segment (READ response; event loop) as header, payload and trailer,
     * with no promise; it leaves with the next {@link #flush}. {@code payload} (may be null) is taken.
     */
    void respondTagged(int opcode, boolean last, int stag, long to, ByteBuf payload) {
        channel.write(writeSegment(taggedHeader(alloc.directBuffer(TAGGED_HEADER_BYTES), opcode, last, stag, to,
                        length(payload)), payload),
                channel.voidPromise());
        flushPending = true;
    }

    /**
     * Like {@link #respondTagged(int, boolean, int, long, ByteBuf)} for the last segment of a READ
     * response; once TCP has it, {@code mr} (the region its payload is a view of; may be null) is
     * released and {@code then} runs.
     */
    void respondTagged(int opcode, boolean last, int stag, long to, ByteBuf payload, MemoryRegion mr,
                       Runnable then) {
        channel.write(writeSegment(taggedHeader(alloc.directBuffer(TAGGED_HEADER_BYTES), opcode, last, stag, to,
                        length(payload)), payload))
                .addListener(f -> {
                    if (mr != null) {
                        mr.release();
                    }
                    then.run();
                });
        flushPending = true;
    }

    /**
     * Writes an untagged segment (TERMINATE; event loop) after everything written before it and
     * flushes; the future completes once TCP has it. {@code payload} (may be null) is taken.
     */
    ChannelFuture sendUntagged(int opcode, boolean last, int reserved, int queue, int msn, int mo, ByteBuf payload) {
        ByteBuf trailer = writeSegment(untaggedHeader(alloc.directBuffer(Mpa.LENGTH_FIELD + Iwarp.UNTAGGED_HEADER),
                opcode, last, reserved, queue, msn, mo, length(payload)), payload);
        flushPending = false;
        return channel.writeAndFlush(trailer);
    }

    /** Writes header and payload with no promise and returns the trailer for the caller to write (event loop). */
    private ByteBuf writeSegment(ByteBuf header, ByteBuf payload) {
        ByteBuf trailer = trailer(responseCrc, header, payload);
        channel.write(header, channel.voidPromise());
        if (payload != null) {
            channel.write(payload, channel.voidPromise());
        }
        return trailer;
    }

    /** Flushes the responses written since the last flush, if any. */
    void flush() {
        if (flushPending) {
            flushPending = false;
            channel.flush();
        }
    }
}
