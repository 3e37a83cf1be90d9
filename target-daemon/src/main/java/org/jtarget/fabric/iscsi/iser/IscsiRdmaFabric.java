package org.jtarget.fabric.iscsi.iser;

import io.netty.util.concurrent.EventExecutorGroup;
import org.jtarget.buffer.BufferPool;
import org.jtarget.fabric.iscsi.IscsiPortalDefinition;
import org.jtarget.fabric.iscsi.IscsiTargetDefinition;
import org.jtarget.fabric.iscsi.login.LoginSettings;
import org.jtarget.fabric.iscsi.session.ConnectionSettings;
import org.jtarget.fabric.iscsi.session.IscsiConnection;
import org.jtarget.fabric.iscsi.session.SessionRegistry;
import org.jtarget.fabric.rdma.RdmaPortals;
import org.jtarget.fabric.rdma.RegisteredMemory;
import org.jtarget.rdma.RdmaDevice;
import org.jtarget.rdma.RdmaException;
import org.jtarget.rdma.cm.ConnectionManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * The iSCSI fabric over RDMA (iSER, RFC 7145): one connection manager listener per portal marked
 * {@code transport: iser}, one {@link IscsiRdmaListener} behind each, and the same engine, login
 * and sessions as iSCSI over TCP. The daemon hands it the session registry and the live view of
 * the targets of the TCP fabric, so that a target listed on TCP and iSER portals side by side is
 * one target with one set of sessions.
 *
 * <p>The buffer pool's pinned arena is registered once in the fabric's protection domain
 * ({@link RegisteredMemory}); every connection's buffers come from it.
 */
public final class IscsiRdmaFabric implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(IscsiRdmaFabric.class);

    private final RdmaPortals rdma;
    private final BufferPool pool;
    private final EventExecutorGroup loops;
    private final SessionRegistry sessions;
    private final LoginSettings settings;
    private final ConnectionSettings connectionSettings;
    private final List<IscsiRdmaListener> portals = new ArrayList<>();

    /**
     * @param sessions the sessions of the whole iSCSI node (shared with the TCP fabric)
     * @throws IllegalStateException if the pool has no pinned arena
     * @throws RdmaException         if the device refuses to register it
     */
    public IscsiRdmaFabric(RdmaDevice device, ConnectionManager cm, BufferPool pool, EventExecutorGroup loops,
                           SessionRegistry sessions, LoginSettings settings, ConnectionSettings connectionSettings)
            throws RdmaException {
        this.rdma = new RdmaPortals("iSER", device, cm, pool);
        this.pool = pool;
        this.loops = loops;
        this.sessions = sessions;
        this.settings = iserSettings(settings);
        this.connectionSettings = connectionSettings;
    }

    /**
     * Listens for iSER connections on a portal.
     *
     * @param served the targets reachable through the portal (a live view, looked up at each login)
     * @throws RdmaException if the address cannot be listened on
     */
    public synchronized void bind(IscsiPortalDefinition portal, Collection<IscsiTargetDefinition> served)
            throws RdmaException {
        InetSocketAddress address = new InetSocketAddress(portal.host(), portal.port());
        IserLimits limits = IserLimits.of(settings.commandWindow(), settings.maxRecvDataSegmentLength());
        IscsiRdmaListener listener = new IscsiRdmaListener(rdma.device(), rdma.protectionDomain(), rdma.memory(), loops, pool.allocator(), limits, address,
                connectionSettings.nopInInterval(), transport -> new IscsiConnection(transport, sessions, portal,
                        served, settings, connectionSettings));
        rdma.listen(address, listener);
        portals.add(listener);
        LOG.info("portal {} listening for iSER on {}:{}", portal.name(), portal.host(), portal.port());
    }

    /**
     * Stops listening for iSER on {@code portal} (a reload removed it); its connections stay.
     *
     * @return false if nothing listened there
     */
    public synchronized boolean unbind(IscsiPortalDefinition portal) {
        boolean stopped = rdma.stopListening(new InetSocketAddress(portal.host(), portal.port()));
        if (stopped) {
            LOG.info("portal {} no longer listening for iSER on {}:{}", portal.name(), portal.host(), portal.port());
        }
        return stopped;
    }

    /**
     * The login settings of iSER connections: the target declares TargetRecvDataSegmentLength
     * 8192 (what Linux isert declares and sizes its receives for, ISER_RECV_DATA_SEG_LEN), so that
     * a receive ring of a command window's depth stays small; data moves by RDMA anyway, and only
     * immediate data and control PDUs travel in SENDs.
     */
    static LoginSettings iserSettings(LoginSettings s) {
        return new LoginSettings(IserLimits.LOGIN_DATA_SEGMENT_LENGTH, s.maxBurstLength(),
                Math.min(s.firstBurstLength(), IserLimits.LOGIN_DATA_SEGMENT_LENGTH), s.maxOutstandingR2T(),
                s.maxConnections(), s.immediateData(), s.initialR2T(), s.defaultTime2Wait(), s.defaultTime2Retain(),
                s.commandWindow());
    }

    /** Connections served on every portal. */
    public synchronized int connections() {
        int n = 0;
        for (IscsiRdmaListener l : portals) {
            n += l.connections();
        }
        return n;
    }

    /**
     * Stops listening and disconnects every connection (the sessions were asked to log out by
     * whoever owns the session registry), waiting at most {@code timeout} for them to go, then
     * releases the registered memory.
     */
    public synchronized void close(Duration timeout) {
        rdma.close(timeout, () -> portals.forEach(IscsiRdmaListener::disconnectAll), this::connections);
    }

    @Override
    public void close() {
        close(Duration.ofSeconds(5));
    }
}
