package org.jtarget.daemon.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.jtarget.backstore.spi.Backstore;
import org.jtarget.backstore.spi.BackstoreInfo;
import org.jtarget.config.AclConfig;
import org.jtarget.config.BackstoreConfig;
import org.jtarget.config.JtargetConfig;
import org.jtarget.config.PortalConfig;
import org.jtarget.config.TargetConfig;
import org.jtarget.daemon.RuntimeState;
import org.jtarget.fabric.iscsi.login.NegotiatedParameters;
import org.jtarget.fabric.iscsi.session.IscsiSession;
import org.jtarget.ha.PairNode;
import org.jtarget.scsi.alua.TargetPortGroup;
import org.jtarget.scsi.lun.LogicalUnit;
import org.jtarget.scsi.lun.LuStatistics.Op;
import org.jtarget.scsi.lun.TargetRegistry;
import org.jtarget.scsi.lun.TransferCounters;
import org.jtarget.scsi.lun.WorkProgress;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The JSON shapes of the API's resources, read from the running daemon's state (plain maps and
 * lists, in a stable key order, that Jackson writes as they are). The config's names are used for
 * config things (iqn, backstore, portal), so that what the API shows can be found in the YAML.
 */
final class ResourceViews {

    /** Config fields never served: CHAP secrets and the API token. */
    private static final List<String> SECRET_FIELDS = List.of("secret", "mutualSecret", "apiToken");

    private final ObjectMapper json;

    ResourceViews(ObjectMapper json) {
        this.json = json;
    }

    List<Map<String, Object>> portals(RuntimeState s) {
        List<Map<String, Object>> all = new ArrayList<>();
        for (PortalConfig p : s.config().portals()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", p.name());
            m.put("transport", p.transport().configName());
            m.put("listen", p.host().contains(":") ? "[" + p.host() + "]:" + p.port() : p.host() + ":" + p.port());
            m.put("portalGroupTag", p.portalGroupTag());
            m.put("aluaState", p.aluaState() == null ? null : p.aluaState().configName());
            m.put("aluaPreferred", p.aluaPreferred());
            all.add(m);
        }
        return all;
    }

    List<Map<String, Object>> backstores(RuntimeState s) {
        List<Map<String, Object>> all = new ArrayList<>();
        for (BackstoreConfig b : s.config().backstores()) {
            Backstore open = s.stores().get(b.name());
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", b.name());
            m.put("type", b.type().configName());
            m.put("path", b.path() == null ? null : b.path().toString());
            m.put("of", b.of());
            BackstoreInfo info = open == null ? null : open.info();
            m.put("sizeBytes", info == null ? b.sizeBytes() : info.sizeBytes());
            m.put("blockSize", info == null ? b.blockSize() : info.blockSize());
            m.put("thin", b.thin());
            m.put("allocatedBytes", b.thin() ? allocatedBytes(open) : null);
            m.put("readOnly", info != null && info.readOnly());
            m.put("open", open != null);
            all.add(m);
        }
        return all;
    }

    /** What a thin store holds now, or null when it is closed or cannot say (its error is the store's to report). */
    private static Long allocatedBytes(Backstore store) {
        if (store == null) {
            return null;
        }
        try {
            long bytes = store.allocatedBytes();
            return bytes < 0 ? null : bytes;
        } catch (java.io.IOException e) {
            return null;
        }
    }

    List<Map<String, Object>> targets(RuntimeState s) {
        Map<String, Integer> sessions = s.sessions() == null ? Map.of() : s.sessions().sessionsByTarget();
        List<Map<String, Object>> all = new ArrayList<>();
        for (TargetConfig t : s.config().targets()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("iqn", t.iqn());
            m.put("alias", t.alias());
            m.put("portals", t.portalNames());
            m.put("luns", t.luns().size());
            m.put("acl", t.acl().stream().map(AclConfig::initiator).toList());
            m.put("chap", t.chap() != null);
            m.put("sessions", sessions.getOrDefault(t.iqn(), 0));
            all.add(m);
        }
        return all;
    }

    List<Map<String, Object>> luns(RuntimeState s, String iqn) throws ApiException {
        TargetConfig config = targetConfig(s, iqn);
        TargetRegistry.Target live = s.targets().target(config.iqn()); // the URL's spelling may differ in case
        List<Map<String, Object>> all = new ArrayList<>();
        for (var lun : config.luns()) {
            LogicalUnit lu = live == null ? null : java.util.Arrays.stream(live.core().logicalUnits())
                    .filter(l -> l.lun() == lun.lun()).findFirst().orElse(null);
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("lun", lun.lun());
            m.put("backstore", lun.backstore());
            m.put("readOnly", lu == null ? lun.readOnly() : lu.readOnly());
            m.put("removable", lun.removable());
            m.put("sizeBytes", lu == null ? null : lu.blockCount() * lu.blockSize());
            m.put("blockSize", lu == null ? null : lu.blockSize());
            m.put("medium", lu == null ? "absent" : medium(lu));
            m.put("commandsInFlight", lu == null ? 0 : lu.taskSet().size());
            all.add(m);
        }
        return all;
    }

    /**
     * The long operations running now (SANITIZE, EXTENDED COPY on an LU; an HA resync of a
     * backstore), each with how far it has come: bytes done of the total, percent, average rate
     * and the time left at that rate.
     */
    List<Map<String, Object>> tasks(RuntimeState s) {
        long now = System.nanoTime();
        List<Map<String, Object>> all = new ArrayList<>();
        for (TargetRegistry.Target t : s.targets().targets()) {
            for (LogicalUnit lu : t.core().logicalUnits()) {
                for (WorkProgress w : lu.work()) {
                    all.add(task(w.snapshot(now), t.name(), lu.lun(), null));
                }
            }
        }
        PairNode.ResyncProgress r = s.resync();
        if (r != null) {
            all.add(task(WorkProgress.snapshot("ha-resync", r.doneBytes(), r.totalBytes(), r.startedNanos(), now),
                    null, null, r.backstore()));
        }
        return all;
    }

    private static Map<String, Object> task(WorkProgress.Snapshot w, String target, Integer lun, String backstore) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("kind", w.kind());
        m.put("target", target);
        m.put("lun", lun);
        m.put("backstore", backstore);
        m.put("doneBytes", w.doneBytes());
        m.put("totalBytes", w.totalBytes());
        m.put("percent", w.percent());
        m.put("bytesPerSecond", w.bytesPerSecond());
        m.put("secondsLeft", w.secondsLeft() < 0 ? null : w.secondsLeft());
        m.put("runningSeconds", Math.round(w.runningSeconds() * 10) / 10.0);
        return m;
    }

    private static String medium(LogicalUnit lu) {
        if (lu.medium().offline()) {
            return "offline";
        }
        if (lu.medium().ejected()) {
            return "ejected";
        }
        return lu.medium().sanitizing() ? "sanitizing" : "ready";
    }

    List<AclConfig> acl(RuntimeState s, String iqn) throws ApiException {
        return targetConfig(s, iqn).acl();
    }

    private static TargetConfig targetConfig(RuntimeState s, String iqn) throws ApiException {
        for (TargetConfig t : s.config().targets()) {
            if (t.iqn().equalsIgnoreCase(iqn)) {
                return t;
            }
        }
        throw ApiException.notFound("no target " + iqn);
    }

    /** Per target, its port groups and their asymmetric access states now (SPC-4 5.15). */
    List<Map<String, Object>> alua(RuntimeState s) {
        List<Map<String, Object>> all = new ArrayList<>();
        for (TargetRegistry.Target t : s.targets().targets()) {
            List<Map<String, Object>> groups = new ArrayList<>();
            for (TargetPortGroup g : t.core().portGroups().groups()) {
                groups.add(group(g));
            }
            Map<String, Object> target = new LinkedHashMap<>();
            target.put("iqn", t.name());
            target.put("explicitChanges", t.core().portGroups().explicitChanges());
            target.put("groups", groups);
            all.add(target);
        }
        return all;
    }

    /** Per target that has port group {@code id}: its iqn and the group, as {@link #alua} shows them. */
    List<Map<String, Object>> aluaGroup(RuntimeState s, int id) {
        List<Map<String, Object>> all = new ArrayList<>();
        for (TargetRegistry.Target t : s.targets().targets()) {
            TargetPortGroup g = t.core().portGroups().group(id);
            if (g != null) {
                Map<String, Object> m = group(g);
                m.remove("id");
                Map<String, Object> target = new LinkedHashMap<>();
                target.put("iqn", t.name());
                target.putAll(m);
                all.add(target);
            }
        }
        return all;
    }

    private static Map<String, Object> group(TargetPortGroup g) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", g.id());
        m.put("state", g.state().name().toLowerCase(Locale.ROOT).replace('_', '-'));
        m.put("preferred", g.preferred());
        return m;
    }

    Map<String, Object> ha(RuntimeState s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("configured", s.ha() != null);
        m.put("node", s.config().ha() == null ? null : s.config().ha().node());
        m.put("peer", s.config().ha() == null ? null : s.config().ha().peerNode());
        m.put("state", s.ha());
        return m;
    }

    /** The running config as the daemon read it (paths resolved, defaults filled in), secrets left out. */
    JsonNode config(JtargetConfig config) {
        JsonNode tree = json.valueToTree(config);
        redact(tree);
        return tree;
    }

    private static void redact(JsonNode node) {
        if (node instanceof ObjectNode object) {
            for (String field : SECRET_FIELDS) {
                if (object.hasNonNull(field)) {
                    object.put(field, "(hidden)");
                }
            }
        }
        node.forEach(ResourceViews::redact);
    }

    /** Every live session with its connections: those are read on each session's loop, without blocking it. */
    CompletableFuture<List<Map<String, Object>>> sessions(RuntimeState s) {
        if (s.sessions() == null) {
            return CompletableFuture.completedFuture(List.of());
        }
        List<CompletableFuture<Map<String, Object>>> each = new ArrayList<>();
        for (IscsiSession session : s.sessions().sessions()) {
            each.add(session.connectionInfo().thenApply(connections -> session(session, connections)));
        }
        return CompletableFuture.allOf(each.toArray(CompletableFuture[]::new))
                .thenApply(done -> each.stream().map(CompletableFuture::join).toList());
    }

    private static Map<String, Object> session(IscsiSession session, List<IscsiSession.ConnectionInfo> connections) {
        NegotiatedParameters p = session.parameters();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", session.tsih());
        m.put("tsih", session.tsih());
        m.put("isid", String.format(Locale.ROOT, "0x%012x", session.isid() & 0xffff_ffff_ffffL));
        m.put("initiator", p.initiatorName());
        m.put("initiatorAlias", p.initiatorAlias());
        m.put("target", session.discovery() ? null : session.target().name());
        m.put("type", session.discovery() ? "discovery" : "normal");
        m.put("portal", session.portal());
        m.put("connections", connections);
        m.put("commandsInFlight", connections.stream().mapToInt(IscsiSession.ConnectionInfo::commandsInFlight).sum());
        putTraffic(m, session.counters());
        Map<String, Object> negotiated = new LinkedHashMap<>();
        negotiated.put("HeaderDigest", p.headerDigest() ? "CRC32C" : "None");
        negotiated.put("DataDigest", p.dataDigest() ? "CRC32C" : "None");
        negotiated.put("MaxRecvDataSegmentLength", p.initiatorMaxRecvDataSegmentLength());
        negotiated.put("MaxBurstLength", p.maxBurstLength());
        negotiated.put("FirstBurstLength", p.firstBurstLength());
        negotiated.put("ImmediateData", p.immediateData());
        negotiated.put("InitialR2T", p.initialR2T());
        negotiated.put("MaxConnections", p.maxConnections());
        negotiated.put("ErrorRecoveryLevel", p.errorRecoveryLevel());
        m.put("parameters", negotiated);
        return m;
    }

    /** What a session carried: commands by kind, data bytes of GOOD READs and WRITEs, failures. */
    private static void putTraffic(Map<String, Object> m, TransferCounters c) {
        Map<String, Long> commands = new LinkedHashMap<>();
        Map<String, Long> bytes = new LinkedHashMap<>();
        for (Op op : Op.values()) {
            String kind = op.name().toLowerCase(Locale.ROOT);
            commands.put(kind, c.commands(op));
            if (op != Op.OTHER) {
                bytes.put(kind, c.bytes(op));
            }
        }
        m.put("commands", commands);
        m.put("dataBytes", bytes);
        m.put("failedCommands", c.failed());
    }
}
