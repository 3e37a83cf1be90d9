package org.jtarget.daemon.api;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * The API over HTTP/1.1 on a Unix socket (mode 0600: whoever may write it may manage the daemon,
 * so it is the service user's only). One event loop of its own; every request is handed to
 * {@link ManagementApi} and answered when its future completes, so the loop never waits.
 */
public final class UnixSocketListener implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(UnixSocketListener.class);

    /** Bodies are small JSON documents: anything larger is refused by the aggregator (413). */
    private static final int MAX_REQUEST_BYTES = 1 << 20;

    /** stat(2)'s file type bits, and the type of a socket. */
    private static final int S_IFMT = 0170000;
    private static final int S_IFSOCK = 0140000;

    private final EventLoopGroup group;
    private final Channel server;
    private final Path socket;

    private UnixSocketListener(EventLoopGroup group, Channel server, Path socket) {
        this.group = group;
        this.server = server;
        this.socket = socket;
    }

    /**
     * Listens on {@code socket}. It is bound under a temporary name, made 0600 and then renamed
     * into place, so that it never exists with looser permissions. A stale socket a crashed daemon
     * left is replaced; one that another process still answers on is refused.
     */
    public static UnixSocketListener start(Path socket, ManagementApi api) throws IOException {
        refuseIfInUse(socket);
        Path temporary = socket.resolveSibling("." + socket.getFileName() + ".binding");
        Files.deleteIfExists(temporary);
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
        try {
            Channel server = new ServerBootstrap().group(group).channel(EpollServerDomainSocketChannel.class)
                    .childHandler(new ChannelInitializer<Channel>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            ch.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(MAX_REQUEST_BYTES),
                                    new RequestHandler(api));
                        }
                    })
                    .bind(new DomainSocketAddress(temporary.toFile())).sync().channel();
            Files.setPosixFilePermissions(temporary, PosixFilePermissions.fromString("rw-------"));
            Files.move(temporary, socket, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            LOG.info("management API on unix:{} ({} routes under {})", socket, api.routes().size(), ManagementApi.BASE);
            return new UnixSocketListener(group, server, socket);
        } catch (IOException | RuntimeException e) {
            group.shutdownGracefully(0, 0, java.util.concurrent.TimeUnit.MILLISECONDS);
            Files.deleteIfExists(temporary);
            throw e instanceof IOException io ? io : new IOException(e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            group.shutdownGracefully(0, 0, java.util.concurrent.TimeUnit.MILLISECONDS);
            throw new IOException("interrupted while binding " + socket, e);
        }
    }

    private static void refuseIfInUse(Path socket) throws IOException {
        if (!Files.exists(socket, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        int mode = (Integer) Files.getAttribute(socket, "unix:mode", java.nio.file.LinkOption.NOFOLLOW_LINKS);
        if ((mode & S_IFMT) != S_IFSOCK) {
            // a typo must not replace a file (socket: /etc/jtarget/jtarget.yaml)
            throw new IOException(socket + " exists and is not a socket");
        }
        try (SocketChannel probe = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            probe.connect(UnixDomainSocketAddress.of(socket));
        } catch (IOException nobodyAnswers) {
            LOG.info("management socket {}: replacing a stale socket file", socket);
            return;
        }
        throw new IOException(socket + " is in use by another process (another jtargetd?)");
    }

    @Override
    public void close() {
        server.close().awaitUninterruptibly();
        group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS).awaitUninterruptibly();
        try {
            Files.deleteIfExists(socket);
        } catch (IOException e) {
            LOG.warn("management socket {}: not removed: {}", socket, e.toString());
        }
    }

    /** One connection's requests, in order (HTTP/1.1 without pipelining surprises: one at a time). */
    private static final class RequestHandler extends SimpleChannelInboundHandler<FullHttpRequest> {

        private final ManagementApi api;

        RequestHandler(ManagementApi api) {
            this.api = api;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest msg) {
            if (msg.decoderResult().isFailure()) {
                write(ctx, api.error(new ApiException(400, "bad-request", "not an HTTP/1.1 request: "
                        + msg.decoderResult().cause().getMessage())), false);
                return;
            }
            boolean keepAlive = HttpUtil.isKeepAlive(msg);
            ctx.channel().config().setAutoRead(false); // the next request waits: answers go out in order
            ApiRequest request = new ApiRequest(msg.method().name(), new QueryStringDecoder(msg.uri()).path(),
                    ByteBufUtil.getBytes(msg.content()));
            api.handle(request).thenAccept(answer -> write(ctx, answer, keepAlive));
        }

        private static void write(ChannelHandlerContext ctx, ApiResponse answer, boolean keepAlive) {
            FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                    HttpResponseStatus.valueOf(answer.status()), Unpooled.wrappedBuffer(answer.body()));
            response.headers().set(HttpHeaderNames.CONTENT_TYPE, answer.contentType())
                    .setInt(HttpHeaderNames.CONTENT_LENGTH, answer.body().length);
            if (keepAlive) {
                response.headers().set(HttpHeaderNames.CONNECTION, "keep-alive");
                ctx.writeAndFlush(response).addListener(written -> ctx.channel().config().setAutoRead(true));
            } else {
                response.headers().set(HttpHeaderNames.CONNECTION, "close");
                ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            LOG.debug("management connection closed after error", cause);
            ctx.close();
        }
    }
}
