package org.jtarget.daemon.metrics;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot.HistogramDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.Unit;
import org.jtarget.buffer.ArenaStats;
import org.jtarget.buffer.BufferPool;
import org.jtarget.fabric.iscsi.session.IscsiSession;
import org.jtarget.fabric.iscsi.session.LoginStatistics;
import org.jtarget.fabric.iscsi.session.SessionRegistry;
import org.jtarget.fabric.iscsi.session.SessionRegistry.PortalTraffic;
import org.jtarget.fabric.iscsi.session.SessionRegistry.SessionTraffic;
import org.jtarget.fabric.srp.SrpFabric;
import org.jtarget.fabric.srp.SrpFabric.ChannelTraffic;
import org.jtarget.ha.PairNode;
import org.jtarget.scsi.lun.LogicalUnit;
import org.jtarget.scsi.lun.LuStatistics;
import org.jtarget.scsi.lun.LuStatistics.Op;
import org.jtarget.scsi.lun.TargetRegistry;
import org.jtarget.scsi.lun.TransferCounters;

import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * The daemon's metrics, read at each scrape: per logical unit (labels {@code target}, {@code lun})
 * commands, bytes and latency of READs and WRITEs, failures by status and sense key, queue depth
 * in use; the pinned buffer arena's use; iSCSI logins answered and sessions open; per iSCSI
 * session and per portal the commands, bytes and failures they carried.
 */
public final class JtargetCollector implements MultiCollector {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(JtargetCollector.class);

    /** SPC-4 table 51's sense keys, as label values. */
    private static final String[] SENSE_KEYS = {"no_sense", "recovered_error", "not_ready", "medium_error",
        "hardware_error", "illegal_request", "unit_attention", "data_protect", "blank_check", "vendor_specific",
        "copy_aborted", "aborted_command", "reserved_c", "volume_overflow", "miscompare", "completed"};

    private final Supplier<TargetRegistry> registry;
    private final Supplier<BufferPool> pool;
    private final Supplier<SessionRegistry> iscsi;
    private final Supplier<PairNode.Snapshot> ha;
    private final Supplier<SrpFabric> srp;

    /**
     * @param iscsi the iSCSI sessions and logins (TCP and iSER share them)
     * @param ha    the HA node's state, or null (no {@code ha:} section)
     * @param srp   the SRP fabric (its value null while no portal is {@code transport: srp})
     */
    public JtargetCollector(Supplier<TargetRegistry> registry, Supplier<BufferPool> pool,
                            Supplier<SessionRegistry> iscsi, Supplier<PairNode.Snapshot> ha, Supplier<SrpFabric> srp) {
        this.registry = registry;
        this.pool = pool;
        this.iscsi = iscsi;
        this.ha = ha;
        this.srp = srp;
    }

    /** A scrape that fails is logged here (the HTTP server answers 500 without saying why). */
    @Override
    public MetricSnapshots collect() {
        try {
            return snapshots();
        } catch (RuntimeException e) {
            LOG.warn("metrics scrape failed", e);
            throw e;
        }
    }

    private MetricSnapshots snapshots() {
        CounterSnapshot.Builder commands = CounterSnapshot.builder().name("jtarget_lu_commands")
                .help("SCSI commands ended, by kind (read: READ(6/10/12/16), write: WRITE(6/10/12/16), other)");
        CounterSnapshot.Builder bytes = CounterSnapshot.builder().name("jtarget_lu_data_bytes").unit(Unit.BYTES)
                .help("Bytes moved by READs and WRITEs that ended GOOD");
        CounterSnapshot.Builder failures = CounterSnapshot.builder().name("jtarget_lu_failed_commands")
                .help("Commands ended with CHECK CONDITION (by sense key) or another status than GOOD");
        HistogramSnapshot.Builder latency = HistogramSnapshot.builder().name("jtarget_lu_latency_seconds").unit(Unit.SECONDS)
                .help("Time from a READ's or WRITE's arrival in the SCSI core to its GOOD status");
        GaugeSnapshot.Builder inFlight = GaugeSnapshot.builder().name("jtarget_lu_commands_in_flight")
                .help("Commands in the LU's task set now");
        TargetRegistry r = registry.get();
        if (r != null) {
            for (TargetRegistry.Target t : r.targets()) {
                for (LogicalUnit lu : t.core().logicalUnits()) {
                    Labels labels = Labels.of("target", t.name(), "lun", Integer.toString(lu.lun()));
                    LuStatistics s = lu.statistics();
                    for (Op op : Op.values()) {
                        Labels ofOp = labels.add("op", op.name().toLowerCase(Locale.ROOT));
                        commands.dataPoint(counter(ofOp, s.commands(op)));
                        if (op != Op.OTHER) {
                            bytes.dataPoint(counter(ofOp, s.bytes(op)));
                            latency.dataPoint(histogram(ofOp, s.latency(op)));
                        }
                    }
                    addFailures(failures, labels, s);
                    inFlight.dataPoint(gaugePoint(labels, lu.taskSet().size()));
                }
            }
        }
        MetricSnapshots.Builder all = MetricSnapshots.builder().metricSnapshot(commands.build())
                .metricSnapshot(bytes.build()).metricSnapshot(failures.build()).metricSnapshot(latency.build())
                .metricSnapshot(inFlight.build());
        addArena(all);
        addIscsi(all);
        addTraffic(all);
        addHa(all);
        return all.build();
    }

    private static void addFailures(CounterSnapshot.Builder failures, Labels labels, LuStatistics s) {
        for (int key = 0; key < SENSE_KEYS.length; key++) {
            long n = s.checkConditions(key);
            if (n > 0) {
                failures.dataPoint(counter(labels.add("status", "check_condition").add("sense_key", SENSE_KEYS[key]), n));
            }
        }
        for (int status : LuStatistics.countedStatuses()) {
            long n = s.statusCount(status);
            if (n > 0) {
                failures.dataPoint(counter(labels.add("status", statusName(status)).add("sense_key", ""), n));
            }
        }
    }

    private static String statusName(int status) {
        return switch (status) {
            case 0x08 -> "busy";
            case 0x18 -> "reservation_conflict";
            case 0x28 -> "task_set_full";
            default -> "status_0x" + Integer.toHexString(status);
        };
    }

    private void addArena(MetricSnapshots.Builder all) {
        BufferPool p = pool.get();
        ArenaStats a = p == null ? null : p.arenaStats();
        if (a == null) {
            return;
        }
        all.metricSnapshot(gauge("jtarget_pinned_arena_size_bytes", "Size of the pinned I/O buffer arena", a.sizeBytes()));
        all.metricSnapshot(gauge("jtarget_pinned_arena_in_use_bytes", "Arena bytes handed out now", a.inUseBytes()));
        all.metricSnapshot(gauge("jtarget_pinned_arena_high_water_bytes", "The most arena bytes ever handed out at once",
                a.highWaterBytes()));
        all.metricSnapshot(CounterSnapshot.builder().name("jtarget_pinned_arena_fallbacks")
                .help("Buffers the arena could not serve (they came from the pooled allocator)")
                .dataPoint(counter(Labels.EMPTY, a.fallbacks())).build());
    }

    private void addIscsi(MetricSnapshots.Builder all) {
        SessionRegistry sessions = iscsi.get();
        if (sessions == null) {
            return;
        }
        LoginStatistics logins = sessions.logins();
        CounterSnapshot.Builder answered = CounterSnapshot.builder().name("jtarget_iscsi_logins")
                .help("iSCSI logins answered: accepted by session type, refused by status (RFC 7143 11.13.5)")
                .dataPoint(counter(Labels.of("result", "accepted", "session_type", "normal", "status", "0x0000"),
                        logins.accepted(false)))
                .dataPoint(counter(Labels.of("result", "accepted", "session_type", "discovery", "status", "0x0000"),
                        logins.accepted(true)));
        logins.refused().forEach((status, n) -> answered.dataPoint(counter(Labels.of("result", "refused",
                "session_type", "", "status", String.format("0x%04x", status)), n)));
        all.metricSnapshot(answered.build());
        GaugeSnapshot.Builder open = GaugeSnapshot.builder().name("jtarget_iscsi_sessions")
                .help("iSCSI sessions in the full feature phase, by target (\"\": discovery sessions)");
        sessions.sessionsByTarget().forEach((target, n) -> open.dataPoint(gaugePoint(Labels.of("target", target), n)));
        all.metricSnapshot(open.build());
    }

    /** The iSCSI sessions', SRP channels' and every portal's counters. */
    private void addTraffic(MetricSnapshots.Builder all) {
        SessionRegistry sessions = iscsi.get();
        SrpFabric channels = srp == null ? null : srp.get();
        List<PortalTraffic> portals = new java.util.ArrayList<>();
        if (sessions != null) {
            portals.addAll(sessions.portalTraffic());
        }
        if (channels != null) {
            channels.portalTraffic().forEach((name, c) -> portals.add(new PortalTraffic(name, "srp", c)));
        }
        addTraffic(all, sessions == null ? List.of() : sessions.sessionTraffic(),
                channels == null ? List.of() : channels.channelTraffic(), portals);
    }

    /**
     * Per live iSCSI session (labels {@code target}, {@code initiator}, {@code isid}, {@code tsih}:
     * the id {@code GET /api/v1/sessions} shows, {@code portal}), per SRP channel ({@code target},
     * {@code initiator_port}, {@code portal}, {@code peer}) and per portal ({@code portal},
     * {@code transport}) the commands, data bytes and failures carried. An ended session or
     * channel is not listed, so its series leave the exposition with it.
     */
    static void addTraffic(MetricSnapshots.Builder all, List<SessionTraffic> sessions, List<ChannelTraffic> channels,
                           List<PortalTraffic> portals) {
        TrafficFamilies ofSessions = new TrafficFamilies("jtarget_iscsi_session", "the iSCSI session");
        for (SessionTraffic s : sessions) {
            ofSessions.add(Labels.of("target", s.target(), "initiator", s.initiator(),
                    "isid", String.format(Locale.ROOT, "0x%012x", s.isid() & 0xffff_ffff_ffffL),
                    "tsih", Integer.toString(s.tsih()), "portal", s.portal()), s.counters());
        }
        ofSessions.addTo(all);
        if (!channels.isEmpty()) {
            TrafficFamilies ofChannels = new TrafficFamilies("jtarget_srp_channel", "the SRP channel");
            for (ChannelTraffic c : channels) {
                ofChannels.add(Labels.of("target", c.target(), "initiator_port", c.initiatorPort(), "portal",
                        c.portal(), "peer", IscsiSession.hostPort(c.peer())), c.counters());
            }
            ofChannels.addTo(all);
        }
        TrafficFamilies ofPortals = new TrafficFamilies("jtarget_portal", "sessions through the portal");
        for (PortalTraffic p : portals) {
            ofPortals.add(Labels.of("portal", p.portal(), "transport", p.transport()), p.counters());
        }
        ofPortals.addTo(all);
    }

    /** The three counter families of a {@link TransferCounters} owner: commands, data bytes, failures. */
    private static final class TrafficFamilies {
        final CounterSnapshot.Builder commands;
        final CounterSnapshot.Builder bytes;
        final CounterSnapshot.Builder failed;

        TrafficFamilies(String prefix, String whose) {
            commands = CounterSnapshot.builder().name(prefix + "_commands")
                    .help("SCSI commands " + whose + " carried to their status, by kind (read, write, other)");
            bytes = CounterSnapshot.builder().name(prefix + "_data_bytes").unit(Unit.BYTES)
                    .help("Data bytes of the READs and WRITEs " + whose + " carried that ended GOOD");
            failed = CounterSnapshot.builder().name(prefix + "_failed_commands")
                    .help("Commands " + whose + " carried that ended with a status other than GOOD");
        }

        void add(Labels labels, TransferCounters c) {
            for (Op op : Op.values()) {
                Labels ofOp = labels.add("op", op.name().toLowerCase(Locale.ROOT));
                commands.dataPoint(counter(ofOp, c.commands(op)));
                if (op != Op.OTHER) {
                    bytes.dataPoint(counter(ofOp, c.bytes(op)));
                }
            }
            failed.dataPoint(counter(labels, c.failed()));
        }

        void addTo(MetricSnapshots.Builder all) {
            all.metricSnapshot(commands.build()).metricSnapshot(bytes.build()).metricSnapshot(failed.build());
        }
    }

    /**
     * The HA node: its role (one series per role, 1 for the current one, as a state set), the peer,
     * sync and degraded flags, generation, and per replicated store how far the peer is behind:
     * bytes it may lack (the dirty-region log: what a resync copies) and changes in flight.
     */
    private void addHa(MetricSnapshots.Builder all) {
        PairNode.Snapshot n = ha == null ? null : ha.get();
        if (n == null) {
            return;
        }
        Labels node = Labels.of("node", n.node(), "peer", n.peerNode());
        GaugeSnapshot.Builder role = GaugeSnapshot.builder().name("jtarget_ha_role")
                .help("This node's role in its HA pair: 1 for the current one");
        for (PairNode.Role r : PairNode.Role.values()) {
            role.dataPoint(gaugePoint(node.add("role", r.name().toLowerCase(Locale.ROOT)), flag(r == n.role())));
        }
        all.metricSnapshot(role.build());
        all.metricSnapshot(gauge("jtarget_ha_peer_connected", "1 while the replication link to the peer is up and it took its role",
                node, flag(n.peerRole() != null)));
        all.metricSnapshot(gauge("jtarget_ha_in_sync", "1 while the peer holds every change (a primary's view)", node,
                flag(n.inSync())));
        all.metricSnapshot(gauge("jtarget_ha_degraded", "1 while a primary serves without its peer", node, flag(n.degraded())));
        all.metricSnapshot(gauge("jtarget_ha_resyncing", "1 while a resync to the peer runs", node, flag(n.resyncing())));
        all.metricSnapshot(gauge("jtarget_ha_generation", "The data generation this node holds", node, n.generation()));
        GaugeSnapshot.Builder changed = GaugeSnapshot.builder().name("jtarget_ha_changed_bytes").unit(Unit.BYTES)
                .help("Bytes changed here that the peer may lack: what a resync copies (while it runs, what is left)");
        GaugeSnapshot.Builder inFlight = GaugeSnapshot.builder().name("jtarget_ha_changes_in_flight")
                .help("Changes sent to the peer and not answered yet");
        GaugeSnapshot.Builder whole = GaugeSnapshot.builder().name("jtarget_ha_copy_whole")
                .help("1 when this node's copy of the store is whole (it may serve it)");
        for (PairNode.StoreSnapshot s : n.stores()) {
            Labels store = node.add("backstore", s.name());
            changed.dataPoint(gaugePoint(store, s.changedBytes()));
            inFlight.dataPoint(gaugePoint(store, s.changesInFlight()));
            whole.dataPoint(gaugePoint(store, flag(s.whole())));
        }
        all.metricSnapshot(changed.build()).metricSnapshot(inFlight.build()).metricSnapshot(whole.build());
        if (n.lastResyncBytes() >= 0) {
            all.metricSnapshot(GaugeSnapshot.builder().name("jtarget_ha_last_resync_bytes").unit(Unit.BYTES)
                    .help("Bytes the last finished resync copied as data").dataPoint(gaugePoint(node, n.lastResyncBytes())).build());
        }
    }

    /** A yes/no state as a gauge value. */
    private static int flag(boolean on) {
        return on ? 1 : 0;
    }

    private static GaugeDataPointSnapshot gaugePoint(Labels labels, double value) {
        return GaugeDataPointSnapshot.builder().labels(labels).value(value).build();
    }

    private static GaugeSnapshot gauge(String name, String help, long value) {
        return gauge(name, help, Labels.EMPTY, value);
    }

    /** A gauge of one data point. */
    private static GaugeSnapshot gauge(String name, String help, Labels labels, double value) {
        return GaugeSnapshot.builder().name(name).help(help).dataPoint(gaugePoint(labels, value)).build();
    }

    private static CounterDataPointSnapshot counter(Labels labels, long value) {
        return CounterDataPointSnapshot.builder().labels(labels).value(value).build();
    }

    private static HistogramDataPointSnapshot histogram(Labels labels, LuStatistics.LatencySnapshot h) {
        long[] bounds = h.boundsNanos();
        double[] upper = new double[bounds.length + 1];
        long[] counts = new long[bounds.length + 1];
        long before = 0;
        for (int i = 0; i <= bounds.length; i++) {
            upper[i] = i < bounds.length ? bounds[i] / 1e9 : Double.POSITIVE_INFINITY;
            counts[i] = h.cumulativeCounts()[i] - before; // per bucket: the model's counts are not cumulative
            before = h.cumulativeCounts()[i];
        }
        return HistogramDataPointSnapshot.builder().labels(labels).sum(h.sumNanos() / 1e9)
                .classicHistogramBuckets(ClassicHistogramBuckets.of(upper, counts)).build();
    }
}
