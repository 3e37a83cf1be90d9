package org.jtarget.rdma.iwarp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import org.jtarget.rdma.Errno;
import org.jtarget.rdma.QueuePair;
import org.jtarget.rdma.QueuePairState;
import org.jtarget.rdma.RdmaException;
import org.jtarget.rdma.SendQueueEntry;
import org.jtarget.rdma.cm.CmEventHandler;
import org.jtarget.rdma.cm.CmEventType;
import org.jtarget.rdma.cm.CmId;
import org.jtarget.rdma.cm.ConnectionManager;
import org.jtarget.rdma.cm.QueuePairBringUp;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.SocketAddress;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * One iWARP connection, the Netty handler of its channel: the MPA request/reply exchange that the
 * connection manager's connect, accept and reject map onto (RFC 5044 7.1, with RFC 6581's IRD/ORD
 * word and ready-to-receive message, {@link RtrExchange}), then each DDP segment of its one queue
 * pair handed to the side it is for ({@link SegmentRouter}), and the connection's end (orderly
 * close, or a TERMINATE followed by a half-close).
 * The MPA frames and what they negotiate are {@link MpaHandshake}'s, the TERMINATE and the close
 * after it {@link Termination}'s. The layers under it can be swapped one by one: framing
 * ({@link FrameDecoder} in, {@link FrameOutput} out), placement ({@link TaggedPlacement},
 * {@link Placement}), and the RDMAP operations of the
 * {@link Requester} and the {@link Responder} (store endpoints through {@link StoreAccess}). State is
 * single-writer on the channel's event loop, except what the connection manager's thread sets
 * before the MPA request leaves.
 */
final class TcpConnection extends ChannelInboundHandlerAdapter implements FrameSink, CmId {

    private static final Logger LOG = LoggerFactory.getLogger(TcpConnection.class);
    private static final byte[] NONE = new byte[0];

    private enum Phase { NEW, REQUESTED, CONNECTING, ESTABLISHED, CLOSED }

    private final TcpConnectionManager cm;
    private final Channel channel;
    private final ByteBufAllocator alloc;
    private final CmEventHandler handler;
    private final byte[] requestData;
    private final FrameOutput output;
    private final TaggedPlacement placement = new TaggedPlacement();
    private final Requester requester;
    private final Responder responder;
    private volatile Phase phase;
    private volatile TcpQueuePair qp;
    private final MpaHandshake mpa = new MpaHandshake();
    private final Termination termination;
    private final RtrExchange rtr;
    private final SegmentRouter router;
    private FrameDecoder decoder;

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
        this.output = new FrameOutput(channel, alloc, this::requestsSent);
        this.requester = new Requester(this, output, placement, alloc, cm.device().attributes().maxQpWr());
        this.responder = new Responder(this, output, placement, alloc);
        this.termination = new Termination(channel, alloc, output);
        this.rtr = new RtrExchange(this, mpa, output, alloc, requester, responder);
        this.router = new SegmentRouter(this, mpa, rtr, requester, responder);
    }

    void decoder(FrameDecoder d) {
        this.decoder = d;
    }

    /** The RTR this connection opened with (read once it is established). */
    ReadyToReceive negotiatedRtr() {
        return mpa.negotiatedRtr();
    }

    boolean isActive() {
        return channel.isActive() && phase == Phase.ESTABLISHED;
    }

    private void requestsSent(int through) {
        TcpQueuePair q = qp;
        if (q != null && phase == Phase.ESTABLISHED) {
            q.acknowledged(through);
        }
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

    /** The socket's event loop: FPDUs are written and read there. */
    @Override
    public Executor ioExecutor() {
        return channel.eventLoop();
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
        tqp.ordLimit(mpa.peerIrd());
        QueuePairBringUp.toReadyToSend(tqp, 0);
        qp = tqp;
        // before the queue pair can post: a request is framed (CRC included) on the posting
        // thread, possibly before the reply below has left
        output.crc(mpa.crc());
        phase = Phase.ESTABLISHED;
        channel.eventLoop().execute(() -> sendReply(data));
    }

    /** The MPA reply accepting the connection; FPDUs follow it in both directions (event loop). */
    private void sendReply(byte[] data) {
        channel.writeAndFlush(mpa.reply(alloc, data));
        decoder.startFpdus(mpa.crc());
        if (!mpa.awaitingRtr()) {
            cm.event(handler, CmEventType.ESTABLISHED, this, NONE);
        }
    }

    @Override
    public void reject(byte[] privateData) {
        byte[] data = privateData == null ? NONE : privateData.clone();
        phase = Phase.CLOSED;
        channel.eventLoop().execute(() -> sendReject(data));
    }

    /** An MPA reply with the reject flag carrying {@code data}, then the connection closes (RFC 5044 7.1.5). */
    private void sendReject(byte[] data) {
        channel.writeAndFlush(mpa.reject(alloc, data)).addListener(ChannelFutureListener.CLOSE);
    }

    /** Orderly close: what was written leaves, then the TCP connection closes (RFC 5040 has no message for it). */
    @Override
    public void disconnect() {
        if (channel.isActive()) {
            channel.eventLoop().execute(() -> {
                output.drainRequests();
                channel.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
            });
        }
    }

    /** Closes the connection (its queue pair went to ERROR), unless a TERMINATE is ending it already. */
    void closeLater() {
        channel.eventLoop().execute(() -> {
            if (!termination.started()) {
                channel.close();
            }
        });
    }

    /** Sends one request (any thread; the output keeps the execution order). */
    void sendRequest(SendQueueEntry e, int number) {
        requester.send(e, number);
    }

    // ---- channel events --------------------------------------------------------------------------

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        if (phase == Phase.CONNECTING) {
            ctx.writeAndFlush(mpa.request(alloc, cm.requestsCrc(), cm.peerToPeerOffer(), requestData));
        }
        startMpaTimer(ctx);
        ctx.fireChannelActive();
    }

    /** Closes the connection if the MPA request (passive end) or reply (active end) does not come in time. */
    private void startMpaTimer(ChannelHandlerContext ctx) {
        Phase awaiting = phase;
        Duration timeout = awaiting == Phase.CONNECTING ? cm.mpaReplyTimeout() : cm.mpaRequestTimeout();
        ctx.executor().schedule(() -> {
            if (phase == awaiting) {
                closeAfterMpaError("no MPA " + (awaiting == Phase.CONNECTING ? "reply" : "request")
                        + " within " + timeout.toMillis() + " ms");
            }
        }, timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        responder.flushResponses();
        ctx.fireChannelReadComplete();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        Phase was = phase;
        phase = Phase.CLOSED;
        responder.release();
        output.drainRequests();
        TcpQueuePair q = qp;
        if (q != null && was == Phase.ESTABLISHED) {
            q.connectionLost();
            cm.event(handler, CmEventType.DISCONNECTED, this, termination.peerControl());
        } else if (was == Phase.CONNECTING) {
            cm.event(handler, CmEventType.UNREACHABLE, this, NONE);
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.debug("rdma iwarp connection {} failed: {}", channel, cause.toString());
        ctx.close();
    }

    // ---- FrameSink: MPA -------------------------------------------------------------------------------

    @Override
    public void mpaFrame(ByteBuf header, ByteBuf privateData) {
        try {
            if (phase == Phase.NEW) {
                mpaRequest(header, privateData);
            } else if (phase == Phase.CONNECTING) {
                mpaReply(header, privateData);
            } else {
                closeAfterMpaError("MPA frame in phase " + phase);
            }
        } finally {
            privateData.release();
        }
    }

    private void mpaRequest(ByteBuf header, ByteBuf privateData) {
        switch (mpa.readRequest(header, privateData, cm.requestsCrc())) {
            case MALFORMED -> closeAfterMpaError("bad MPA request");
            case ACCEPTABLE -> {
                phase = Phase.REQUESTED;
                cm.event(handler, CmEventType.CONNECT_REQUEST, this, MpaHandshake.bytes(privateData));
            }
            default -> { // markers, or more private data than a listener takes
                LOG.debug("rdma iwarp connection {}: MPA request refused", channel);
                phase = Phase.CLOSED;
                sendReject(NONE);
            }
        }
    }

    private void mpaReply(ByteBuf header, ByteBuf privateData) {
        MpaHandshake.Outcome outcome = mpa.readReply(header, privateData);
        if (outcome == MpaHandshake.Outcome.MALFORMED) {
            closeAfterMpaError("bad MPA reply");
            return;
        }
        if (outcome == MpaHandshake.Outcome.REJECTED) {
            phase = Phase.CLOSED;
            cm.event(handler, CmEventType.REJECTED, this, MpaHandshake.bytes(privateData));
            channel.close();
            return;
        }
        output.crc(mpa.crc());
        if (outcome == MpaHandshake.Outcome.NO_MATCHING_RTR) {
            refuseRtr();
            return;
        }
        rtr.send(); // before the queue pair takes requests, so none can precede it or race for an MSN
        TcpQueuePair q = qp;
        try {
            q.bind(this);
            q.ordLimit(mpa.peerIrd());
            QueuePairBringUp.toReadyToSend(q, 0);
        } catch (RdmaException e) {
            LOG.debug("rdma iwarp: cannot bring up queue pair {}: {}", q.qpNum(), e.getMessage());
            channel.close();
            return;
        }
        phase = Phase.ESTABLISHED;
        decoder.startFpdus(mpa.crc());
        // Up at once, whatever the RTR (a READ RTR's response too is consumed whenever it comes), as
        // Linux's siw initiator does: its responder installs its RTR receive callback only after
        // sending the reply (siw_accept), so an RTR arriving in between goes unnoticed until more
        // data comes; holding everything back for the READ response would then wait forever.
        cm.event(handler, CmEventType.ESTABLISHED, this, MpaHandshake.bytes(privateData));
    }

    /**
     * The reply to our peer-to-peer request picked no RTR we offered: the responder now waits for
     * an RTR this side cannot send, so the stream ends with a TERMINATE "no matching RTR option"
     * (RFC 6581; what Linux's siw sends in this case) and the connect fails.
     */
    private void refuseRtr() {
        phase = Phase.CLOSED;
        termination.start();
        decoder.abort();
        termination.send(TerminateCode.MPA_NO_MATCHING_RTR);
        cm.event(handler, CmEventType.UNREACHABLE, this, NONE);
    }

    /** A broken MPA exchange: no FPDU may follow, the TCP connection just closes (RFC 5044 7.1.4). */
    private void closeAfterMpaError(String why) {
        LOG.debug("rdma iwarp connection {}: {}", channel, why);
        Phase was = phase;
        phase = Phase.CLOSED;
        decoder.abort();
        if (was == Phase.CONNECTING) {
            cm.event(handler, CmEventType.UNREACHABLE, this, NONE);
        }
        channel.close();
    }

    // ---- FrameSink: DDP segments to the side they are for ---------------------------------------------

    @Override
    public void untagged(ByteBuf header, ByteBuf payload) {
        if (dataFrameAllowed()) {
            router.untagged(header, payload);
        } else {
            payload.release();
        }
    }

    @Override
    public boolean beginTagged(ByteBuf header, int payloadLength) {
        return dataFrameAllowed() && router.beginTagged(header, payloadLength);
    }

    @Override
    public void place(ByteBuf src, int n, long segmentOffset) {
        placement.place(src, n, segmentOffset);
    }

    @Override
    public ByteBuf placementTarget(long segmentOffset, int max) {
        return placement.target(segmentOffset, max);
    }

    @Override
    public void endTagged() {
        router.endTagged();
    }

    @Override
    public boolean blocked() {
        return responder.blocked();
    }

    /** The peer ended the stream with a TERMINATE: the oldest unfinished request fails, the rest flush. */
    void peerTerminated(ByteBuf payload) {
        int control = termination.received(payload);
        LOG.debug("rdma iwarp connection {}: peer terminated (layer {}, type {}, code {})", channel,
                control >>> 28, control >>> 24 & 0xf, control >>> 16 & 0xff);
        decoder.abort();
        qp.terminated(Termination.statusOf(control));
        channel.close();
    }

    // ---- for the requester, the responder and the RTR exchange (event loop) ---------------------------

    /** Peer-to-peer mode: the RTR negotiated arrived, so the connection is up (the responder's side). */
    void rtrReceived() {
        cm.event(handler, CmEventType.ESTABLISHED, this, NONE);
    }

    TcpQueuePair qp() {
        return qp;
    }

    boolean established() {
        return phase == Phase.ESTABLISHED;
    }

    /** Whether a DDP segment may arrive now; if not, the stream is malformed. */
    boolean dataFrameAllowed() {
        if (phase != Phase.ESTABLISHED || qp == null) {
            closeAfterMpaError("DDP segment before the connection is established");
            return false;
        }
        return true;
    }

    int maxMessageSize() {
        return cm.device().attributes().maxMsgSize();
    }

    void resumeDecoding() {
        decoder.resume();
    }

    /**
     * Ends the stream: this side's queue pair goes to ERROR, a TERMINATE (untagged queue 2) with
     * {@code code} goes out after the responses already written, nothing more is decoded, and the
     * connection half-closes ({@link Termination}).
     */
    void terminate(TerminateCode code, String why) {
        if (!termination.start()) { // before the queue pair's ERROR asks for a close
            return;
        }
        LOG.debug("rdma iwarp connection {}: terminating ({}): {}", channel, code, why);
        responder.flushResponses();
        TcpQueuePair q = qp;
        if (q != null && q.state() != QueuePairState.RESET) {
            q.responderFailed();
        }
        decoder.abort();
        termination.send(code);
    }

    @Override
    public void malformed(TerminateCode code, String why) {
        if (phase == Phase.ESTABLISHED) {
            terminate(code, why);
        } else {
            closeAfterMpaError(why);
        }
    }
}
