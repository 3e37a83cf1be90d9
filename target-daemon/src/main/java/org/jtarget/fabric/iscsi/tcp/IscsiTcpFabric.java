package org.jtarget.fabric.iscsi.tcp;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.flush.FlushConsolidationHandler;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.GlobalEventExecutor;
import org.jtarget.buffer.BufferPool;
import org.jtarget.fabric.iscsi.IscsiPortalDefinition;
import org.jtarget.fabric.iscsi.IscsiTargetDefinition;
import org.jtarget.fabric.iscsi.IscsiTargetSettings;
import org.jtarget.fabric.iscsi.login.LoginSettings;
import org.jtarget.fabric.iscsi.session.ConnectionSettings;
import org.jtarget.fabric.iscsi.session.IscsiConnection;
import org.jtarget.fabric.iscsi.session.IscsiSession;
import org.jtarget.fabric.iscsi.session.SessionRegistry;
import org.jtarget.scsi.lun.NodeAcl;
import org.jtarget.scsi.lun.TargetRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.BindException;
import java.time.Duration;
import java.util.AbstractCollection;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The iSCSI fabric over TCP (RFC 7143 over the well-known port 3260 or any configured one): one
 * listening socket per portal, one pipeline per connection:
 *
 * <pre>
 *   FlushConsolidationHandler → IdleStateHandler → IscsiPduFramer → IscsiPduEncoder → IscsiTcpTransport
 *                                                                          (engine: IscsiConnection)
 * </pre>
 *
 * Connections use the shared pooled allocator ({@link BufferPool}), TCP_NODELAY and a write
 * buffer water mark (DESIGN 4.4: the connection stops reading while its output is not drained).
 *
 * <p>Targets live in the core's {@link TargetRegistry}: login and SendTargets look them up there
 * each time (a portal's connections see a live view, never a copy), and a target removed, or an
 * ACL that no longer admits an initiator, ends the sessions concerned.
 */
public final class IscsiTcpFabric {

    private static final Logger LOG = LoggerFactory.getLogger(IscsiTcpFabric.class);
    private static final int LOW_WATER_MARK = 1 << 20;
    private static final int HIGH_WATER_MARK = 4 << 20;

    private final BufferPool pool;
    private final EventLoopGroup bossGroup;
    private final EventLoopGroup workerGroup;
    private final TargetRegistry targets;
    private final LoginSettings settings;
    private final ConnectionSettings connectionSettings;
    private final SessionRegistry registry = new SessionRegistry();
    /** The bound portals by name (SendTargets lists a target's portals from here). */
    private final Map<String, IscsiPortalDefinition> portals = new ConcurrentHashMap<>();
    /**
     * Every portal served now, TCP or another transport's: during a reload a kept name may be
     * served at its old and its new address for a moment, and either may go first.
     */
    private final java.util.Set<IscsiPortalDefinition> served = ConcurrentHashMap.newKeySet();
    private final ChannelGroup listeners = new DefaultChannelGroup("iscsi-portals", GlobalEventExecutor.INSTANCE);
    /** The listening channel of each bound TCP portal (a reload closes one by its definition). */
    private final Map<IscsiPortalDefinition, Channel> listenerOf = new ConcurrentHashMap<>();
    private final ChannelGroup connections = new DefaultChannelGroup("iscsi-connections", GlobalEventExecutor.INSTANCE);

    public IscsiTcpFabric(BufferPool pool, EventLoopGroup bossGroup, EventLoopGroup workerGroup,
                          TargetRegistry targets, LoginSettings settings) {
        this(pool, bossGroup, workerGroup, targets, settings, ConnectionSettings.defaults());
    }

    public IscsiTcpFabric(BufferPool pool, EventLoopGroup bossGroup, EventLoopGroup workerGroup,
                          TargetRegistry targets, LoginSettings settings, ConnectionSettings connectionSettings) {
        this.pool = pool;
        this.bossGroup = bossGroup;
        this.workerGroup = workerGroup;
        this.targets = targets;
        this.settings = settings;
        this.connectionSettings = connectionSettings;
        targets.addListener(new SessionEnder());
    }

    /** An event loop group of the best transport here: epoll on Linux, else NIO. */
    public static EventLoopGroup newEventLoopGroup(int threads) {
        return new MultiThreadIoEventLoopGroup(threads,
                Epoll.isAvailable() ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
    }

    private static Class<? extends ServerChannel> serverChannelClass() {
        return Epoll.isAvailable() ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    }

    /**
     * The session registry of the node: another transport's fabric (iSER) shares it, so that
     * TSIHs, reinstatement and the sessions ended with their target are the node's, not a portal's.
     */
    public SessionRegistry sessionRegistry() {
        return registry;
    }

    /**
     * Makes {@code portal} one of the node's portals without a TCP listener (another transport
     * serves it): SendTargets lists it with the targets bound to it, and the returned live view of
     * those targets is what that transport's logins look up.
     */
    public Collection<IscsiTargetDefinition> servedThrough(IscsiPortalDefinition portal) {
        served.add(portal);
        portals.put(portal.name(), portal);
        return new ServedTargets(portal);
    }

    /** Undoes {@link #servedThrough}: SendTargets no longer lists {@code portal} (its transport stopped listening). */
    public void noLongerServedThrough(IscsiPortalDefinition portal) {
        forget(portal);
    }

    /** {@code portal} is served no more; SendTargets lists its name's other definition, if one is still served. */
    private void forget(IscsiPortalDefinition portal) {
        served.remove(portal);
        if (portals.remove(portal.name(), portal)) {
            served.stream().filter(p -> p.name().equals(portal.name())).findFirst()
                    .ifPresent(p -> portals.putIfAbsent(p.name(), p));
        }
    }

    /** The live sessions of this fabric (for status output). */
    public List<IscsiSession> sessions() {
        return registry.sessions();
    }

    /**
     * Starts listening on a portal. Synchronous.
     *
     * @throws BindException if the address is in use
     * @throws IOException   for any other failure to bind
     */
    public void bind(IscsiPortalDefinition portal) throws IOException {
        IscsiPortalDefinition previous = portals.put(portal.name(), portal);
        served.add(portal);
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(bossGroup, workerGroup)
                .channel(serverChannelClass())
                .option(ChannelOption.SO_REUSEADDR, true)
                .option(ChannelOption.ALLOCATOR, pool.allocator())
                .childOption(ChannelOption.ALLOCATOR, pool.allocator())
                .childOption(ChannelOption.RCVBUF_ALLOCATOR, new HeadroomRecvByteBufAllocator())
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK,
                        new WriteBufferWaterMark(LOW_WATER_MARK, HIGH_WATER_MARK))
                .childHandler(initializer(portal, new ServedTargets(portal)));
        ChannelFuture bound = bootstrap.bind(portal.host(), portal.port()).awaitUninterruptibly();
        if (!bound.isSuccess()) {
            restore(portal, previous);
            Throwable cause = bound.cause();
            if (cause instanceof BindException be) {
                throw be;
            }
            BindException be = new BindException("portal " + portal.name() + ": cannot bind "
                    + portal.host() + ":" + portal.port() + ": " + cause.getMessage());
            be.initCause(cause);
            throw be;
        }
        listeners.add(bound.channel());
        listenerOf.put(portal, bound.channel());
        LOG.info("portal {} listening on {}:{}", portal.name(), portal.host(), portal.port());
    }

    private void restore(IscsiPortalDefinition failed, IscsiPortalDefinition previous) {
        served.remove(failed);
        if (previous == null) {
            portals.remove(failed.name(), failed);
        } else {
            portals.replace(failed.name(), failed, previous);
        }
    }

    /**
     * Stops listening on a portal bound by {@link #bind} (a reload removed it): no new connection
     * is accepted there and SendTargets stops listing it. Connections already made through it
     * stay, with their sessions, as LIO keeps the sessions of a deleted network portal; ending
     * them is the administrator's call ({@code DELETE /api/v1/sessions/{id}}). Synchronous; not
     * on an event loop.
     *
     * @return false if {@code portal} was not listening
     */
    public boolean unbind(IscsiPortalDefinition portal) {
        Channel channel = listenerOf.remove(portal);
        if (channel == null) {
            return false;
        }
        forget(portal);
        channel.close().awaitUninterruptibly();
        LOG.info("portal {} no longer listening on {}:{}", portal.name(), portal.host(), portal.port());
        return true;
    }

    private ChannelInitializer<SocketChannel> initializer(IscsiPortalDefinition portal, ServedTargets served) {
        return new ChannelInitializer<>() {
            @Override
            protected void initChannel(SocketChannel ch) {
                connections.add(ch);
                long nop = connectionSettings.nopInInterval().toMillis();
                ch.pipeline()
                        // one flush (one writev) per event-loop turn, not one per response:
                        // responses of commands completed while a read is in progress, and completions
                        // handed back by store threads, leave together
                        .addLast("flush", new FlushConsolidationHandler(
                                FlushConsolidationHandler.DEFAULT_EXPLICIT_FLUSH_AFTER_FLUSHES, true))
                        .addLast("idle", new IdleStateHandler(nop, 0, 0, TimeUnit.MILLISECONDS))
                        .addLast("decoder", new IscsiPduFramer(settings.maxRecvDataSegmentLength()))
                        .addLast("encoder", new IscsiPduEncoder())
                        .addLast("connection", new IscsiTcpTransport(transport -> new IscsiConnection(transport,
                                registry, portal, served, settings, connectionSettings)));
            }
        };
    }

    /**
     * Clean shutdown: stop accepting, ask every session to log out (RFC 7143 11.9.1 AsyncEvent 1),
     * give them {@link ConnectionSettings#logoutGrace()}, then close what is left (its commands
     * are aborted) and wait for the sessions to end, at most {@code timeout} in all.
     */
    public void close(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        listeners.close().awaitUninterruptibly(remainingMillis(deadline));
        List<IscsiSession> live = registry.sessions();
        int seconds = (int) Math.max(1, connectionSettings.logoutGrace().toSeconds());
        for (IscsiSession s : live) {
            s.requestLogout(seconds);
        }
        long grace = Math.min(connectionSettings.logoutGrace().toMillis(), remainingMillis(deadline) / 2);
        for (IscsiSession s : live) {
            s.terminationFuture().awaitUninterruptibly(Math.max(0, grace));
        }
        List<Future<Void>> ends = new ArrayList<>();
        for (IscsiSession s : registry.sessions()) {
            ends.add(s.terminate());
        }
        connections.close().awaitUninterruptibly(remainingMillis(deadline));
        for (Future<Void> f : ends) {
            f.awaitUninterruptibly(remainingMillis(deadline));
        }
        LOG.info("iSCSI fabric closed");
    }

    /**
     * The targets of the registry reachable through one portal, as the login code sees them: a
     * live view made anew on each look-up (login and SendTargets only, never the I/O path).
     */
    private final class ServedTargets extends AbstractCollection<IscsiTargetDefinition> {
        private final IscsiPortalDefinition portal;

        ServedTargets(IscsiPortalDefinition portal) {
            this.portal = portal;
        }

        @Override
        public Iterator<IscsiTargetDefinition> iterator() {
            return current().iterator();
        }

        @Override
        public int size() {
            return current().size();
        }

        private List<IscsiTargetDefinition> current() {
            List<IscsiTargetDefinition> served = new ArrayList<>();
            for (TargetRegistry.Target t : targets.targets()) {
                if (t.reachableThrough(portal.name())) {
                    served.add(definition(t));
                }
            }
            return served;
        }
    }

    /** The iSCSI view of a registry target: its login ACL is the core's node ACL. */
    private IscsiTargetDefinition definition(TargetRegistry.Target t) {
        IscsiTargetSettings s = t.fabricSettings(IscsiTargetSettings.class);
        List<IscsiPortalDefinition> reachable = new ArrayList<>();
        for (String name : t.portalNames()) {
            IscsiPortalDefinition p = portals.get(name);
            if (p != null) {
                reachable.add(p);
            }
        }
        return new IscsiTargetDefinition(t.name(), s == null ? null : s.alias(), t.core(), t.core().acl().initiators(),
                s == null ? null : s.chap(), reachable);
    }

    /** Ends the sessions of a removed target, and those an ACL change no longer admits. */
    private final class SessionEnder implements TargetRegistry.Listener {
        @Override
        public void targetRemoved(TargetRegistry.Target target) {
            endSessions(target.name(), null);
        }

        @Override
        public void aclChanged(TargetRegistry.Target target, NodeAcl acl) {
            endSessions(target.name(), acl);
        }

        private void endSessions(String targetName, NodeAcl stillAdmitted) {
            for (IscsiSession s : registry.sessions()) {
                if (s.target() != null && s.target().name().equalsIgnoreCase(targetName)
                        && (stillAdmitted == null || !stillAdmitted.admits(s.parameters().initiatorName()))) {
                    LOG.info("ending session of {} with {}: {}", s.parameters().initiatorName(), targetName,
                            stillAdmitted == null ? "target removed" : "no longer in its ACL");
                    s.terminate();
                }
            }
        }
    }

    private static long remainingMillis(long deadline) {
        return Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
    }

    /** The channels of the bound portals (tests read their local port). */
    public List<Channel> listeningChannels() {
        return new ArrayList<>(listeners);
    }
}
