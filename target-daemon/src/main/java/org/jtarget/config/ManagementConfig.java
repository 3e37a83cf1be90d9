package org.jtarget.config;

/**
 * The optional top-level {@code management:} map: the daemon's HTTP listener for people and
 * monitoring, off unless configured.
 *
 * <pre>
 * management:
 *   http: 127.0.0.1:9180   # where it listens (host:port, an IP literal); keep it off public networks
 *   metrics: true          # serve /metrics there (OpenMetrics / Prometheus text); default false
 * </pre>
 *
 * @param httpHost the listener's address literal
 * @param httpPort its TCP port
 * @param metrics  whether {@code /metrics} is served
 */
public record ManagementConfig(String httpHost, int httpPort, boolean metrics) {

    private static final java.util.Set<String> KEYS = ConfigNode.keys("http", "metrics");

    /** Reads {@code management:}; null when absent. */
    static ManagementConfig read(ConfigNode root) throws ConfigException {
        ConfigNode node = root.map("management");
        if (node == null) {
            return null;
        }
        node.requireOnlyKeys(KEYS);
        ListenAddress http = ListenAddress.read(node, "http");
        return new ManagementConfig(http.host(), http.port(), node.bool("metrics", false));
    }
}
