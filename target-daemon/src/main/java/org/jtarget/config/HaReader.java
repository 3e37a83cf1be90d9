package org.jtarget.config;

import org.jtarget.units.ByteSize;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Reads and checks the optional {@code ha:} map ({@link HaConfig}): the two node names (different),
 * this node's replication listener (no portal's or {@code rdma.listen}'s address), the peer's and
 * the witness's addresses (host names allowed: they are resolved when connecting), the preferred
 * primary (one of the two), the heartbeat timing, the region size, and the replicated backstores
 * (existing, each once, no partition: a partition shares its parent's file, so the parent is what
 * gets replicated).
 */
final class HaReader {

    private static final Set<String> KEYS = ConfigNode.keys("node", "listen", "peer", "witness",
            "preferred-primary", "heartbeat-interval", "heartbeat-timeout", "region-size", "backstores");
    private static final Set<String> PEER_KEYS = ConfigNode.keys("node", "address");
    /** A node name: it appears in log lines, in the pair id and on the wire; short, no spaces. */
    private static final String NAME_PATTERN = "[A-Za-z0-9._-]{1,64}";
    /** The longest heartbeat interval or timeout: as {@code daemon.shutdown-timeout}, an hour. */
    private static final Duration MAX_HEARTBEAT = Duration.ofHours(1);

    private HaReader() {
    }

    /** The {@code ha:} section, or null when the config has none. */
    static HaConfig read(ConfigNode root, List<PortalConfig> portals, List<BackstoreConfig> backstores,
                         RdmaConfig rdma) throws ConfigException {
        ConfigNode node = root.map("ha");
        if (node == null) {
            return null;
        }
        node.requireOnlyKeys(KEYS);
        String name = name(node, "node");
        ListenAddress listen = ListenAddress.read(node, "listen");
        listen.requireNoPortal(node, "listen", portals);
        if (rdma != null && listen.is(rdma.host(), rdma.port())) {
            throw node.error("listen", listen.describe() + " is also rdma.listen");
        }
        ConfigNode peer = node.map("peer");
        if (peer == null) {
            throw node.error("peer", "missing (required: the other node's node and address)");
        }
        peer.requireOnlyKeys(PEER_KEYS);
        String peerName = name(peer, "node");
        if (peerName.equals(name)) {
            throw peer.error("node", "'" + peerName + "' is this node's name (ha.node) too; the two need different"
                    + " names");
        }
        ListenAddress peerAddress = ListenAddress.readRemote(peer, "address");
        if (peerAddress.is(listen.host(), listen.port())) {
            throw peer.error("address", peerAddress.describe() + " is this node's own ha.listen");
        }
        ListenAddress witness = node.has("witness") ? ListenAddress.readRemote(node, "witness") : null;
        if (witness != null && (witness.is(listen.host(), listen.port())
                || witness.is(peerAddress.host(), peerAddress.port()))) {
            throw node.error("witness", witness.describe() + " is one of the pair's own addresses; the witness is a"
                    + " third daemon");
        }
        String preferred = preferredPrimary(node, name, peerName);
        Duration interval = node.duration("heartbeat-interval", HaConfig.DEFAULT_HEARTBEAT_INTERVAL, MAX_HEARTBEAT);
        Duration timeout = node.duration("heartbeat-timeout", HaConfig.DEFAULT_HEARTBEAT_TIMEOUT, MAX_HEARTBEAT);
        if (timeout.compareTo(interval.multipliedBy(2)) < 0) {
            throw node.error("heartbeat-timeout", ConfigNode.describe(timeout) + " is less than twice"
                    + " heartbeat-interval " + ConfigNode.describe(interval)
                    + " (one lost heartbeat must not end the pair)");
        }
        return new HaConfig(name, listen.host(), listen.port(), peerName, peerAddress.host(), peerAddress.port(),
                witness == null ? null : witness.host(), witness == null ? 0 : witness.port(), preferred, interval,
                timeout, regionSize(node), replicated(node, backstores, rdma));
    }

    private static String name(ConfigNode node, String key) throws ConfigException {
        String name = node.requireString(key);
        if (!name.matches(NAME_PATTERN)) {
            throw node.error(key, "'" + name + "': 1 to 64 of A-Z a-z 0-9 . _ -");
        }
        return name;
    }

    /** One of the two names; absent: the one that sorts first, so that both nodes pick the same. */
    private static String preferredPrimary(ConfigNode node, String name, String peerName) throws ConfigException {
        String preferred = node.string("preferred-primary");
        if (preferred == null) {
            return name.compareTo(peerName) < 0 ? name : peerName;
        }
        if (!preferred.equals(name) && !preferred.equals(peerName)) {
            throw node.error("preferred-primary", "'" + preferred + "' is neither ha.node '" + name
                    + "' nor ha.peer.node '" + peerName + "'");
        }
        return preferred;
    }

    private static int regionSize(ConfigNode node) throws ConfigException {
        long size = BackstoreReader.bytes(node, "region-size", false);
        if (size == -1) {
            return HaConfig.DEFAULT_REGION_SIZE;
        }
        if (size < HaConfig.DEFAULT_REGION_SIZE || size > HaConfig.MAX_REGION_SIZE || Long.bitCount(size) != 1) {
            throw node.error("region-size", "must be a power of two from "
                    + ByteSize.format(HaConfig.DEFAULT_REGION_SIZE) + " to " + ByteSize.format(HaConfig.MAX_REGION_SIZE)
                    + ", got " + node.scalar("region-size"));
        }
        return (int) size;
    }

    /** {@code backstores}: at least one, each an existing store that is not a partition, each once. */
    private static List<String> replicated(ConfigNode node, List<BackstoreConfig> backstores, RdmaConfig rdma)
            throws ConfigException {
        List<String> names = node.strings("backstores");
        if (names.isEmpty()) {
            throw node.error("backstores", "missing (at least one replicated backstore is required)");
        }
        List<String> result = new ArrayList<>();
        for (int i = 0; i < names.size(); i++) {
            String key = "backstores[" + i + "]";
            String storeName = names.get(i);
            BackstoreConfig store = backstores.stream().filter(b -> b.name().equals(storeName)).findFirst()
                    .orElseThrow(() -> node.error(key, "no backstore named '" + storeName + "'"));
            if (store.isPartition()) {
                throw node.error(key, "'" + storeName + "' is a partition of '" + store.of()
                        + "'; replicate its parent '" + store.of() + "' instead");
            }
            if (result.contains(storeName)) {
                throw node.error(key, "'" + storeName + "' is listed twice");
            }
            requireNoBypass(node, key, storeName, backstores, rdma);
            result.add(storeName);
        }
        return result;
    }

    /**
     * A replicated store must change only through its replication: a partition of it (which
     * opens on the store beneath) or a writable RDMA endpoint (which writes one-sided into it)
     * would change this node's copy alone, and the pair's copies would silently differ.
     */
    private static void requireNoBypass(ConfigNode node, String key, String storeName, List<BackstoreConfig> backstores,
                                        RdmaConfig rdma) throws ConfigException {
        for (BackstoreConfig b : backstores) {
            if (b.isPartition() && storeName.equals(b.of())) {
                throw node.error(key, "'" + storeName + "' has partition '" + b.name() + "', which would write around"
                        + " the replication; partitions of a replicated store are not supported");
            }
        }
        if (rdma != null) {
            for (RdmaConfig.EndpointConfig e : rdma.endpoints()) {
                if (e.backstore().equals(storeName) && !e.readOnly()) {
                    throw node.error(key, "'" + storeName + "' is exposed writable by rdma endpoint '" + e.name()
                            + "', which would write around the replication; make the endpoint read-only");
                }
            }
        }
    }
}
