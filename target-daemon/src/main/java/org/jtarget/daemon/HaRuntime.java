package org.jtarget.daemon;

import io.netty.channel.EventLoopGroup;
import org.jtarget.backstore.spi.Backstore;
import org.jtarget.buffer.BufferPool;
import org.jtarget.config.BackstoreConfig;
import org.jtarget.config.ConfigException;
import org.jtarget.config.HaConfig;
import org.jtarget.config.JtargetConfig;
import org.jtarget.config.PortalConfig;
import org.jtarget.fabric.rdma.RegisteredMemory;
import org.jtarget.ha.DirtyRegionLog;
import org.jtarget.ha.NodeStateFile;
import org.jtarget.ha.PairNode;
import org.jtarget.ha.ReplicatedBackstore;
import org.jtarget.ha.Witness;
import org.jtarget.ha.witness.WitnessClient;
import org.jtarget.ha.link.LinkSettings;
import org.jtarget.ha.link.ReplicationLink;
import org.jtarget.rdma.PinnedMemoryPolicy;
import org.jtarget.rdma.ProtectionDomain;
import org.jtarget.rdma.RdmaException;
import org.jtarget.rdma.iwarp.TcpConnectionManager;
import org.jtarget.rdma.iwarp.TcpDevice;
import org.jtarget.scsi.alua.AluaState;
import org.jtarget.scsi.lun.TargetRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Supplier;

/**
 * The {@code ha:} section at run time: this node of the pair ({@link PairNode}) with its replicated
 * stores, its replication link over the iwarp provider on the daemon's event loops, and the
 * node's role shown to initiators as ALUA states: this node's target port groups (its portals'
 * tags) are active/optimized while it is the primary and standby otherwise; the peer's groups,
 * learnt from its HELLO, are listed in every target with the peer's state (unavailable while the
 * link is down), so that REPORT TARGET PORT GROUPS through either node shows the whole pair.
 */
final class HaRuntime implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(HaRuntime.class);

    /**
     * Extents of 1024 regions (4 MiB at 4 KiB regions), 1024 of them active: writes anywhere in a
     * 4 GiB working set cost no log write (a new active extent costs a forced table write of
     * 4 KiB), and a crash of the primary resynchronises at most that much.
     */
    private static final int EXTENT_REGIONS = 1024;
    private static final int ACTIVE_EXTENTS = 1024;

    private final HaConfig config;
    private final PairNode node;
    private final Map<String, ReplicatedBackstore> replicated = new HashMap<>();
    private final List<Integer> ownGroups;
    private TcpDevice device;
    private TcpConnectionManager cm;
    private RegisteredMemory memory;
    private ReplicationLink link;

    private HaRuntime(HaConfig config, PairNode node, List<Integer> ownGroups) {
        this.config = config;
        this.node = node;
        this.ownGroups = ownGroups;
        for (ReplicatedBackstore s : node.stores()) {
            replicated.put(s.name(), s);
        }
    }

    /**
     * Wraps the replicated stores; the node serves nothing until {@link #start} met the peer.
     *
     * @param registry the live registry, whose targets' port groups follow the node's role
     */
    static HaRuntime open(JtargetConfig config, BackstoreSet stores, int writers, Supplier<TargetRegistry> registry)
            throws ConfigException {
        HaConfig ha = config.ha();
        Path dir = config.daemon().stateDir().resolve("ha");
        List<PairNode.StoreSpec> specs = new ArrayList<>();
        List<Integer> ownGroups = new ArrayList<>(new TreeSet<>(config.portals().stream()
                .map(PortalConfig::portalGroupTag).toList()));
        try {
            for (String name : ha.backstores()) {
                Backstore local = stores.get(name);
                BackstoreConfig bc = config.backstore(name);
                long bytes = local.info().blockCount() * local.info().blockSize();
                DirtyRegionLog log = DirtyRegionLog.open(dir, name, bytes, ha.regionSize(), EXTENT_REGIONS,
                        ACTIVE_EXTENTS);
                specs.add(new PairNode.StoreSpec(name, local, bc.type() == BackstoreConfig.Type.MEMORY, log));
            }
            HaRuntime[] self = new HaRuntime[1];
            Witness witness = !ha.hasWitness() ? null : new Witness(new WitnessClient(ha.witnessHost(), ha.witnessPort(),
                    ha.heartbeatInterval()), ha.pairId(), ha.node(), ha.heartbeatTimeout());
            PairNode node = new PairNode(ha.node(), ha.peerNode(), ha.preferredPrimary(), ha.pairId(),
                    new NodeStateFile(dir.resolve("node.state")), specs, ownGroups, writers, witness,
                    (role, peerRole, peerGroups) -> self[0].showRoles(registry.get(), role, peerRole, peerGroups));
            self[0] = new HaRuntime(ha, node, ownGroups);
            return self[0];
        } catch (IOException e) {
            throw new ConfigException(config.source().toString(), "ha", "cannot open the HA state in " + dir + ": "
                    + e.getMessage(), e);
        }
    }

    /** The store the SCSI core must use for {@code name}: the replicated one, or null when it is not replicated. */
    Backstore replicated(String name) {
        return replicated.get(name);
    }

    /** The access state this node's port groups start in: standby until the pair has decided. */
    /** The node's role, peer and generation in one line (docs/ha.md, status). */
    String describe() {
        return node.describe();
    }

        static AluaState initialState() {
        return AluaState.STANDBY;
    }

    private static int eventLoopCount(EventLoopGroup loops) {
        int n = 0;
        for (io.netty.util.concurrent.EventExecutor ignored : loops) {
            n++;
        }
        return n;
    }

    /** Starts the replication link on the daemon's loops (registering the pool's pinned arena once more, for the link). */
    void start(BufferPool pool, EventLoopGroup loops, String source) throws ConfigException {
        if (pool.pinnedArena() == null) {
            throw new ConfigException(source, "ha", "HA needs a pinned arena: set daemon.buffer-pool.pinned-size above 0");
        }
        device = new TcpDevice("ha-tcp0", TcpDevice.DEFAULT_ATTRIBUTES, PinnedMemoryPolicy.withinPinned(pool.pinnedArena()),
                loops, pool.allocator());
        cm = new TcpConnectionManager(device);
        try {
            ProtectionDomain pd = device.allocateProtectionDomain();
            memory = RegisteredMemory.register(pd, pool);
            LinkSettings settings = new LinkSettings(config.node(), config.peerNode(),
                    new InetSocketAddress(config.listenHost(), config.listenPort()),
                    new InetSocketAddress(config.peerHost(), config.peerPort()), config.heartbeatInterval(),
                    config.heartbeatTimeout(), LinkSettings.DEFAULT_SLOT_SIZE, LinkSettings.DEFAULT_SLOT_COUNT,
                    LinkSettings.lanesFor(eventLoopCount(loops)));
            link = new ReplicationLink(settings, device, cm, pd, memory, loops, node);
            node.start(link);
        } catch (RdmaException e) {
            throw new ConfigException(source, "ha.listen", "cannot listen on " + config.listenHost() + ":"
                    + config.listenPort() + ": " + e.getMessage(), e);
        }
    }

    PairNode node() {
        return node;
    }

    /** The node's role as ALUA states in every target (called by the node on its control thread). */
    private void showRoles(TargetRegistry registry, PairNode.Role role, PairNode.Role peerRole, List<Integer> peerGroups) {
        if (registry == null) {
            return;
        }
        AluaState own = role == PairNode.Role.PRIMARY ? AluaState.ACTIVE_OPTIMIZED : AluaState.STANDBY;
        AluaState peers = peerRole == PairNode.Role.PRIMARY ? AluaState.ACTIVE_OPTIMIZED
                : peerRole == PairNode.Role.SECONDARY ? AluaState.STANDBY : AluaState.UNAVAILABLE;
        for (TargetRegistry.Target t : registry.targets()) {
            for (int g : ownGroups) {
                t.core().changeAluaState(g, own);
            }
            for (int g : peerGroups) {
                if (!ownGroups.contains(g)) {
                    t.core().portGroups().ensureGroup(g);
                    t.core().changeAluaState(g, peers);
                }
            }
        }
        LOG.info("{}", node.describe());
    }

    @Override
    public void close() {
        node.close();
        if (cm != null) {
            cm.close();
            device.close();
        }
        if (memory != null) {
            try {
                memory.close();
            } catch (RdmaException e) {
                LOG.debug("HA link memory still registered at close: {}", e.getMessage());
            }
        }
    }
}
