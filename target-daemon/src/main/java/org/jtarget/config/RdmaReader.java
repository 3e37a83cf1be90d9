package org.jtarget.config;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Reads and checks the optional {@code rdma:} map ({@link RdmaConfig}): {@code listen} and at least
 * one endpoint; every endpoint names an existing backstore, a block range inside it when its size
 * is known here (else the daemon checks at start), and at least one allowed peer address.
 */
final class RdmaReader {

    private static final Set<String> KEYS = ConfigNode.keys("listen", "endpoints");
    private static final Set<String> ENDPOINT_KEYS = ConfigNode.keys("name", "backstore", "first-block",
            "block-count", "read-only", "write-through", "allowed-peers");
    /** What a client puts in its URL path and its connect request: short, no spaces or slashes. */
    private static final String NAME_PATTERN = "[A-Za-z0-9._:-]{1,64}";

    private RdmaReader() {
    }

    /** The {@code rdma:} section, or null when the config has none. */
    static RdmaConfig read(ConfigNode root, List<PortalConfig> portals, List<BackstoreConfig> backstores)
            throws ConfigException {
        ConfigNode node = root.map("rdma");
        if (node == null) {
            return null;
        }
        node.requireOnlyKeys(KEYS);
        ListenAddress listen = ListenAddress.read(node, "listen");
        listen.requireNoPortal(node, "listen", portals);
        List<ConfigNode> nodes = node.maps("endpoints");
        if (nodes.isEmpty()) {
            throw node.error("endpoints", "missing (at least one endpoint is required)");
        }
        List<RdmaConfig.EndpointConfig> endpoints = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (ConfigNode n : nodes) {
            RdmaConfig.EndpointConfig e = readEndpoint(n, backstores);
            if (!names.add(e.name())) {
                throw n.error("name", "duplicate endpoint name '" + e.name() + "'");
            }
            endpoints.add(e);
        }
        return new RdmaConfig(listen.host(), listen.port(), endpoints);
    }

    private static RdmaConfig.EndpointConfig readEndpoint(ConfigNode node, List<BackstoreConfig> backstores)
            throws ConfigException {
        node.requireOnlyKeys(ENDPOINT_KEYS);
        String name = node.requireString("name");
        if (!name.matches(NAME_PATTERN) || name.getBytes(StandardCharsets.UTF_8).length > 64) {
            throw node.error("name", "'" + name + "': 1 to 64 of A-Z a-z 0-9 . _ : -");
        }
        String storeName = node.requireString("backstore");
        BackstoreConfig store = backstores.stream().filter(b -> b.name().equals(storeName)).findFirst()
                .orElseThrow(() -> node.error("backstore", "no backstore named '" + storeName + "'"));
        long first = blocks(node, "first-block");
        long count = blocks(node, "block-count");
        checkRange(node, store, first, count);
        return new RdmaConfig.EndpointConfig(name, storeName, first, count, node.bool("read-only", false),
                node.bool("write-through", true), peers(node));
    }

    /** A block number or count: a whole number from 0, 0 when absent. */
    private static long blocks(ConfigNode node, String key) throws ConfigException {
        Object v = node.scalar(key);
        if (v == null) {
            return 0;
        }
        if (!(v instanceof Integer || v instanceof Long) || ((Number) v).longValue() < 0) {
            throw node.error(key, "expected a whole number of blocks from 0, got '" + v + "'");
        }
        return ((Number) v).longValue();
    }

    /** The range must lie inside the store when its size is known now (a file's size may be known only at open). */
    private static void checkRange(ConfigNode node, BackstoreConfig store, long first, long count)
            throws ConfigException {
        if (store.sizeBytes() <= 0 || store.blockSize() <= 0) {
            return;
        }
        long storeBlocks = store.sizeBytes() / store.blockSize();
        if (first >= storeBlocks) {
            throw node.error("first-block", first + " is past the end of backstore '" + store.name() + "' ("
                    + storeBlocks + " blocks)");
        }
        if (count > storeBlocks - first) {
            throw node.error("block-count", first + " + " + count + " blocks is past the end of backstore '"
                    + store.name() + "' (" + storeBlocks + " blocks)");
        }
    }

    /** {@code allowed-peers}: required, IP literals; access must be granted explicitly (no wildcard). */
    private static List<String> peers(ConfigNode node) throws ConfigException {
        List<String> texts = node.strings("allowed-peers");
        if (texts.isEmpty()) {
            throw node.error("allowed-peers", "missing (list the IP addresses that may connect; there is no wildcard)");
        }
        List<String> peers = new ArrayList<>();
        for (int i = 0; i < texts.size(); i++) {
            String ip = ListenAddress.ipLiteral(texts.get(i));
            if (ip == null) {
                throw node.error("allowed-peers[" + i + "]", "'" + texts.get(i)
                        + "' is not an IP address literal (host names and wildcards are not accepted)");
            }
            peers.add(ip);
        }
        return peers;
    }
}
