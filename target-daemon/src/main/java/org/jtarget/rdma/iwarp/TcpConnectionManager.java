package org.jtarget.rdma.iwarp;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.GlobalEventExecutor;
import org.jtarget.buffer.ReceiveSizing;
import org.jtarget.rdma.Errno;
import org.jtarget.rdma.QueuePair;
import org.jtarget.rdma.QueuePairState;
import org.jtarget.rdma.RdmaException;
import org.jtarget.rdma.cm.CmEvent;
import org.jtarget.rdma.cm.CmEventHandler;
import org.jtarget.rdma.cm.CmEventType;
import org.jtarget.rdma.cm.CmId;
import org.jtarget.rdma.cm.CmListener;
import org.jtarget.rdma.cm.ConnectionManager;

import java.net.SocketAddress;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The connection manager of a {@link TcpDevice}: a listener is a TCP server socket, a connection a
 * TCP connection that starts with the MPA request/reply exchange (RFC 5044 7.1, revision 2 with
 * RFC 6581's IRD/ORD word) carrying the private data: connect sends the request, accept the reply,
 * reject a reply with the reject flag. Events are delivered on one thread of this manager, in
 * order, never on an event loop.
 */
public final class TcpConnectionManager implements ConnectionManager {

    /** Socket reads straight into registered regions ({@link PlacementRecvAllocator}); off for comparisons. */
    private static final boolean DIRECT_PLACEMENT =
            !"false".equals(System.getProperty("jtarget.rdma.iwarp.directPlacement"));
    private static final int LOW_WATER_MARK = 1 << 20;
    private static final int HIGH_WATER_MARK = 8 << 20;

    private final TcpDevice device;
    private final ChannelGroup channels = new DefaultChannelGroup("rdma-iwarp", GlobalEventExecutor.INSTANCE);
    private final ExecutorService events = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "rdma-iwarp-cm");
        t.setDaemon(true);
        return t;
    });

    /** Whether this side asks for MPA CRC32C (either side may; either asking turns it on). */
    private volatile boolean requestCrc = Boolean.getBoolean("jtarget.rdma.iwarp.crc");

    /**
     * How long a passive end waits for the MPA request after TCP connected, and an active end for
     * the MPA reply after sending its request, before closing the connection (as Linux siw: 5 s
     * and 10 s): a peer that connects and stays silent holds nothing for long.
     */
    static final Duration DEFAULT_MPA_REQUEST_TIMEOUT = Duration.ofSeconds(5);
    static final Duration DEFAULT_MPA_REPLY_TIMEOUT = Duration.ofSeconds(10);
    private volatile Duration mpaRequestTimeout = DEFAULT_MPA_REQUEST_TIMEOUT;
    private volatile Duration mpaReplyTimeout = DEFAULT_MPA_REPLY_TIMEOUT;
    /** The RTRs this side offers when it connects, asking for peer-to-peer mode; empty: it does not ask. */
    private volatile Set<ReadyToReceive> peerToPeerOffer = Set.of();

    public TcpConnectionManager(TcpDevice device) {
        this.device = device;
    }

    /** Changes the MPA timeouts for connections made or accepted from now on (tests shorten them). */
    void mpaTimeouts(Duration request, Duration reply) {
        mpaRequestTimeout = request;
        mpaReplyTimeout = reply;
    }

    Duration mpaRequestTimeout() {
        return mpaRequestTimeout;
    }

    Duration mpaReplyTimeout() {
        return mpaReplyTimeout;
    }

    /** Asks for (or stops asking for) MPA CRC32C on the connections made or accepted from now on. */
    public void requestCrc(boolean on) {
        requestCrc = on;
    }

    boolean requestsCrc() {
        return requestCrc;
    }

    /**
     * Makes the connections this manager starts from now on ask for RFC 6581's peer-to-peer mode,
     * offering {@code offered} as ready-to-receive messages (the responder picks one, which this
     * side then sends as its first FPDU; a reply that picks none of them fails the connect with a
     * TERMINATE "no matching RTR option"). An empty set stops asking.
     */
    public void requestPeerToPeer(Set<ReadyToReceive> offered) {
        if (offered.contains(ReadyToReceive.NONE)) {
            throw new IllegalArgumentException("NONE is no ready-to-receive message to offer");
        }
        peerToPeerOffer = Set.copyOf(offered);
    }

    Set<ReadyToReceive> peerToPeerOffer() {
        return peerToPeerOffer;
    }

    /**
     * The ready-to-receive message a connection of this provider opened with (peer-to-peer mode,
     * either side), or {@link ReadyToReceive#NONE} in client-server mode or for another provider's id.
     */
    public static ReadyToReceive readyToReceive(CmId id) {
        return id instanceof TcpConnection c ? c.negotiatedRtr() : ReadyToReceive.NONE;
    }

    /**
     * An event loop group of the best transport here, as the daemon's fabrics use: epoll on Linux,
     * else NIO. The manager works with a group of either kind (it picks the matching channel classes).
     */
    public static EventLoopGroup newEventLoopGroup(int threads) {
        return new MultiThreadIoEventLoopGroup(threads,
                Epoll.isAvailable() ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
    }

    private boolean epoll() {
        return Epoll.isAvailable() && device.group() instanceof io.netty.channel.IoEventLoopGroup g
                && g.isIoType(EpollIoHandler.class);
    }

    /**
     * Socket reads of up to 1 MiB (Netty's default stops at 64 KiB): tagged payloads are placed
     * straight from these buffers, so bigger reads mean fewer system calls per message. Netty's
     * usual reads per readiness event ({@link ReceiveSizing}): with one, every read of a frame's
     * header or payload would cost another epoll_wait (and a flush of the responses).
     */
    static AdaptiveRecvByteBufAllocator receiveBuffers() {
        return ReceiveSizing.adaptive(4096, 64 * 1024, 1 << 20);
    }

    /**
     * The status a DISCONNECTED event's private data stands for: when the peer ended the connection
     * with a TERMINATE, the data is its 4-byte control word (layer, error type, code) and this is
     * the status its requests fail with; null for a plain disconnect. A request posted after the
     * TERMINATE arrived is only flushed; this is how its poster learns why.
     */
    public static org.jtarget.rdma.WorkCompletionStatus terminationStatus(byte[] disconnectData) {
        if (disconnectData == null || disconnectData.length != 4) {
            return null;
        }
        return Termination.statusOf(java.nio.ByteBuffer.wrap(disconnectData).getInt());
    }

    TcpDevice device() {
        return device;
    }

    void event(CmEventHandler handler, CmEventType type, CmId id, byte[] data) {
        if (!events.isShutdown()) {
            events.execute(() -> handler.onEvent(new CmEvent(type, id, data)));
        }
    }

    @Override
    public CmListener listen(SocketAddress address, CmEventHandler handler) throws RdmaException {
        Class<? extends ServerChannel> serverClass = epoll()
                ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
        ServerBootstrap b = new ServerBootstrap()
                .group(device.group())
                .channel(serverClass)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.ALLOCATOR, device.allocator())
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.RCVBUF_ALLOCATOR, receiveBuffers())
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK,
                        new io.netty.channel.WriteBufferWaterMark(LOW_WATER_MARK, HIGH_WATER_MARK))
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        channels.add(ch);
                        install(ch, new TcpConnection(TcpConnectionManager.this, ch, handler));
                    }
                });
        ChannelFuture bound = b.bind(address).awaitUninterruptibly();
        if (!bound.isSuccess()) {
            throw new RdmaException(Errno.EINVAL, "cannot listen on " + address + ": " + bound.cause());
        }
        Channel server = bound.channel();
        channels.add(server);
        return new CmListener() {
            @Override
            public SocketAddress localAddress() {
                return server.localAddress();
            }

            @Override
            public void close() {
                server.close().awaitUninterruptibly();
            }
        };
    }

    private void install(Channel ch, TcpConnection connection) {
        FrameDecoder decoder = new FrameDecoder(connection);
        connection.decoder(decoder);
        if (DIRECT_PLACEMENT) {
            ch.config().setRecvByteBufAllocator(new PlacementRecvAllocator(decoder));
        }
        ch.pipeline().addLast("rdma-frames", decoder).addLast("rdma-connection", connection);
    }

    @Override
    public CmId connect(SocketAddress address, QueuePair qp, byte[] privateData, CmEventHandler handler)
            throws RdmaException {
        return connect(address, qp, privateData, handler, null);
    }

    /** The channel is registered on {@code ioExecutor} when it is one of the device's event loops. */
    @Override
    public CmId connect(SocketAddress address, QueuePair qp, byte[] privateData, CmEventHandler handler,
                        java.util.concurrent.Executor ioExecutor) throws RdmaException {
        byte[] data = ConnectionManager.checkPrivateData(privateData);
        if (!(qp instanceof TcpQueuePair tqp) || qp.device() != device
                || qp.state() != QueuePairState.RESET && qp.state() != QueuePairState.INIT) {
            throw new RdmaException(Errno.EINVAL, "queue pair must be of this device, in RESET or INIT");
        }
        EventLoopGroup group = ioExecutor instanceof io.netty.channel.EventLoop loop && loop.parent() == device.group()
                ? loop : device.group();
        Bootstrap b = new Bootstrap()
                .group(group)
                .channel(epoll() ? EpollSocketChannel.class : NioSocketChannel.class)
                .option(ChannelOption.ALLOCATOR, device.allocator())
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.RCVBUF_ALLOCATOR, receiveBuffers())
                .option(ChannelOption.WRITE_BUFFER_WATER_MARK,
                        new io.netty.channel.WriteBufferWaterMark(LOW_WATER_MARK, HIGH_WATER_MARK));
        TcpConnection[] holder = new TcpConnection[1];
        b.handler(new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                channels.add(ch);
                TcpConnection c = new TcpConnection(TcpConnectionManager.this, ch, handler, tqp, data);
                holder[0] = c;
                install(ch, c);
            }
        });
        ChannelFuture f = b.connect(address);
        f.awaitUninterruptibly();
        if (!f.isSuccess() || holder[0] == null) {
            Throwable cause = f.cause();
            throw new RdmaException(Errno.EINVAL, "cannot connect to " + address + ": "
                    + (cause == null ? "the connection closed" : cause.getMessage()));
        }
        return holder[0];
    }

    @Override
    public void close() {
        channels.close().awaitUninterruptibly();
        events.shutdown();
    }
}
