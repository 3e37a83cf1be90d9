package org.jtarget.fabric.srp;

import io.netty.util.concurrent.EventExecutorGroup;
import org.jtarget.buffer.BufferPool;
import org.jtarget.fabric.rdma.RdmaPortals;
import org.jtarget.fabric.srp.iu.SrpLogout;
import org.jtarget.rdma.RdmaDevice;
import org.jtarget.rdma.RdmaException;
import org.jtarget.rdma.cm.ConnectionManager;
import org.jtarget.scsi.lun.TransferCounters;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * The SCSI RDMA Protocol fabric (T10 SRP r16a): one connection manager listener per SRP portal,
 * an {@link SrpListener} behind each, and one table of I_T nexuses for all of them (a nexus is an
 * initiator port and a target port; its channels may arrive through any portal). The buffer
 * pool's pinned arena is registered once in the fabric's protection domain; every channel's
 * buffers come from it.
 */
public final class SrpFabric implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(SrpFabric.class);

    private final RdmaPortals rdma;
    private final EventExecutorGroup loops;
    private final SrpLimits limits;
    private final SrpNexusTable nexuses = new SrpNexusTable();
    private final List<SrpListener> portals = new ArrayList<>();
    /** What the channels carried per portal (by name); kept for the daemon's run, as counters should. */
    private final Map<String, TransferCounters> portalCounters = new ConcurrentHashMap<>();

    /**
     * What one channel served now carried.
     *
     * @param target        the target's name
     * @param initiatorPort the SRP initiator port name (0x and its 16-byte identifier)
     * @param peer          the channel's remote address (a nexus may have several channels)
     */
    public record ChannelTraffic(String target, String initiatorPort, String portal, SocketAddress peer,
                                 TransferCounters counters) {
    }

    /**
     * @throws IllegalStateException if the pool has no pinned arena
     * @throws RdmaException         if the device refuses to register it
     */
    public SrpFabric(RdmaDevice device, ConnectionManager cm, BufferPool pool, EventExecutorGroup loops,
                     SrpLimits limits) throws RdmaException {
        this.rdma = new RdmaPortals("SRP", device, cm, pool);
        this.loops = loops;
        this.limits = limits;
    }

    /**
     * Listens for SRP logins on {@code address}.
     *
     * @param relativePortId the portal's relative target port identifier and target port group
     * @param ports          the targets the portal serves, by target port identifier (looked up at each login)
     * @throws RdmaException if the address cannot be listened on
     */
    public synchronized void bind(String portalName, InetSocketAddress address, int relativePortId,
                                  SrpTargetPorts ports) throws RdmaException {
        SrpListener listener = new SrpListener(rdma.device(), rdma.protectionDomain(), rdma.memory(), loops, limits,
                ports, nexuses, relativePortId, portalName,
                portalCounters.computeIfAbsent(portalName, name -> new TransferCounters()));
        rdma.listen(address, listener);
        portals.add(listener);
        LOG.info("portal {} listening for SRP on {}:{}", portalName, address.getHostString(), address.getPort());
    }

    /**
     * Stops listening for SRP logins on {@code address} (a reload removed the portal); channels
     * already logged in through it stay.
     *
     * @return false if nothing listened there
     */
    public synchronized boolean unbind(String portalName, InetSocketAddress address) {
        boolean stopped = rdma.stopListening(address);
        if (stopped) {
            LOG.info("portal {} no longer listening for SRP on {}:{}", portalName, address.getHostString(),
                    address.getPort());
        }
        return stopped;
    }

    /** Every channel served now, with its counters. */
    public synchronized List<ChannelTraffic> channelTraffic() {
        List<ChannelTraffic> all = new ArrayList<>();
        for (SrpListener l : portals) {
            all.addAll(l.channelTraffic());
        }
        return all;
    }

    /** What the channels carried through each SRP portal, by portal name. */
    public Map<String, TransferCounters> portalTraffic() {
        return new TreeMap<>(portalCounters);
    }

    /** The addresses listened on, in the order bound (a port 0 replaced by the one the system chose). */
    public List<SocketAddress> listenAddresses() {
        return rdma.listenAddresses();
    }

    /**
     * Logs out (SRP_T_LOGOUT, then the disconnect) every channel to target port
     * {@code targetPortName} whose initiator port {@code stillAdmitted} refuses, or every one when
     * it is null (the target is gone): what a reload that removes the target or narrows its ACL
     * does to the I_T nexuses it no longer allows, as the iSCSI fabric ends such sessions.
     */
    public void logoutChannels(String targetPortName, Predicate<String> stillAdmitted, String why) {
        for (SrpChannel c : nexuses.channelsOf(n -> n.targetPortName().equals(targetPortName)
                && (stillAdmitted == null || !stillAdmitted.test(n.initiatorPortName())))) {
            LOG.info("logging SRP channel {} of initiator port {} out of target port {}: {}", c.cmId().remoteAddress(),
                    c.commands().nexus().initiatorPortName(), targetPortName, why);
            c.logout(SrpLogout.NO_REASON);
        }
    }

    /** Channels served on every portal. */
    public synchronized int channels() {
        int n = 0;
        for (SrpListener l : portals) {
            n += l.channels();
        }
        return n;
    }

    /**
     * Stops listening and logs every channel out (SRP_T_LOGOUT, r16a), waiting at most
     * {@code timeout} for them to go, then releases the registered memory.
     */
    public synchronized void close(Duration timeout) {
        rdma.close(timeout, () -> portals.forEach(SrpListener::logoutAll), this::channels);
    }

    @Override
    public void close() {
        close(Duration.ofSeconds(5));
    }
}
