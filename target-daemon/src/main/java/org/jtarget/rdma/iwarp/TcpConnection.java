package org.jtarget.rdma.iwarp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
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
import org.jtarget.rdma.WorkCompletionStatus;
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
 * One iWARP connection, the Netty handler of its channel: the MPA request/reply exchange that the
 * connection manager's connect, accept and reject map onto (RFC 5044 7.1, with RFC 6581's IRD/ORD
 * word and ready-to-receive message), then each DDP segment of its one queue pair handed to the
 * side it is for, and the connection's end (orderly close, or a TERMINATE followed by a half-close).
 * The layers under it can be swapped one by one: framing ({@link FrameDecoder} in, {@link FrameOutput}
 * out), placement ({@link TaggedPlacement}, {@link Placement}), and the RDMAP operations of the
 * {@link Requester} and the {@link Responder} (store endpoints through {@link StoreAccess}). State is
 * single-writer on the channel's event loop, except what the connection manager's thread sets
 * before the MPA request leaves.
 */
final class TcpConnection extends ChannelInboundHandlerAdapter implements FrameSink, CmId {

    private static final Logger LOG = LoggerFactory.getLogger(TcpConnection.class);
    private static final byte[] NONE = new byte[0];
    /** How long a connection ended by a TERMINATE waits for the peer to close it. */
    private static final long TERMINATE_LINGER_SECONDS = 5;
    /** What the first FPDU must be when the peer asked for peer-to-peer mode (RFC 6581 4). */
    private enum Rtr { NONE, SEND, WRITE, READ }

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
    /** A TERMINATE is on its way and the connection half-closes ({@link #halfClose}); no hard close meanwhile. */
    private boolean terminating;
    /** The tagged segment being placed is a READ response (else an RDMA WRITE). */
    private boolean placingReadResponse;
    /** The peer's MPA request: its revision, whether it is enhanced (RFC 6581), CRC wanted. */
    private int peerRevision;
    private boolean peerEnhanced;
    private boolean crc;
    /** Peer-to-peer mode: the RTR the peer will send first, and whether it arrived. */
    private Rtr awaitingRtr = Rtr.NONE;
    private Rtr offeredRtr = Rtr.NONE;
    /** The control word of the TERMINATE the peer sent (4 bytes), or empty: the DISCONNECTED event's data. */
    private volatile byte[] peerTermination = NONE;
    /** The peer's IRD from its MPA frame: how many READs this side may have outstanding. */
    private int peerIrd = 1;

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
    }

    void decoder(FrameDecoder d) {
        this.decoder = d;
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
        tqp.ordLimit(peerIrd);
        QueuePairBringUp.toReadyToSend(tqp, 0);
        qp = tqp;
        phase = Phase.ESTABLISHED;
        channel.eventLoop().execute(() -> sendReply(data));
    }

    /** The MPA reply accepting the connection; FPDUs follow it in both directions (event loop). */
    private void sendReply(byte[] data) {
        int flags = (crc ? Mpa.FLAG_CRC : 0) | (peerEnhanced ? Mpa.FLAG_ENHANCED : 0);
        byte[] pd = data;
        if (peerEnhanced) {
            int ird = Responder.IRD | (offeredRtr != Rtr.NONE ? Mpa.IRD_PEER_TO_PEER : 0)
                    | (offeredRtr == Rtr.SEND ? Mpa.IRD_RTR_SEND : 0);
            int ord = Responder.IRD | (offeredRtr == Rtr.WRITE ? Mpa.ORD_RTR_WRITE : 0)
                    | (offeredRtr == Rtr.READ ? Mpa.ORD_RTR_READ : 0);
            pd = Mpa.withIrdOrd(ird, ord, data);
        }
        ByteBuf f = alloc.heapBuffer(Mpa.FRAME_HEADER + pd.length);
        Mpa.writeFrame(f, Mpa.REPLY_KEY, flags, peerRevision, pd);
        channel.writeAndFlush(f);
        output.crc(crc);
        awaitingRtr = offeredRtr;
        decoder.startFpdus(crc);
        if (awaitingRtr == Rtr.NONE) {
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
        byte[] pd = peerEnhanced ? Mpa.withIrdOrd(0, 0, data) : data;
        ByteBuf f = alloc.heapBuffer(Mpa.FRAME_HEADER + pd.length);
        int revision = peerRevision == 0 ? Mpa.REVISION_2 : peerRevision;
        Mpa.writeFrame(f, Mpa.REPLY_KEY, Mpa.FLAG_REJECT | (peerEnhanced ? Mpa.FLAG_ENHANCED : 0), revision, pd);
        channel.writeAndFlush(f).addListener(ChannelFutureListener.CLOSE);
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
            if (!terminating) {
                channel.close();
            }
        });
    }

    /** Sends one request (any thread; the output keeps the execution order). */
    void sendRequest(SendQueueEntry e, int number) {
        requester.send(e, number);
    }

    /** The queue pair got a receive (any thread): nothing waits for it in iWARP (no RNR). */
    void receivePosted() {
    }

    // ---- channel events --------------------------------------------------------------------------

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        if (phase == Phase.CONNECTING) {
            int flags = Mpa.FLAG_ENHANCED | (cm.requestsCrc() ? Mpa.FLAG_CRC : 0);
            byte[] pd = Mpa.withIrdOrd(Responder.IRD, Responder.IRD, requestData);
            ByteBuf f = alloc.heapBuffer(Mpa.FRAME_HEADER + pd.length);
            Mpa.writeFrame(f, Mpa.REQUEST_KEY, flags, Mpa.REVISION_2, pd);
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
            cm.event(handler, CmEventType.DISCONNECTED, this, peerTermination);
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
        int flags = header.getUnsignedByte(Mpa.KEY_LENGTH);
        int revision = header.getUnsignedByte(Mpa.KEY_LENGTH + 1);
        if (!Mpa.hasKey(header, 0, Mpa.REQUEST_KEY) || revision != Mpa.REVISION_1 && revision != Mpa.REVISION_2) {
            closeAfterMpaError("bad MPA request");
            return;
        }
        peerRevision = revision;
        peerEnhanced = revision == Mpa.REVISION_2 && (flags & Mpa.FLAG_ENHANCED) != 0;
        if ((flags & Mpa.FLAG_MARKERS) != 0) {
            LOG.debug("rdma iwarp connection {}: markers requested, rejected", channel);
            phase = Phase.CLOSED;
            sendReject(NONE);
            return;
        }
        if (peerEnhanced) {
            if (privateData.readableBytes() < Mpa.IRD_ORD_LENGTH) {
                closeAfterMpaError("enhanced MPA request without its IRD/ORD word");
                return;
            }
            int ird = privateData.readUnsignedShort();
            int ord = privateData.readUnsignedShort();
            peerIrd = ird & Mpa.IRD_ORD_MASK;
            offeredRtr = (ird & Mpa.IRD_PEER_TO_PEER) == 0 ? Rtr.NONE
                    : (ord & Mpa.ORD_RTR_WRITE) != 0 ? Rtr.WRITE
                    : (ord & Mpa.ORD_RTR_READ) != 0 ? Rtr.READ
                    : (ird & Mpa.IRD_RTR_SEND) != 0 ? Rtr.SEND : Rtr.WRITE;
        }
        if (privateData.readableBytes() > ConnectionManager.MAX_PRIVATE_DATA) {
            phase = Phase.CLOSED;
            sendReject(NONE);
            return;
        }
        crc = (flags & Mpa.FLAG_CRC) != 0 || cm.requestsCrc();
        phase = Phase.REQUESTED;
        cm.event(handler, CmEventType.CONNECT_REQUEST, this, bytes(privateData));
    }

    private void mpaReply(ByteBuf header, ByteBuf privateData) {
        int flags = header.getUnsignedByte(Mpa.KEY_LENGTH);
        int revision = header.getUnsignedByte(Mpa.KEY_LENGTH + 1);
        boolean enhanced = revision == Mpa.REVISION_2 && (flags & Mpa.FLAG_ENHANCED) != 0;
        if (!Mpa.hasKey(header, 0, Mpa.REPLY_KEY) || !enhanced || (flags & Mpa.FLAG_MARKERS) != 0
                || privateData.readableBytes() < Mpa.IRD_ORD_LENGTH) {
            closeAfterMpaError("bad MPA reply");
            return;
        }
        peerIrd = privateData.readUnsignedShort() & Mpa.IRD_ORD_MASK;
        privateData.skipBytes(Mpa.IRD_ORD_LENGTH - 2);
        if ((flags & Mpa.FLAG_REJECT) != 0) {
            phase = Phase.CLOSED;
            cm.event(handler, CmEventType.REJECTED, this, bytes(privateData));
            channel.close();
            return;
        }
        TcpQueuePair q = qp;
        try {
            q.bind(this);
            q.ordLimit(peerIrd);
            QueuePairBringUp.toReadyToSend(q, 0);
        } catch (RdmaException e) {
            LOG.debug("rdma iwarp: cannot bring up queue pair {}: {}", q.qpNum(), e.getMessage());
            channel.close();
            return;
        }
        crc = (flags & Mpa.FLAG_CRC) != 0;
        output.crc(crc);
        phase = Phase.ESTABLISHED;
        decoder.startFpdus(crc);
        cm.event(handler, CmEventType.ESTABLISHED, this, bytes(privateData));
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

    private static byte[] bytes(ByteBuf b) {
        byte[] d = new byte[b.readableBytes()];
        b.getBytes(b.readerIndex(), d);
        return d;
    }

    // ---- FrameSink: DDP segments to the side they are for ---------------------------------------------

    @Override
    public void untagged(ByteBuf header, ByteBuf payload) {
        if (!dataFrameAllowed()) {
            payload.release();
            return;
        }
        int queue = header.getInt(Iwarp.QN_OFFSET);
        int opcode = header.getUnsignedByte(1) & Iwarp.OPCODE_MASK;
        if (awaitingRtr != Rtr.NONE) {
            readyToReceive(awaitingRtr == Rtr.SEND && Iwarp.isSend(opcode) && queue == Iwarp.QUEUE_SEND
                    || awaitingRtr == Rtr.READ && opcode == Iwarp.READ_REQUEST, payload.readableBytes());
            if (awaitingRtr == Rtr.NONE && opcode == Iwarp.READ_REQUEST) {
                responder.readRequest(header, payload); // a zero-length READ: answered with an empty response
                return;
            }
            payload.release();
            return;
        }
        if (queue == Iwarp.QUEUE_SEND && Iwarp.isSend(opcode)) {
            responder.send(header, payload);
        } else if (queue == Iwarp.QUEUE_READ_REQUEST && opcode == Iwarp.READ_REQUEST) {
            responder.readRequest(header, payload);
        } else if (queue == Iwarp.QUEUE_TERMINATE && opcode == Iwarp.TERMINATE) {
            peerTerminated(payload);
        } else {
            payload.release();
            terminate(queue > Iwarp.QUEUE_TERMINATE ? TerminateCode.DDP_INVALID_QN : TerminateCode.RDMAP_UNEXPECTED_OPCODE,
                    "opcode " + opcode + " on queue " + queue);
        }
    }

    /** The first FPDU in peer-to-peer mode: the RTR negotiated, zero-length; then the connection is up. */
    private void readyToReceive(boolean matches, int length) {
        if (!matches || length != 0) {
            terminate(TerminateCode.MPA_NO_MATCHING_RTR, "first FPDU is not the RTR negotiated");
            return;
        }
        awaitingRtr = Rtr.NONE;
        cm.event(handler, CmEventType.ESTABLISHED, this, NONE);
    }

    @Override
    public boolean beginTagged(ByteBuf header, int payloadLength) {
        if (!dataFrameAllowed()) {
            return false;
        }
        int opcode = header.getUnsignedByte(1) & Iwarp.OPCODE_MASK;
        if (awaitingRtr != Rtr.NONE) {
            readyToReceive(awaitingRtr == Rtr.WRITE && opcode == Iwarp.RDMA_WRITE, payloadLength);
            return false;
        }
        if (opcode == Iwarp.RDMA_WRITE) {
            placingReadResponse = false;
            return responder.beginWrite(header, payloadLength);
        }
        if (opcode == Iwarp.READ_RESPONSE) {
            placingReadResponse = true;
            return requester.beginReadResponse(header, payloadLength);
        }
        terminate(TerminateCode.RDMAP_UNEXPECTED_OPCODE, "tagged opcode " + opcode);
        return false;
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

    /** The peer ended the stream with a TERMINATE: the oldest unfinished request fails, the rest flush. */
    private void peerTerminated(ByteBuf payload) {
        int control = payload.readableBytes() >= Iwarp.TERMINATE_CONTROL ? payload.getInt(payload.readerIndex()) : 0;
        payload.release();
        LOG.debug("rdma iwarp connection {}: peer terminated (layer {}, type {}, code {})", channel,
                control >>> 28, control >>> 24 & 0xf, control >>> 16 & 0xff);
        decoder.abort();
        peerTermination = new byte[] {(byte) (control >>> 24), (byte) (control >>> 16), (byte) (control >>> 8),
            (byte) control};
        qp.terminated(statusOf(control));
        channel.close();
    }

    /** The work completion status a requester reports for a TERMINATE's reason. */
    static WorkCompletionStatus statusOf(int control) {
        int layer = control >>> 28;
        int type = control >>> 24 & 0xf;
        int code = control >>> 16 & 0xff;
        if (layer == TerminateCode.DDP_NO_BUFFER.layer && type == TerminateCode.DDP_NO_BUFFER.type) {
            return code == TerminateCode.DDP_NO_BUFFER.code ? WorkCompletionStatus.RNR_RETRY_EXC_ERR
                    : WorkCompletionStatus.REM_INV_REQ_ERR;
        }
        if (layer == 0 && type == 1 || layer == 1 && type == 1) {
            return WorkCompletionStatus.REM_ACCESS_ERR;
        }
        return WorkCompletionStatus.REM_OP_ERR;
    }

    // ---- for the requester and the responder (event loop) --------------------------------------------

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

    EventLoop eventLoop() {
        return channel.eventLoop();
    }

    void resumeDecoding() {
        decoder.resume();
    }

    /**
     * Ends the stream: this side's queue pair goes to ERROR, a TERMINATE (untagged queue 2) with
     * {@code code} goes out after the responses already written, nothing more is decoded, and the
     * connection half-closes ({@link #halfClose}).
     */
    void terminate(TerminateCode code, String why) {
        if (terminating) {
            return;
        }
        LOG.debug("rdma iwarp connection {}: terminating ({}): {}", channel, code, why);
        terminating = true; // before the queue pair's ERROR asks for a close
        responder.flushResponses();
        TcpQueuePair q = qp;
        if (q != null && q.state() != QueuePairState.RESET) {
            q.responderFailed();
        }
        decoder.abort();
        ByteBuf control = alloc.directBuffer(Iwarp.TERMINATE_CONTROL).writeInt(code.controlWord());
        ByteBuf fpdu = output.untagged(Iwarp.TERMINATE, true, 0, Iwarp.QUEUE_TERMINATE, 1, 0, control);
        channel.writeAndFlush(fpdu).addListener(sent -> halfClose());
    }

    /**
     * Ends the connection after a TERMINATE by half-closing it, not closing it: the refused
     * message's payload may still be unread in our socket, and a close with unread data resets the
     * connection (RST), which can destroy the TERMINATE before the peer has read it. The peer
     * closes on the TERMINATE; until then the aborted decoder discards what still arrives. A peer
     * that does not close is cut off after a while.
     */
    private void halfClose() {
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
    public void malformed(TerminateCode code, String why) {
        if (phase == Phase.ESTABLISHED) {
            terminate(code, why);
        } else {
            closeAfterMpaError(why);
        }
    }
}
