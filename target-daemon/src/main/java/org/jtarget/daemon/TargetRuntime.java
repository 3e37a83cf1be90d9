package org.jtarget.daemon;

import io.netty.channel.EventLoopGroup;
import io.netty.buffer.ByteBufAllocator;
import org.jtarget.backstore.spi.Backstore;
import org.jtarget.buffer.BufferPool;
import org.jtarget.config.AclConfig;
import org.jtarget.config.BufferPoolSettings;
import org.jtarget.config.ChapConfig;
import org.jtarget.config.ConfigException;
import org.jtarget.config.JtargetConfig;
import org.jtarget.config.LunConfig;
import org.jtarget.config.PortalConfig;
import org.jtarget.config.TargetConfig;
import org.jtarget.fabric.srp.SrpTargetSettings;
import org.jtarget.fabric.iscsi.ChapAlgorithm;
import org.jtarget.fabric.iscsi.ChapCredentials;
import org.jtarget.fabric.iscsi.IscsiPortalDefinition;
import org.jtarget.fabric.iscsi.IscsiTargetSettings;
import org.jtarget.fabric.iscsi.login.LoginSettings;
import org.jtarget.fabric.iscsi.tcp.IscsiTcpFabric;
import org.jtarget.rdma.RdmaException;
import org.jtarget.io.LunIoExecutors;
import org.jtarget.fabric.iscsi.session.ConnectionSettings;
import org.jtarget.scsi.alua.AluaState;
import org.jtarget.scsi.alua.TargetPortGroup;
import org.jtarget.scsi.alua.TargetPortGroups;
import org.jtarget.scsi.lun.LogicalUnit;
import org.jtarget.scsi.lun.LogicalUnitDefinition;
import org.jtarget.scsi.lun.MediumWatch;
import org.jtarget.scsi.lun.NodeAcl;
import org.jtarget.scsi.lun.ScsiTargetCore;
import org.jtarget.scsi.lun.TargetRegistry;
import org.jtarget.units.ByteSize;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.BindException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The daemon as configured: stores → SCSI cores (one per target) → the iSCSI/TCP fabric on its
 * portals, and the RDMA store endpoints of the {@code rdma:} section. Wiring only; every layer does its own work. Start order is bottom-up so that a portal
 * only accepts connections once everything behind it exists; stop is top-down so that no command
 * can reach a closed store.
 */
public final class TargetRuntime implements DaemonRuntime {

    private static final Logger LOG = LoggerFactory.getLogger(TargetRuntime.class);

    /** Commands queued per LU beyond the running ones before the core answers TASK SET FULL. */
    private static final int IO_QUEUE_DEPTH_PER_LUN = 1024;

    /** How often file stores are checked for a deleted or replaced file (a stat each). */
    static final Duration MEDIUM_WATCH_PERIOD = Duration.ofSeconds(2);

    /** The config running now (a reload replaces it). */
    private JtargetConfig config;
    private BackstoreSet stores;
    private BufferPool pool;
    private LunIoExecutors ioExecutors;
    private EventLoopGroup bossGroup;
    private EventLoopGroup workerGroup;
    private IscsiTcpFabric fabric;
    /** The iSER portals' fabric, or null when no portal is {@code transport: iser}. */
    private IserFabricRuntime iser;
    /** The SRP portals' fabric, or null when no portal is {@code transport: srp}. */
    private SrpFabricRuntime srp;
    /** The {@code rdma:} store endpoints, or null when the config has none. */
    private RdmaEndpointRuntime rdma;
    /** This node of an HA pair, or null when the config has no {@code ha:} section. */
    private volatile HaRuntime ha; // volatile: a switchover request reads it from the signal thread
    /** The live targets, their LUs and ACLs (EXTENDED COPY may copy between any of their LUs). */
    private volatile TargetRegistry registry; // volatile: SRP logins look targets up from the connection manager's thread
    private MediumWatch mediumWatch;
    /** {@code /metrics}, or null when not configured. */
    private org.jtarget.daemon.metrics.MetricsEndpoint metrics;
    private final Map<Path, FileMediumProbe> probes = new HashMap<>();
    /** The management API's handler for {@code /api/} on {@code management.http}, or null (volatile: the listener's thread reads it). */
    private volatile com.sun.net.httpserver.HttpHandler apiOverHttp;

    public TargetRuntime(JtargetConfig config) {
        this.config = config;
    }

    @Override
    public synchronized void start() throws Exception {
        pool = openBufferPool();
        stores = BackstoreSet.open(config);
        ioExecutors = new LunIoExecutors(config.daemon().ioThreadsPerLun(), IO_QUEUE_DEPTH_PER_LUN);
        if (config.ha() != null) {
            ha = HaRuntime.open(config, stores, config.daemon().ioThreadsPerLun(), () -> registry);
        }
        registry = new TargetRegistry(ioExecutors, config.daemon().stateDir());
        mediumWatch = new MediumWatch();
        registry.addListener(new TargetRegistry.Listener() {
            @Override
            public void lunRemoved(TargetRegistry.Target target, LogicalUnit lu) {
                mediumWatch.unwatch(lu); // a file deleted after its LU left is no news
            }
        });
        for (TargetConfig target : config.targets()) {
            watchMedia(registry.addTarget(targetSpec(target)).core());
        }
        mediumWatch.start(MEDIUM_WATCH_PERIOD);
        bossGroup = IscsiTcpFabric.newEventLoopGroup(1);
        workerGroup = IscsiTcpFabric.newEventLoopGroup(config.daemon().eventLoopThreads());
        fabric = new IscsiTcpFabric(pool, bossGroup, workerGroup, registry, LoginSettings.defaults(),
                ConnectionSettings.defaults());
        for (int i = 0; i < config.portals().size(); i++) {
            bind(config.source().toString(), i, config.portals().get(i));
        }
        if (config.rdma() != null) {
            rdma = RdmaEndpointRuntime.start(config, stores, pool, workerGroup, ioExecutors);
        }
        if (ha != null) {
            ha.start(pool, workerGroup, config.source().toString());
        }
        startMetrics();
        LOG.info("jtargetd ready: {} target(s), {} portal(s)", registry.targets().size(), config.portals().size());
    }

    /**
     * The TCP management listener: {@code /metrics} if asked for, the API if a token file is
     * configured (its handler is set by the launcher once the API exists, see
     * {@link #serveApiOverHttp}); not opened when it would serve neither.
     */
    private void startMetrics() throws ConfigException {
        org.jtarget.config.ManagementConfig m = config.management();
        if (m == null || !m.hasHttp()) {
            return;
        }
        boolean api = m.apiToken() != null;
        if (!m.metrics() && !api) {
            LOG.info("management.http {}:{}: not opened, it has nothing to serve (metrics: false, no token-file)",
                    m.httpHost(), m.httpPort());
            return;
        }
        if (!api) {
            LOG.info("management.http: only /metrics; the management API is served on TCP only with "
                    + "management.token-file");
        }
        metrics = org.jtarget.daemon.metrics.MetricsEndpoint.start(m, config.source().toString(),
                m.metrics() ? new org.jtarget.daemon.metrics.JtargetCollector(() -> registry, () -> pool,
                        () -> fabric == null ? null : fabric.sessionRegistry(),
                        ha == null ? null : () -> {
                            HaRuntime node = ha;
                            return node == null ? null : node.node().snapshot();
                        }, () -> srp == null ? null : srp.fabric()) : null,
                api ? this::handleApiOverHttp : null);
    }

    /** {@code /api/} on the TCP listener: the API's handler once set, else 503 (starting or stopping). */
    private void handleApiOverHttp(com.sun.net.httpserver.HttpExchange exchange) throws IOException {
        com.sun.net.httpserver.HttpHandler api = apiOverHttp;
        if (api != null) {
            api.handle(exchange);
            return;
        }
        byte[] body = "{\"code\":\"not-running\",\"message\":\"the management API is not running\"}"
                .getBytes(java.nio.charset.StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(503, body.length);
        try (var out = exchange.getResponseBody()) {
            out.write(body);
        }
    }

    @Override
    public void serveApiOverHttp(com.sun.net.httpserver.HttpHandler api) {
        apiOverHttp = api;
    }

    @Override
    public synchronized String summary() {
        return "serving " + registry.targets().size() + " target(s) on " + config.portals().size() + " portal(s)"
                + (ha == null ? "" : "; " + ha.describe());
    }

    @Override
    public CompletableFuture<Void> probe() {
        List<CompletableFuture<Void>> answers = new ArrayList<>();
        for (EventLoopGroup group : new EventLoopGroup[] {workerGroup, bossGroup}) {
            if (group != null) {
                for (io.netty.util.concurrent.EventExecutor loop : group) {
                    CompletableFuture<Void> answered = new CompletableFuture<>();
                    try {
                        loop.execute(() -> answered.complete(null));
                    } catch (java.util.concurrent.RejectedExecutionException stopping) {
                        answered.complete(null); // a loop that is shutting down is no hung loop
                    }
                    answers.add(answered);
                }
            }
        }
        return CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new));
    }

    private TargetRegistry.TargetSpec targetSpec(TargetConfig target) {
        List<LogicalUnitDefinition> luns = new ArrayList<>();
        for (LunConfig lun : target.luns()) {
            luns.add(lunDefinition(lun));
        }
        return new TargetRegistry.TargetSpec(target.iqn(), luns, nodeAcl(target),
                // an HA node's states are its role in the pair: no initiator may change them (implicit ALUA only)
                new TargetPortGroups(portGroups(target), ha == null), target.portalNames(), fabricSettings(target));
    }

    /** The target port groups of {@code target}'s portals, in the states the running config gives them. */
    private List<TargetPortGroup> portGroups(TargetConfig target) {
        Map<Integer, TargetPortGroup> groups = new TreeMap<>();
        for (String name : target.portalNames()) {
            PortalConfig p = config.portal(name);
            // SPC-4 5.15: each iSCSI target portal group is one target port group; an HA node's
            // groups follow its role, standby until the pair has decided
            AluaState start = ha != null ? HaRuntime.initialState() : AluaStates.of(p.aluaState());
            groups.putIfAbsent(p.portalGroupTag(), TargetPortGroup.of(p.portalGroupTag(), start, p.aluaPreferred()));
        }
        return new ArrayList<>(groups.values());
    }

    /** iSCSI's alias and CHAP for every target; the SRP target port identifier of one with {@code srp:}. */
    private static Map<Class<?>, Object> fabricSettings(TargetConfig target) {
        Map<Class<?>, Object> settings = new HashMap<>();
        settings.put(IscsiTargetSettings.class, new IscsiTargetSettings(target.alias(), chap(target.chap())));
        if (target.srp() != null) {
            settings.put(SrpTargetSettings.class, new SrpTargetSettings(target.srp().targetPortName()));
        }
        return settings;
    }

    private LogicalUnitDefinition lunDefinition(LunConfig lun) {
        Backstore replicated = ha == null ? null : ha.replicated(lun.backstore());
        Backstore store = replicated != null ? replicated : stores.get(lun.backstore());
        return new LogicalUnitDefinition(lun.lun(), store, lun.readOnly(), lun.removable(),
                config.daemon().sanitizeRate(), ioAllocator(store), lun.queueDepth());
    }

    /**
     * Applies a new config to the running daemon (SIGHUP): see {@link ConfigChanges} for what
     * changes live. Refused, with one line naming the key and nothing changed, if the new config
     * changes what needs a restart, a portal it adds cannot listen (the portals it just bound are
     * closed again) or a backstore it adds cannot be opened. New portals are bound before removed
     * ones stop, so a failure leaves the old ones listening; a removed portal stops accepting
     * connections, those already made through it keep their sessions (see
     * {@link IscsiTcpFabric#unbind}). A kept target's alias, CHAP and portals apply to the next
     * login; its sessions are untouched. Stores a removed LU used are closed once its last command
     * has ended. A LUN added here gets its {@code queue-depth} at the next start (sessions hold
     * their depths from login); until then the core's I/O queue bound (TASK SET FULL) limits it.
     */
    @Override
    public synchronized void reload(JtargetConfig next) throws Exception {
        if (registry == null) {
            throw new IllegalStateException("not started");
        }
        ConfigChanges changes = ConfigChanges.between(config, next);
        PortalSwitch portals = switchPortals(changes, next.source().toString()); // all or nothing
        try {
            stores.openMore(next, changes.addedBackstores()); // all or nothing: a failure changes nothing
            growStores(next, changes); // last of what may fail: a grown store stays grown
        } catch (ConfigException | RuntimeException e) {
            portals.undo();
            throw e;
        }
        JtargetConfig before = config;
        config = next;
        List<CompletableFuture<?>> drains = new ArrayList<>();
        for (String name : changes.removedTargets()) {
            drains.add(registry.removeTarget(name));
        }
        changes.removedLuns().forEach((target, luns) -> luns.forEach(l -> drains.add(registry.removeLun(target, l))));
        for (TargetConfig t : changes.aclChanged()) {
            registry.changeAcl(t.iqn(), nodeAcl(t));
        }
        for (Map.Entry<String, List<LunConfig>> e : changes.addedLuns().entrySet()) {
            for (LunConfig lun : e.getValue()) {
                watchMedium(registry.addLun(e.getKey(), lunDefinition(lun)));
            }
        }
        for (TargetConfig t : changes.settingsChanged()) {
            TargetRegistry.Target live = registry.changeSettings(t.iqn(), t.portalNames(), fabricSettings(t));
            if (ha == null) { // an HA node's groups are its own and its peer's, kept (ConfigChanges refuses new ones)
                live.core().portGroups().retainExactly(portGroups(t));
            }
        }
        changes.aluaChanged().forEach(p -> changeAlua(p.portal()));
        for (TargetConfig t : changes.addedTargets()) {
            watchMedia(registry.addTarget(targetSpec(t)).core());
        }
        closeWhenDrained(drains, changes.removedBackstores());
        LOG.info("config reloaded from {}: {}", next.source(), changes.summary());
        if (before.targets().size() != next.targets().size()) {
            LOG.info("jtargetd now serves {} target(s)", registry.targets().size());
        }
    }

    /**
     * Grows the stores whose {@code size} grew, then lets their LUs report it (CAPACITY DATA HAS
     * CHANGED to each nexus). A store that fails to grow refuses the reload naming its size key; the
     * stores this reload opened are closed again.
     */
    private void growStores(JtargetConfig next, ConfigChanges changes) throws ConfigException {
        for (Map.Entry<String, Long> e : changes.resizedBackstores().entrySet()) {
            Backstore store = stores.get(e.getKey());
            try {
                store.grow(e.getValue() / store.info().blockSize());
            } catch (IOException | RuntimeException failed) {
                stores.close(changes.addedBackstores().stream().map(stores::get).toList());
                throw new ConfigException(next.source().toString(), "backstores[" + org.jtarget.config.TargetEdits.backstoreIndex(next, e.getKey())
                        + "].size", "cannot grow " + e.getKey() + " live: " + failed.getMessage(), failed);
            }
            int lus = registry.capacityChanged(store);
            LOG.info("backstore {} grown to {} ({} LU(s) told CAPACITY DATA HAS CHANGED)", e.getKey(),
                    ByteSize.format(e.getValue()), lus);
        }
    }

    /**
     * A target port group's new configured state and PREF, on every live target that has the
     * group: a state change is an implicit one (STATUS CODE 02h) and every I_T nexus of those
     * targets gets ASYMMETRIC ACCESS STATE CHANGED (SPC-4 5.15.2.6, via the core); PREF is a hint,
     * not a state, and is set silently.
     */
    private void changeAlua(PortalConfig group) {
        AluaState state = AluaStates.of(group.aluaState());
        for (TargetRegistry.Target t : registry.targets()) {
            if (t.core().changeAluaState(group.portalGroupTag(), state)) {
                t.core().portGroups().changePreferred(group.portalGroupTag(), group.aluaPreferred());
            }
        }
        LOG.info("target port group {}: {}{}", group.portalGroupTag(), group.aluaState().configName(),
                group.aluaPreferred() ? ", preferred" : "");
    }

    /** What {@link #switchPortals} did, to undo when a later step of the reload fails. */
    private record PortalSwitch(List<PortalConfig> bound, List<PortalConfig> stopped, TargetRuntime runtime) {
        void undo() {
            bound.forEach(runtime::unbind);
            runtime.rebind(stopped);
        }
    }

    /**
     * Binds the portals the reload adds, then stops the ones it removes. A portal that takes over
     * the address of a removed one (a kept name whose tag or transport changed, say) can only bind
     * once that one has stopped; every other new portal binds first, so that a failure to listen
     * leaves the running portals as they were. On a failure what was bound is closed, what was
     * stopped listens again, and the error names {@code portals[i]}.
     */
    private PortalSwitch switchPortals(ConfigChanges changes, String source) throws ConfigException {
        Set<String> freed = new java.util.HashSet<>();
        changes.removedPortals().forEach(p -> freed.add(hostPort(p.host(), p.port())));
        PortalSwitch done = new PortalSwitch(new ArrayList<>(), new ArrayList<>(), this);
        try {
            bindAll(source, changes.addedPortals(), p -> !freed.contains(hostPort(p.host(), p.port())), done);
            for (PortalConfig p : changes.removedPortals()) {
                unbind(p);
                done.stopped().add(p);
            }
            bindAll(source, changes.addedPortals(), p -> freed.contains(hostPort(p.host(), p.port())), done);
        } catch (ConfigException e) {
            done.undo();
            throw e;
        }
        return done;
    }

    private void bindAll(String source, List<ConfigChanges.IndexedPortal> portals,
                         java.util.function.Predicate<PortalConfig> now, PortalSwitch done) throws ConfigException {
        for (ConfigChanges.IndexedPortal p : portals) {
            if (now.test(p.portal())) {
                bind(source, p.index(), p.portal());
                done.bound().add(p.portal());
            }
        }
    }

    /** Listens again on portals a failed reload had stopped (their addresses were ours a moment ago). */
    private void rebind(List<PortalConfig> stopped) {
        for (PortalConfig p : stopped) {
            try {
                bind(config.source().toString(), config.portals().indexOf(p), p);
            } catch (ConfigException e) {
                LOG.error("portal {} could not listen again after a refused reload: {}", p.name(), e.getMessage());
            }
        }
    }

    /** Stops listening on a portal; its connections stay (see {@link IscsiTcpFabric#unbind}). */
    private void unbind(PortalConfig portal) {
        switch (portal.transport()) {
            case TCP -> fabric.unbind(portalDefinition(portal));
            case ISER -> iser.unbind(portalDefinition(portal));
            case SRP -> srp.unbind(portal);
        }
    }

    @Override
    public synchronized RuntimeState state() {
        if (registry == null) {
            return null;
        }
        return new RuntimeState(config, registry, stores.all(), fabric == null ? null : fabric.sessionRegistry(),
                ha == null ? null : ha.describe(), ha == null ? null : ha.node().resyncProgress());
    }

    @Override
    public synchronized void edit(org.jtarget.config.TargetEdits.Edit edit) throws Exception {
        if (registry == null) {
            throw new IllegalStateException("not started");
        }
        reload(edit.apply(config));
    }

    /** The live targets (tests). */
    synchronized TargetRegistry registry() {
        return registry;
    }

    /** The open stores (tests). */
    synchronized BackstoreSet stores() {
        return stores;
    }

    /**
     * Closes the removed stores once every LU removed by the same reload has no command left;
     * off the event loops (the last command may end on one, and a close may fsync).
     */
    private void closeWhenDrained(List<CompletableFuture<?>> drains, Set<String> removedStores) {
        if (removedStores.isEmpty()) {
            return;
        }
        BackstoreSet set = stores;
        List<Backstore> removed = removedStores.stream().map(set::get).toList();
        CompletableFuture.allOf(drains.toArray(CompletableFuture[]::new))
                .thenRunAsync(() -> {
                    set.close(removed);
                    LOG.info("backstore(s) {} closed: their LUs have no command left", removedStores);
                });
    }

    /** The config's ACL entries as the core's node ACL (LUN masking and read-only mappings). */
    private static NodeAcl nodeAcl(TargetConfig target) {
        List<NodeAcl.Entry> entries = new ArrayList<>();
        for (AclConfig a : target.acl()) {
            entries.add(new NodeAcl.Entry(a.initiator(), a.luns() == null ? null : new TreeSet<>(a.luns()),
                    new TreeSet<>(a.readOnlyLuns())));
        }
        return new NodeAcl(entries);
    }

    /**
     * The buffer pool, with the pinned arena {@code daemon.buffer-pool} asks for. A refused mlock
     * is a warning (logged by the arena) unless {@code pin: required}; then it is a config error.
     */
    private BufferPool openBufferPool() throws ConfigException {
        BufferPoolSettings s = config.daemon().bufferPool();
        BufferPool p;
        try {
            p = BufferPool.create(config.daemon().eventLoopThreads(), s.pinnedSize(),
                    s.pin() != BufferPoolSettings.Pin.OFF);
        } catch (IOException e) {
            throw new ConfigException(config.source().toString(), "daemon.buffer-pool.pinned-size", e.getMessage(), e);
        }
        if (s.pin() == BufferPoolSettings.Pin.REQUIRED && p.pinnedArena() != null && !p.pinnedArena().isPinned()) {
            p.close();
            throw new ConfigException(config.source().toString(), "daemon.buffer-pool.pin", "required, but mlock of "
                    + ByteSize.format(s.pinnedSize()) + " was refused (errno "
                    + p.pinnedArena().lockErrno() + "): grant CAP_IPC_LOCK or raise LimitMEMLOCK= / ulimit -l");
        }
        LOG.info("{}", p.describe());
        return p;
    }

    /**
     * Where an LU's READ buffers come from: the pinned arena for stores doing O_DIRECT (page-aligned
     * buffers are read into in place, no bounce copy), the command's pooled allocator otherwise
     * (page-cache and memory stores gain nothing from alignment; the arena stays for those that do).
     */
    private ByteBufAllocator ioAllocator(Backstore store) {
        return store.directIo() && pool.pinnedArena() != null ? pool.ioAllocator() : null;
    }

    /**
     * File-backed LUs, also through partitions and encryption, go offline when their file is
     * deleted or replaced (one probe per file, shared by the partitions of one file).
     */
    private void watchMedia(ScsiTargetCore core) throws IOException {
        for (LogicalUnit lu : core.logicalUnits()) {
            watchMedium(lu);
        }
    }

    private void watchMedium(LogicalUnit lu) throws IOException {
        Path file = lu.store().backingFile();
        if (file != null) {
            FileMediumProbe probe = probes.get(file);
            if (probe == null) {
                probe = FileMediumProbe.of(file);
                probes.put(file, probe);
            }
            mediumWatch.watch(lu, probe);
        }
    }

    private static IscsiPortalDefinition portalDefinition(PortalConfig p) {
        return new IscsiPortalDefinition(p.name(), p.host(), p.port(), p.portalGroupTag(),
                p.transport() == PortalConfig.Transport.ISER);
    }

    private static ChapCredentials chap(ChapConfig c) {
        if (c == null) {
            return null;
        }
        // The config checked the names against ChapConfig.ALGORITHMS; ChapAlgorithmNamesTest keeps both in step.
        List<ChapAlgorithm> algorithms = c.algorithms().stream().map(ChapAlgorithm::ofConfigName).toList();
        return new ChapCredentials(c.user(), c.secret(), c.mutualUser(), c.mutualSecret(), algorithms);
    }

    /** A portal that cannot bind is an operator problem: a one-line error naming its key. */
    private void bind(String source, int index, PortalConfig portal) throws ConfigException {
        String key = "portals[" + index + "].listen";
        String address = hostPort(portal.host(), portal.port());
        if (portal.transport() == PortalConfig.Transport.SRP) {
            bindSrp(source, index, portal, key, address);
            return;
        }
        if (portal.transport() == PortalConfig.Transport.ISER) {
            bindIser(source, index, portal, key, address);
            return;
        }
        try {
            fabric.bind(portalDefinition(portal));
        } catch (BindException e) {
            throw new ConfigException(source, key, address + ": cannot listen: " + e.getMessage(), e);
        } catch (IOException e) {
            throw new ConfigException(source, key, address + ": " + e, e);
        }
    }

    private void bindIser(String source, int index, PortalConfig portal, String key, String address) throws ConfigException {
        try {
            if (iser == null) {
                iser = IserFabricRuntime.start(pool, workerGroup, fabric);
            }
        } catch (IllegalStateException | RdmaException e) {
            throw new ConfigException(source, "portals[" + index + "].transport", e.getMessage(), e);
        }
        try {
            iser.bind(portalDefinition(portal));
        } catch (RdmaException e) {
            throw new ConfigException(source, key, address + ": cannot listen for iSER: "
                    + e.getMessage(), e);
        }
    }

    private void bindSrp(String source, int index, PortalConfig portal, String key, String address) throws ConfigException {
        try {
            if (srp == null) {
                srp = SrpFabricRuntime.start(pool, workerGroup, () -> registry); // no lock: stop() holds it while SRP drains
                registry.addListener(srp.channelEnder());
            }
        } catch (IllegalStateException | RdmaException e) {
            throw new ConfigException(source, "portals[" + index + "].transport", e.getMessage(), e);
        }
        try {
            srp.bind(portal);
        } catch (RdmaException e) {
            throw new ConfigException(source, key, address + ": cannot listen for SRP: "
                    + e.getMessage(), e);
        }
    }

    /** {@code host:port} as the config writes it: an IPv6 literal in brackets. */
    static String hostPort(String host, int port) {
        return host.contains(":") ? "[" + host + "]:" + port : host + ":" + port;
    }

    @Override
    public void switchover() {
        HaRuntime node = ha;
        if (node == null) {
            LOG.warn("switchover requested, but this daemon has no ha: section");
            return;
        }
        node.node().switchover();
    }

    @Override
    public synchronized void stop(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        registry = null; // a reload from now on finds nothing to change
        if (metrics != null) {
            metrics.close();
            metrics = null;
        }
        if (mediumWatch != null) {
            mediumWatch.close();
            mediumWatch = null;
        }
        if (rdma != null) {
            rdma.close();
            rdma = null;
        }
        if (fabric != null) {
            fabric.close(remaining(deadline)); // asks every session to log out, iSER ones too
            fabric = null;
        }
        if (iser != null) {
            iser.close(remaining(deadline));
            iser = null;
        }
        if (srp != null) {
            srp.close(remaining(deadline)); // SRP_T_LOGOUT to every channel
            srp = null;
        }
        if (ioExecutors != null) {
            if (!ioExecutors.shutdown(remaining(deadline))) {
                LOG.warn("store I/O still running at shutdown; closing the stores anyway");
            }
            ioExecutors = null;
        }
        if (ha != null) {
            ha.close(); // GOODBYE to the peer while the loops still run
            ha = null;
        }
        if (stores != null) {
            stores.close();
            stores = null;
        }
        shutdownGroups(deadline);
        if (pool != null) {
            LOG.info("{}", pool.describe());
            pool.close();
            pool = null;
        }
    }

    private void shutdownGroups(long deadline) {
        for (EventLoopGroup group : new EventLoopGroup[] {workerGroup, bossGroup}) {
            if (group != null) {
                group.shutdownGracefully(0, Math.max(1, remaining(deadline).toMillis()), TimeUnit.MILLISECONDS)
                        .awaitUninterruptibly(remaining(deadline).toMillis());
            }
        }
        workerGroup = null;
        bossGroup = null;
    }

    private static Duration remaining(long deadline) {
        return Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
    }
}
