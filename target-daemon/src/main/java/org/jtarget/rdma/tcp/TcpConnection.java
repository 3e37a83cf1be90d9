package org.jtarget.rdma.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.DuplexChannel;
import org.jtarget.rdma.AccessFlag;
import org.jtarget.rdma.Errno;
import org.jtarget.rdma.InboundPayload;
import org.jtarget.rdma.MemoryRegion;
import org.jtarget.rdma.QueuePair;
import org.jtarget.rdma.QueuePairState;
import org.jtarget.rdma.RdmaException;
import org.jtarget.rdma.SendQueueEntry;
import org.jtarget.rdma.WorkCompletionStatus;
import org.jtarget.rdma.WorkRequestOpcode;
import org.jtarget.rdma.cm.CmEventHandler;
import org.jtarget.rdma.cm.CmEventType;
import org.jtarget.rdma.cm.CmId;
import org.jtarget.rdma.cm.ConnectionManager;
import org.jtarget.rdma.cm.QueuePairBringUp;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

/**
 * One tcp-provider connection: the connection manager's handshake (CONNECT_REQUEST, ACCEPT,
 * REJECT, DISCONNECT) and then the data frames of its one queue pair, as requester (sending
 * requests, taking ACK/NAK/READ RESPONSE) and as responder (executing the peer's requests in MSN
 * order, acknowledging them once per read burst). State is single-writer on the channel's event
 * loop, except what the connection manager's thread sets before the handshake frame leaves.
 *
 * <p>Store endpoints (handler-backed regions): the responder answers strictly in MSN order, because
 * the requester takes ACKs and READ RESPONSEs as cumulative. So while one access to a store
 * endpoint is in progress on the handler's executor, this connection takes no further request
 * (the decoder is blocked as for RNR); when the access completes, its ACK or READ RESPONSE goes out
 * on the event loop and decoding resumes. Store accesses of one queue pair are thus serialised over
 * tcp (they complete in order); concurrency comes from several queue pairs. A WRITE with immediate
 * to a store endpoint is refused (REM_ACCESS_ERR).
 */
final class TcpConnection extends ChannelInboundHandlerAdapter implements FrameSink, CmId {

    private static final Logger LOG = LoggerFactory.getLogger(TcpConnection.class);
    private static final byte[] NONE = new byte[0];
    /** The RNR back-off per retry the responder applies on the requester's behalf. */
    private static final long RNR_TIMER_MICROS = 1000;
    /** Acknowledge at least every this many placed bytes (see {@link #acknowledge}). */
    private static final int ACK_EVERY_BYTES = 256 * 1024;
    /** How long a connection terminated by a NAK waits for the requester to close it. */
    private static final long TERMINATE_LINGER_SECONDS = 5;

    private enum Phase { NEW, REQUESTED, CONNECTING, ESTABLISHED, CLOSED }

    private final TcpConnectionManager cm;
    private final Channel channel;
    private final ByteBufAllocator alloc;
    private final CmEventHandler handler;
    private final byte[] requestData;
    private volatile Phase phase;
    private volatile TcpQueuePair qp;
    private FrameDecoder decoder;
    private int peerRnrRetry = 7;
    // responder state (event loop)
    private int expectedMsn;
    private boolean ackPending;
    private int ackMsn;
    private boolean flushPending;
    private int unackedBytes;
    /** A NAK is on its way and the connection half-closes ({@link #terminate}); no hard close meanwhile. */
    private boolean terminating;
    private ByteBuf heldPayload;
    private int heldMsn;
    private int heldFlags;
    private int heldImm;
    private int heldInv;
    private int heldLength;
    private volatile boolean holding;
    private long holdGeneration;
    private final Runnable retryHeld = this::retryHeld;
    private final java.util.concurrent.ConcurrentLinkedQueue<ByteBuf> outbound = new java.util.concurrent.ConcurrentLinkedQueue<>();
    private final java.util.concurrent.atomic.AtomicBoolean outboundScheduled = new java.util.concurrent.atomic.AtomicBoolean();
    private final Runnable drainOutbound = this::drainOutbound;
    // tagged placement (event loop)
    private MemoryRegion placeRegion;
    private long placeOffset;
    private SendQueueEntry placeEntry;
    private int placeMsn;
    private int placeFlags;
    private int placeImm;
    private int placeLength;
    /** The store endpoint an inbound WRITE goes to, its offset, and the buffer gathering its payload. */
    private MemoryRegion storeRegion;
    private long storeOffset;
    private ByteBuf storeData;
    /** A store access is in progress: no further request is taken until it is answered. */
    private volatile boolean storeBusy;

    /** A passive (server) end, created for an accepted socket. */
    TcpConnection(TcpConnectionManager cm, Channel channel, CmEventHandler listener) {
        this(cm, channel, listener, null, null, Phase.NEW);
    }

    /** An active (client) end. */
    TcpConnection(TcpConnectionManager cm, Channel channel, CmEventHandler handler, TcpQueuePair qp, byte[] data) {
        this(cm, channel, handler, qp, data, Phase.CONNECTING);
    }

    private TcpConnection(TcpConnectionManager cm, Channel channel, CmEventHandler handler, TcpQueuePair qp,
                          byte[] data, Phase phase) {
        this.cm = cm;
        this.channel = channel;
        this.alloc = cm.device().allocator();
        this.handler = handler;
        this.qp = qp;
        this.requestData = data;
        this.phase = phase;
    }

    void decoder(FrameDecoder d) {
        this.decoder = d;
    }

    boolean isActive() {
        return channel.isActive() && phase == Phase.ESTABLISHED;
    }

    // ---- CmId ------------------------------------------------------------------------------------

    @Override
    public QueuePair queuePair() {
        return qp;
    }

    @Override
    public SocketAddress remoteAddress() {
        return channel.remoteAddress();
    }

    @Override
    public void accept(QueuePair queuePair, byte[] privateData) throws RdmaException {
        byte[] data = ConnectionManager.checkPrivateData(privateData);
        if (!(queuePair instanceof TcpQueuePair tqp) || queuePair.device() != cm.device()) {
            throw new RdmaException(Errno.EINVAL, "queue pair of another device");
        }
        if (phase != Phase.REQUESTED) {
            throw new RdmaException(Errno.EINVAL, "no pending connection request");
        }
        tqp.bind(this);
        QueuePairBringUp.toReadyToSend(tqp, 0);
        qp = tqp;
        phase = Phase.ESTABLISHED;
        ByteBuf f = TcpRdmaFrame.header(alloc, TcpRdmaFrame.CONNECT_ACCEPT, 0, 0, data.length);
        f.writeByte(tqp.requesterRnrRetry()).writeByte(0).writeShort(0).writeBytes(data);
        channel.writeAndFlush(f);
        cm.event(handler, CmEventType.ESTABLISHED, this, NONE);
    }

    @Override
    public void reject(byte[] privateData) {
        byte[] data = privateData == null ? NONE : privateData.clone();
        phase = Phase.CLOSED;
        ByteBuf f = TcpRdmaFrame.header(alloc, TcpRdmaFrame.CONNECT_REJECT, 0, 0, data.length).writeBytes(data);
        channel.writeAndFlush(f).addListener(ChannelFutureListener.CLOSE);
    }

    @Override
    public void disconnect() {
        if (channel.isActive()) {
            ByteBuf f = TcpRdmaFrame.header(alloc, TcpRdmaFrame.DISCONNECT, 0, 0, 0);
            channel.writeAndFlush(f).addListener(ChannelFutureListener.CLOSE);
        }
    }

    /** Closes the connection (its queue pair went to ERROR), unless a NAK is terminating it already. */
    void closeLater() {
        channel.eventLoop().execute(() -> {
            if (!terminating) {
                channel.close();
            }
        });
    }

    // ---- channel events --------------------------------------------------------------------------

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        if (phase == Phase.CONNECTING) {
            ByteBuf f = TcpRdmaFrame.header(alloc, TcpRdmaFrame.CONNECT_REQUEST, 0, 0, requestData.length);
            f.writeInt(TcpRdmaFrame.MAGIC).writeShort(TcpRdmaFrame.VERSION).writeByte(qp.requesterRnrRetry()).writeByte(0);
            f.writeBytes(requestData);
            ctx.writeAndFlush(f);
        }
        ctx.fireChannelActive();
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        flushResponses();
        ctx.fireChannelReadComplete();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        Phase was = phase;
        phase = Phase.CLOSED;
        releaseHeld();
        releasePlacement();
        releaseStoreWrite();
        drainOutbound();
        TcpQueuePair q = qp;
        if (q != null && was == Phase.ESTABLISHED) {
            q.connectionLost();
            cm.event(handler, CmEventType.DISCONNECTED, this, NONE);
        } else if (was == Phase.CONNECTING) {
            cm.event(handler, CmEventType.UNREACHABLE, this, NONE);
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.debug("rdma tcp connection {} failed: {}", channel, cause.toString());
        ctx.close();
    }

    // ---- requester: sending ----------------------------------------------------------------------

    /** Sends one request (any thread; Netty keeps the write order). */
    void sendRequest(SendQueueEntry e, int msn) {
        int length = (int) e.totalLength();
        ByteBuf h;
        switch (e.opcode()) {
            case SEND, SEND_WITH_IMM, SEND_WITH_INV -> {
                int flags = ((e.sendFlags() & org.jtarget.rdma.SendFlags.SOLICITED) != 0 ? TcpRdmaFrame.FLAG_SOLICITED : 0)
                        | (e.opcode() == WorkRequestOpcode.SEND_WITH_IMM ? TcpRdmaFrame.FLAG_WITH_IMM : 0)
                        | (e.opcode() == WorkRequestOpcode.SEND_WITH_INV ? TcpRdmaFrame.FLAG_WITH_INV : 0);
                h = TcpRdmaFrame.header(alloc, TcpRdmaFrame.SEND, flags, msn, length);
                h.writeInt(e.immData()).writeInt(e.invalidateRkey());
            }
            case RDMA_WRITE, RDMA_WRITE_WITH_IMM -> {
                int flags = e.opcode() == WorkRequestOpcode.RDMA_WRITE_WITH_IMM ? TcpRdmaFrame.FLAG_WITH_IMM : 0;
                h = TcpRdmaFrame.header(alloc, TcpRdmaFrame.RDMA_WRITE, flags, msn, length);
                h.writeLong(e.remoteAddress()).writeInt(e.rkey()).writeInt(e.immData());
            }
            default -> {
                h = TcpRdmaFrame.header(alloc, TcpRdmaFrame.READ_REQUEST, 0, msn, 0);
                h.writeLong(e.remoteAddress()).writeInt(e.rkey()).writeInt(length);
                enqueue(h);
                return;
            }
        }
        enqueue(withPayload(h, e));
    }

    /**
     * Requests go out in execution order, whichever thread executed them: a write made on the event
     * loop would overtake writes other threads queued as tasks, so every request goes through one
     * queue that a task of the event loop drains (and flushes once per batch).
     */
    private void enqueue(ByteBuf frame) {
        outbound.add(frame);
        if (!outboundScheduled.getAndSet(true)) {
            // also from the event loop itself: requests posted while it handles a burst of
            // completions leave together, with one flush
            channel.eventLoop().execute(drainOutbound);
        }
    }

    private void drainOutbound() {
        outboundScheduled.set(false);
        ByteBuf f;
        boolean any = false;
        while ((f = outbound.poll()) != null) {
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

    /** Header plus the entry's elements, wrapped, not copied (the entry holds its regions until ACK). */
    private ByteBuf withPayload(ByteBuf h, SendQueueEntry e) {
        if (e.numSge() == 0) {
            return h;
        }
        CompositeByteBuf c = alloc.compositeDirectBuffer(1 + e.numSge());
        c.addComponent(true, h);
        for (int i = 0; i < e.numSge(); i++) {
            c.addComponent(true, wrap(e.region(i), e.offset(i), e.length(i)));
        }
        return c;
    }

    private static ByteBuf wrap(MemoryRegion mr, long offset, int length) {
        ByteBuffer whole = mr.byteBuffer();
        ByteBuffer slice = whole != null ? whole.slice((int) offset, length)
                : mr.segment().asSlice(offset, length).asByteBuffer();
        return Unpooled.wrappedBuffer(slice);
    }

    // ---- FrameSink -------------------------------------------------------------------------------

    @Override
    public void frame(int opcode, int flags, int msn, ByteBuf header, ByteBuf payload) {
        boolean keep = false;
        try {
            switch (opcode) {
                case TcpRdmaFrame.CONNECT_REQUEST -> connectRequest(header, payload);
                case TcpRdmaFrame.CONNECT_ACCEPT -> connectAccept(header, payload);
                case TcpRdmaFrame.CONNECT_REJECT -> {
                    phase = Phase.CLOSED;
                    cm.event(handler, CmEventType.REJECTED, this, bytes(payload));
                    channel.close();
                }
                case TcpRdmaFrame.DISCONNECT -> channel.close();
                case TcpRdmaFrame.SEND -> keep = inboundSend(flags, msn, header, payload);
                case TcpRdmaFrame.READ_REQUEST -> readRequest(msn, header);
                case TcpRdmaFrame.ACK -> ack(msn);
                case TcpRdmaFrame.NAK -> nak(msn, header.readInt());
                default -> malformed("unexpected opcode " + opcode);
            }
        } finally {
            if (!keep) {
                payload.release();
            }
        }
    }

    private static byte[] bytes(ByteBuf b) {
        byte[] d = new byte[b.readableBytes()];
        b.getBytes(b.readerIndex(), d);
        return d;
    }

    private void connectRequest(ByteBuf header, ByteBuf payload) {
        if (phase != Phase.NEW || header.readInt() != TcpRdmaFrame.MAGIC || header.readShort() != TcpRdmaFrame.VERSION
                || payload.readableBytes() > ConnectionManager.MAX_PRIVATE_DATA) {
            malformed("bad connect request");
            return;
        }
        peerRnrRetry = header.readUnsignedByte();
        phase = Phase.REQUESTED;
        cm.event(handler, CmEventType.CONNECT_REQUEST, this, bytes(payload));
    }

    private void connectAccept(ByteBuf header, ByteBuf payload) {
        if (phase != Phase.CONNECTING) {
            malformed("unexpected accept");
            return;
        }
        peerRnrRetry = header.readUnsignedByte();
        TcpQueuePair q = qp;
        try {
            q.bind(this);
            QueuePairBringUp.toReadyToSend(q, 0);
        } catch (RdmaException e) {
            LOG.debug("rdma tcp: cannot bring up queue pair {}: {}", q.qpNum(), e.getMessage());
            channel.close();
            return;
        }
        phase = Phase.ESTABLISHED;
        cm.event(handler, CmEventType.ESTABLISHED, this, bytes(payload));
    }

    private boolean dataAllowed(int msn, boolean request) {
        if (phase != Phase.ESTABLISHED || qp == null) {
            malformed("data frame before the connection is established");
            return false;
        }
        if (request) {
            if (msn != expectedMsn) {
                malformed("MSN " + msn + ", expected " + expectedMsn);
                return false;
            }
            expectedMsn++;
        }
        return true;
    }

    private boolean inboundSend(int flags, int msn, ByteBuf header, ByteBuf payload) {
        if (!dataAllowed(msn, true)) {
            return false;
        }
        heldMsn = msn;
        heldFlags = flags;
        heldImm = header.readInt();
        heldInv = header.readInt();
        heldLength = payload.readableBytes();
        heldPayload = payload;
        if (deliverHeld()) {
            heldPayload = null;
            return false;
        }
        return true; // RNR: keep the payload until a receive is posted
    }

    /** Tries to deliver the held SEND (or WRITE immediate); true when it is done (delivered or failed). */
    private boolean deliverHeld() {
        WorkRequestOpcode op = (heldFlags & TcpRdmaFrame.FLAG_WITH_INV) != 0 ? WorkRequestOpcode.SEND_WITH_INV
                : heldPayload == null ? WorkRequestOpcode.RDMA_WRITE_WITH_IMM
                : (heldFlags & TcpRdmaFrame.FLAG_WITH_IMM) != 0 ? WorkRequestOpcode.SEND_WITH_IMM : WorkRequestOpcode.SEND;
        InboundPayload p = heldPayload == null ? null : this::copyHeld;
        WorkCompletionStatus st = qp.receive(p, heldLength, op, heldImm, heldInv,
                (heldFlags & TcpRdmaFrame.FLAG_SOLICITED) != 0);
        if (st == WorkCompletionStatus.SUCCESS) {
            acknowledge(heldMsn, heldLength);
            return true;
        }
        if (st == WorkCompletionStatus.RNR_RETRY_EXC_ERR && peerRnrRetry != 0) {
            hold();
            return false;
        }
        respondError(heldMsn, st);
        return true;
    }

    private void copyHeld(long payloadOffset, MemoryRegion dst, long dstOffset, int length) {
        Placement.copy(heldPayload, heldPayload.readerIndex() + (int) payloadOffset, length, dst, dstOffset);
    }

    private void hold() {
        holding = true;
        long generation = ++holdGeneration;
        if (peerRnrRetry != 7) {
            // IBA 9.7.5.2.8: the requester gives up after rnr_retry RNR NAKs of min_rnr_timer each
            channel.eventLoop().schedule(() -> rnrTimeout(generation), peerRnrRetry * RNR_TIMER_MICROS,
                    TimeUnit.MICROSECONDS);
        }
    }

    private void rnrTimeout(long generation) {
        if (holding && generation == holdGeneration) {
            holding = false;
            int msn = heldMsn;
            releaseHeld();
            respondError(msn, WorkCompletionStatus.RNR_RETRY_EXC_ERR);
            flushResponses();
        }
    }

    /** The queue pair got a receive (any thread). */
    void receivePosted() {
        if (holding) {
            channel.eventLoop().execute(retryHeld);
        }
    }

    private void retryHeld() {
        if (!holding || phase != Phase.ESTABLISHED) {
            return;
        }
        holding = false;
        if (deliverHeld()) {
            releaseHeld();
            flushResponses();
            decoder.resume();
            flushResponses();
        }
    }

    private void releaseHeld() {
        holding = false;
        if (heldPayload != null) {
            heldPayload.release();
            heldPayload = null;
        }
    }

    @Override
    public boolean blocked() {
        return holding || storeBusy;
    }

    private void readRequest(int msn, ByteBuf header) {
        if (!dataAllowed(msn, true)) {
            return;
        }
        long address = header.readLong();
        int rkey = header.readInt();
        int length = header.readInt();
        if (length < 0 || length > cm.device().attributes().maxMsgSize()) {
            malformed("READ length " + length);
            return;
        }
        MemoryRegion mr = qp.remote(rkey, address, length, AccessFlag.REMOTE_READ);
        if (mr == null) {
            respondError(msn, WorkCompletionStatus.REM_ACCESS_ERR);
            return;
        }
        if (mr.remoteAccessHandler() != null) {
            storeBusy = true;
            flushResponses();
            mr.remoteAccessHandler().read(qp, mr.offsetOf(address, length), length, (st, data) ->
                    onEventLoop(() -> storeReadDone(msn, mr, length, st, data), mr, data));
            return;
        }
        ByteBuf h = TcpRdmaFrame.header(alloc, TcpRdmaFrame.READ_RESPONSE, 0, msn, length);
        ByteBuf frame = length == 0 ? h
                : alloc.compositeDirectBuffer(2).addComponent(true, h)
                .addComponent(true, wrap(mr, mr.offsetOf(address, length), length));
        channel.write(frame).addListener(f -> mr.release());
        flushPending = true;
        unackedBytes += length;
        if (unackedBytes >= ACK_EVERY_BYTES) {
            flushResponses();
        }
    }

    private void ack(int msn) {
        if (!dataAllowed(msn, false) || !qp.sent(msn)) {
            malformed("ACK for MSN " + msn + " never sent");
            return;
        }
        qp.acknowledged(msn);
    }

    private void nak(int msn, int status) {
        WorkCompletionStatus[] all = WorkCompletionStatus.values();
        if (!dataAllowed(msn, false) || !qp.sent(msn) || status <= 0 || status >= all.length) {
            malformed("bad NAK");
            return;
        }
        qp.nak(msn, all[status]);
        channel.close();
    }

    /**
     * Records an executed request. ACKs are coalesced per socket read burst, but not beyond
     * {@link #ACK_EVERY_BYTES}: a requester whose send queue is full waits for them.
     */
    private void acknowledge(int msn, int length) {
        ackPending = true;
        ackMsn = msn;
        unackedBytes += length;
        if (unackedBytes >= ACK_EVERY_BYTES) {
            flushResponses();
        }
    }

    private void flushResponses() {
        if (ackPending) {
            ackPending = false;
            unackedBytes = 0;
            channel.write(TcpRdmaFrame.header(alloc, TcpRdmaFrame.ACK, 0, ackMsn, 0), channel.voidPromise());
            flushPending = true;
        }
        if (flushPending) {
            flushPending = false;
            channel.flush();
        }
    }

    /** The responder refused request {@code msn}: NAK it and terminate the connection. */
    private void respondError(int msn, WorkCompletionStatus status) {
        terminating = true; // before the queue pair's ERROR asks for a close (closeLater)
        flushResponses();
        qp.responderFailed();
        ByteBuf f = TcpRdmaFrame.header(alloc, TcpRdmaFrame.NAK, 0, msn, 0).writeInt(status.ordinal());
        channel.writeAndFlush(f).addListener(sent -> terminate());
        decoder.abort();
    }

    /**
     * Ends the connection after a NAK by half-closing it, not closing it: the refused request's
     * payload may still be unread in our socket, and a close with unread data resets the connection
     * (RST), which can destroy the NAK before the requester has read it (it then saw a lost
     * connection, not the refusal). The requester closes on the NAK; until then the aborted decoder
     * discards what still arrives. A requester that does not close is cut off after a while.
     */
    private void terminate() {
        if (!(channel instanceof DuplexChannel duplex) || !channel.isActive()) {
            channel.close();
            return;
        }
        channel.config().setAutoRead(true); // drain, even if a store access had paused reading
        duplex.shutdownOutput();
        channel.eventLoop().schedule(() -> {
            channel.close();
        }, TERMINATE_LINGER_SECONDS, TimeUnit.SECONDS);
    }

    // ---- tagged placement ------------------------------------------------------------------------

    @Override
    public boolean beginTagged(int opcode, int flags, int msn, ByteBuf header, int payloadLength) {
        if (opcode == TcpRdmaFrame.RDMA_WRITE) {
            if (!dataAllowed(msn, true)) {
                return false;
            }
            long address = header.readLong();
            int rkey = header.readInt();
            placeImm = header.readInt();
            MemoryRegion mr = qp.remote(rkey, address, payloadLength, AccessFlag.REMOTE_WRITE);
            if (mr == null) {
                respondError(msn, WorkCompletionStatus.REM_ACCESS_ERR);
                return false;
            }
            if (mr.remoteAccessHandler() != null) {
                return beginStoreWrite(mr, msn, flags, address, payloadLength);
            }
            placeRegion = mr;
            placeOffset = mr.offsetOf(address, payloadLength);
        } else {
            if (!dataAllowed(msn, false)) {
                return false;
            }
            SendQueueEntry e = qp.readEntry(msn);
            if (e == null || e.totalLength() != payloadLength) {
                malformed("unexpected READ RESPONSE for MSN " + msn);
                return false;
            }
            placeEntry = e;
        }
        placeMsn = msn;
        placeFlags = flags;
        placeLength = payloadLength;
        return true;
    }

    @Override
    public void place(ByteBuf src, int n, long messageOffset) {
        int index = src.readerIndex();
        if (storeData != null) {
            storeData.writeBytes(src, index, n);
            return;
        }
        if (placeRegion != null) {
            Placement.copy(src, index, n, placeRegion, placeOffset + messageOffset);
            return;
        }
        SendQueueEntry e = placeEntry;
        long pos = 0;
        long offset = messageOffset;
        int remaining = n;
        for (int i = 0; i < e.numSge() && remaining > 0; i++) {
            long end = pos + e.length(i);
            if (offset < end) {
                long within = offset - pos;
                int k = (int) Math.min(remaining, e.length(i) - within);
                Placement.copy(src, index, k, e.region(i), e.offset(i) + within);
                index += k;
                offset += k;
                remaining -= k;
            }
            pos = end;
        }
    }

    @Override
    public ByteBuf placementTarget(long messageOffset, int max) {
        if (storeData != null) {
            return null; // gathered by place() into the store buffer
        }
        if (placeRegion != null) {
            return wrap(placeRegion, placeOffset + messageOffset, max).clear();
        }
        SendQueueEntry e = placeEntry;
        long pos = 0;
        for (int i = 0; i < e.numSge(); i++) {
            long end = pos + e.length(i);
            if (messageOffset < end) {
                long within = messageOffset - pos;
                int n = (int) Math.min(max, e.length(i) - within);
                return wrap(e.region(i), e.offset(i) + within, n).clear();
            }
            pos = end;
        }
        return null;
    }

    @Override
    public void endTagged() {
        if (storeData != null) {
            startStoreWrite();
            return;
        }
        if (placeRegion != null) {
            placeRegion.release();
            placeRegion = null;
            if ((placeFlags & TcpRdmaFrame.FLAG_WITH_IMM) != 0) {
                heldMsn = placeMsn;
                heldFlags = placeFlags;
                heldImm = placeImm;
                heldInv = 0;
                heldLength = placeLength;
                heldPayload = null;
                deliverHeld();
            } else {
                acknowledge(placeMsn, placeLength);
            }
            return;
        }
        SendQueueEntry e = placeEntry;
        placeEntry = null;
        qp.readCompleted(placeMsn, e, placeLength);
    }

    // ---- store endpoints -------------------------------------------------------------------------

    private boolean beginStoreWrite(MemoryRegion mr, int msn, int flags, long address, int payloadLength) {
        if ((flags & TcpRdmaFrame.FLAG_WITH_IMM) != 0) {
            mr.release();
            respondError(msn, WorkCompletionStatus.REM_ACCESS_ERR);
            return false;
        }
        storeRegion = mr;
        storeOffset = mr.offsetOf(address, payloadLength);
        storeData = mr.remoteAccessHandler().allocate(payloadLength);
        placeMsn = msn;
        placeFlags = flags;
        placeLength = payloadLength;
        return true;
    }

    private void startStoreWrite() {
        MemoryRegion mr = storeRegion;
        ByteBuf data = storeData;
        int msn = placeMsn;
        int length = placeLength;
        storeRegion = null;
        storeData = null;
        storeBusy = true;
        mr.remoteAccessHandler().write(qp, storeOffset, data, (st, ignored) ->
                onEventLoop(() -> storeWriteDone(msn, mr, length, st), mr, null));
    }

    /**
     * Hands a store access's completion (from the store's I/O thread) to the event loop. If the loop
     * has stopped (the process is shutting down, the connection is long gone), the region and the
     * data are let go here instead.
     */
    private void onEventLoop(Runnable completion, MemoryRegion mr, ByteBuf data) {
        try {
            channel.eventLoop().execute(completion);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            mr.release();
            if (data != null) {
                data.release();
            }
        }
    }

    private void storeWriteDone(int msn, MemoryRegion mr, int length, WorkCompletionStatus status) {
        mr.release();
        storeBusy = false;
        if (phase != Phase.ESTABLISHED) {
            return;
        }
        if (status != WorkCompletionStatus.SUCCESS) {
            respondError(msn, status);
            return;
        }
        acknowledge(msn, length);
        resumeAfterStore();
    }

    private void storeReadDone(int msn, MemoryRegion mr, int length, WorkCompletionStatus status, ByteBuf data) {
        mr.release();
        storeBusy = false;
        if (phase != Phase.ESTABLISHED) {
            if (data != null) {
                data.release();
            }
            return;
        }
        if (status != WorkCompletionStatus.SUCCESS) {
            respondError(msn, status);
            return;
        }
        ByteBuf h = TcpRdmaFrame.header(alloc, TcpRdmaFrame.READ_RESPONSE, 0, msn, length);
        channel.write(alloc.compositeDirectBuffer(2).addComponent(true, h).addComponent(true, data),
                channel.voidPromise());
        flushPending = true;
        resumeAfterStore();
    }

    private void resumeAfterStore() {
        flushResponses();
        decoder.resume();
        flushResponses();
    }

    private void releaseStoreWrite() {
        if (storeData != null) {
            storeData.release();
            storeData = null;
        }
        if (storeRegion != null) {
            storeRegion.release();
            storeRegion = null;
        }
    }

    private void releasePlacement() {
        if (placeRegion != null) {
            placeRegion.release();
            placeRegion = null;
        }
        placeEntry = null;
    }

    @Override
    public void malformed(String why) {
        LOG.debug("rdma tcp connection {}: malformed stream: {}", channel, why);
        TcpQueuePair q = qp;
        if (q != null && q.state() != QueuePairState.RESET) {
            q.responderFailed();
        }
        if (decoder != null) {
            decoder.abort();
        }
        channel.close();
    }
}
