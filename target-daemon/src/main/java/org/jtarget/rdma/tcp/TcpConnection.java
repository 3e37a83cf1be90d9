package org.jtarget.rdma.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
import io.netty.channel.socket.DuplexChannel;
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
import java.util.concurrent.TimeUnit;

/**
 * One tcp-provider connection, the Netty handler of its channel: the connection manager's
 * handshake (CONNECT_REQUEST, ACCEPT, REJECT, DISCONNECT), then each data frame of its one queue
 * pair handed to the side it is for, and the connection's end (close, half-close after a NAK). The
 * layers under it can be swapped one by one: framing ({@link FrameDecoder} in, {@link FrameOutput}
 * out), placement ({@link TaggedPlacement}, {@link Placement}), and the operations of the
 * {@link Requester} (sending requests, taking ACK/NAK/READ RESPONSE) and the {@link Responder}
 * (executing the peer's requests in MSN order, store endpoints through {@link StoreAccess}).
 * State is single-writer on the channel's event loop, except what the connection manager's
 * thread sets before the handshake frame leaves.
 */
final class TcpConnection extends ChannelInboundHandlerAdapter implements FrameSink, CmId {

    private static final Logger LOG = LoggerFactory.getLogger(TcpConnection.class);
    private static final byte[] NONE = new byte[0];
    /** How long a connection terminated by a NAK waits for the requester to close it. */
    private static final long TERMINATE_LINGER_SECONDS = 5;

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
    private FrameDecoder decoder;
    /** A NAK is on its way and the connection half-closes ({@link #terminate}); no hard close meanwhile. */
    private boolean terminating;
    /** The tagged frame being placed is a READ RESPONSE (else an RDMA WRITE). */
    private boolean placingReadResponse;

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
        this.output = new FrameOutput(channel, alloc);
        this.requester = new Requester(this, output, placement);
        this.responder = new Responder(this, output, placement);
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

    /** Sends one request (any thread; the output keeps the execution order). */
    void sendRequest(SendQueueEntry e, int msn) {
        requester.send(e, msn);
    }

    /** The queue pair got a receive (any thread). */
    void receivePosted() {
        responder.receivePosted();
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

    // ---- FrameSink: each frame to the side it is for -------------------------------------------------

    @Override
    public void frame(int opcode, int flags, int msn, ByteBuf header, ByteBuf payload) {
        boolean keep = false;
        try {
            switch (opcode) {
                case TcpRdmaFrame.CONNECT_REQUEST -> connectRequest(header, payload);
                case TcpRdmaFrame.CONNECT_ACCEPT -> connectAccept(header, payload);
                case TcpRdmaFrame.CONNECT_REJECT -> connectReject(payload);
                case TcpRdmaFrame.DISCONNECT -> channel.close();
                case TcpRdmaFrame.SEND -> keep = responder.send(flags, msn, header, payload);
                case TcpRdmaFrame.READ_REQUEST -> responder.readRequest(msn, header);
                case TcpRdmaFrame.ACK -> requester.ack(msn);
                case TcpRdmaFrame.NAK -> requester.nak(msn, header.readInt());
                default -> malformed("unexpected opcode " + opcode);
            }
        } finally {
            if (!keep) {
                payload.release();
            }
        }
    }

    @Override
    public boolean beginTagged(int opcode, int flags, int msn, ByteBuf header, int payloadLength) {
        placingReadResponse = opcode != TcpRdmaFrame.RDMA_WRITE;
        return placingReadResponse ? requester.beginReadResponse(msn, payloadLength)
                : responder.beginWrite(flags, msn, header, payloadLength);
    }

    @Override
    public void place(ByteBuf src, int n, long messageOffset) {
        placement.place(src, n, messageOffset);
    }

    @Override
    public ByteBuf placementTarget(long messageOffset, int max) {
        return placement.target(messageOffset, max);
    }

    @Override
    public void endTagged() {
        if (placingReadResponse) {
            requester.endReadResponse();
        } else {
            responder.endWrite();
        }
    }

    @Override
    public boolean blocked() {
        return responder.blocked();
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
        responder.peerRnrRetry(header.readUnsignedByte());
        phase = Phase.REQUESTED;
        cm.event(handler, CmEventType.CONNECT_REQUEST, this, bytes(payload));
    }

    private void connectAccept(ByteBuf header, ByteBuf payload) {
        if (phase != Phase.CONNECTING) {
            malformed("unexpected accept");
            return;
        }
        responder.peerRnrRetry(header.readUnsignedByte());
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

    /** Only an active end waiting for its answer can be rejected; later, a reject is a malformed stream. */
    private void connectReject(ByteBuf payload) {
        if (phase != Phase.CONNECTING) {
            malformed("unexpected reject");
            return;
        }
        phase = Phase.CLOSED;
        cm.event(handler, CmEventType.REJECTED, this, bytes(payload));
        channel.close();
    }

    // ---- for the requester and the responder (event loop) --------------------------------------------

    TcpQueuePair qp() {
        return qp;
    }

    boolean established() {
        return phase == Phase.ESTABLISHED;
    }

    /** Whether a data frame may arrive now; if not, the stream is malformed. */
    boolean dataFrameAllowed() {
        if (phase != Phase.ESTABLISHED || qp == null) {
            malformed("data frame before the connection is established");
            return false;
        }
        return true;
    }

    int maxMessageSize() {
        return cm.device().attributes().maxMsgSize();
    }

    EventLoop eventLoop() {
        return channel.eventLoop();
    }

    void close() {
        channel.close();
    }

    void resumeDecoding() {
        decoder.resume();
    }

    /** A NAK is about to end the connection: from now on no hard close ({@link #closeLater}). */
    void beginTerminating() {
        terminating = true;
    }

    /** Sends {@code nak}, then half-closes ({@link #terminate}); nothing more is decoded. */
    void terminateAfter(ByteBuf nak) {
        channel.writeAndFlush(nak).addListener(sent -> terminate());
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
